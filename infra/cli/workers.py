"""`senki serve --workers N`: N server processes on one machine behind one listening socket.

The parent binds the socket once and starts N workers (multiprocessing's spawn: a fresh
interpreter each, no forked pools or threads), each running the same uvicorn server as
`senki serve` on the inherited socket; the kernel hands each new connection to whichever
worker accepts it first. Each worker opens its own ledger, pools and append watch, so each
holds its own one LISTEN (api/live.py) for the streams it serves.

On the embedded default the parent starts the embedded PostgreSQL once (and migrates it, and
keeps it running, and projects the read models, as one `senki serve` does); the workers attach
to it by URL as to an external server, so none of them starts, adopts or stops it. With an
external database the workers use the configured URLs and the parent only supervises.

A worker that exits while the service runs is logged and started again (after a pause, so
that a worker failing at start does not spin). SIGTERM or SIGINT to the parent: every worker is
told SIGTERM (each ends its open streams at once and finishes its requests within the
graceful timeout, as `senki serve` does), then the parent stops the embedded server if it
started it. Prometheus counters are per process: with several workers /metrics answers for
the worker that took the request, so `SENKI_METRICS_PORT` (one port per process) is refused.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from types import FrameType

from pydantic import SecretStr

from infra.settings import Settings

log = logging.getLogger("senki.workers")

RESTART_PAUSE_S = 1.0
# How long the parent gives a worker past its graceful timeout before killing it.
STOP_MARGIN_S = 5.0


class WorkersRefused(ValueError):
    """Settings that several workers cannot honour; the message says what to change."""


def bind(settings: Settings) -> socket.socket:
    """The one listening socket every worker accepts on."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    try:
        listening = socket.create_server(
            (settings.host, settings.port), family=family, backlog=2048
        )
    except OSError as error:
        raise WorkersRefused(
            f"cannot listen on {settings.host} port {settings.port}: {error.strerror}; "
            "choose another --port or stop what holds it"
        ) from error
    listening.set_inheritable(True)
    return listening


def worker_settings(settings: Settings, service: str, owner: str, dice_key: bytes) -> Settings:
    """A worker's settings: the embedded server the parent started, reached by its URLs (the
    key goes to the worker through multiprocessing's pipe, never its environment)."""
    return settings.model_copy(
        update={
            "database_url": SecretStr(service),
            "migration_database_url": SecretStr(owner),
            "dice_master_key": SecretStr(dice_key.hex()),
        }
    )


def run_worker(settings: Settings, listening: socket.socket, graceful_timeout: int) -> None:
    """One worker: `senki serve`'s app and server on the inherited socket (a spawn target)."""
    from api.app import create_app
    from infra import bootstrap, gc_tuning, log_redaction
    from infra.cli import http_server

    logging.basicConfig(level=settings.log_level.upper())
    log_redaction.install()
    gc_tuning.tune()
    runtime = bootstrap.start(settings)
    application = create_app(
        lambda: runtime, lambda _: runtime.close(), cors_origins=settings.cors_origins
    )
    http_server.serve(
        application,
        settings,
        on_shutdown=runtime.shutting_down.set,
        graceful_timeout=graceful_timeout,
        sockets=[listening],
    )


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    started: float


class Supervisor:
    """Starts N workers on one socket, restarts one that exits, stops all on a signal."""

    def __init__(
        self,
        count: int,
        target: Callable[..., None],
        args: tuple[object, ...],
        *,
        stop_timeout: float,
        say: Callable[[str], None],
    ) -> None:
        self.count = count
        self.target, self.args = target, args
        self.stop_timeout = stop_timeout
        self.say = say
        self.stopping = threading.Event()
        self._context = multiprocessing.get_context("spawn")
        self.workers: list[_Worker] = []

    def _start(self, number: int) -> _Worker:
        process = self._context.Process(
            target=self.target, args=self.args, name=f"senki-worker-{number}", daemon=False
        )
        process.start()
        self.say(f"worker {number} started (pid {process.pid})")
        return _Worker(number, process, time.monotonic())

    def run(self) -> None:
        """Until SIGTERM or SIGINT (from the main thread: it installs the handlers)."""
        previous = {
            signum: signal.signal(signum, self._stop_on_signal)
            for signum in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            self.workers = [self._start(n) for n in range(1, self.count + 1)]
            while not self.stopping.wait(0.5):
                self._restart_exited()
        finally:
            self._stop_all()
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _stop_on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping.set()

    def _restart_exited(self) -> None:
        for index, worker in enumerate(self.workers):
            if worker.process.is_alive() or self.stopping.is_set():
                continue
            self.say(
                f"worker {worker.number} (pid {worker.process.pid}) exited with code "
                f"{worker.process.exitcode}; starting another"
            )
            # A worker that fails at start would otherwise be restarted in a tight loop.
            pause = RESTART_PAUSE_S - (time.monotonic() - worker.started)
            if pause > 0 and self.stopping.wait(pause):
                return
            self.workers[index] = self._start(worker.number)

    def _stop_all(self) -> None:
        for worker in self.workers:
            if worker.process.is_alive() and worker.process.pid is not None:
                # It may have exited since the check: nothing to tell it then.
                with contextlib.suppress(ProcessLookupError):
                    worker.process.terminate()  # SIGTERM: uvicorn's graceful shutdown
        deadline = time.monotonic() + self.stop_timeout
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                self.say(f"worker {worker.number} (pid {worker.process.pid}) killed: too slow")
                worker.process.kill()
                worker.process.join(5)


def serve_workers(
    settings: Settings, count: int, graceful_timeout: int, say: Callable[[str], None]
) -> None:
    """The parent of `senki serve --workers N` (count ≥ 2)."""
    from infra import bootstrap

    if settings.metrics_port is not None:
        raise WorkersRefused(
            "SENKI_METRICS_PORT serves one process's counters: unset it with --workers "
            "(each worker then answers /metrics on the API port for itself)"
        )
    listening = bind(settings)  # first: a port in use fails before anything starts
    parent = bootstrap.start(settings) if settings.embedded else None
    try:
        if parent is not None:
            parent.start_projector()  # the read models, once for the machine
            chosen = worker_settings(
                settings, parent.urls.service, parent.urls.owner, parent.dice_key
            )
        else:
            chosen = settings
        Supervisor(
            count,
            run_worker,
            (chosen, listening, graceful_timeout),
            stop_timeout=graceful_timeout + STOP_MARGIN_S,
            say=say,
        ).run()
    finally:
        listening.close()
        if parent is not None:
            parent.close()
