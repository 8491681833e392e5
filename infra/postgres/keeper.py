"""The keeper: starts the embedded server again when it dies under a process that uses it.

The watchdog (infra.postgres.watchdog) only ever *stops* the server, once its last user is
gone; it sleeps in flock() and never learns that the postmaster died. Without the keeper a
SIGKILLed postmaster (or the OOM killer) left `senki serve` answering 503 for good, until a
person restarted it. Each process that uses the server keeps a keeper thread: it looks at
postmaster.pid every `every_s`, and when the postmaster is gone it runs the same start as
EmbeddedPostgres.start (under the data-dir mutex, so when several users notice at once one
starts it and the others attach). The cluster, its socket and so every URL stay the same;
the connection pools reconnect by themselves.

What it says of itself (`state`) is what /healthz reports: `running`; `recovering` from the
moment the death is noticed while starts are being tried; `failing` once it has not come back
for `give_up_s` (it keeps trying, with back-off, but a liveness probe should now restart the
process, or a person look at the server log).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from infra.postgres.common import EmbeddedPostgresError, logger

KeeperStatus = Literal["running", "recovering", "failing"]


class Revivable(Protocol):
    def is_running(self) -> bool: ...

    def revive(self) -> None: ...


@dataclass(frozen=True)
class KeeperState:
    status: KeeperStatus
    detail: str = ""


RUNNING = KeeperState("running")


class Keeper:
    """One thread per EmbeddedPostgres handle that asks for it (see `Database`)."""

    def __init__(
        self,
        server: Revivable,
        *,
        every_s: float = 0.5,
        give_up_s: float = 60.0,
        max_backoff_s: float = 5.0,
        on_revived: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        self.every_s = every_s
        self.give_up_s = give_up_s
        self.max_backoff_s = max_backoff_s
        self.on_revived = on_revived
        self.clock = clock
        self.state = RUNNING
        self._down_since: float | None = None
        self._attempts = 0
        self._next_try = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def current(self) -> KeeperState:
        """The state, as of now: a death not yet noticed by the thread counts already (one
        look at postmaster.pid and the process table; no query)."""
        state = self.state
        if state.status == "running" and not self.server.is_running():
            return KeeperState("recovering", "the embedded PostgreSQL is not running")
        return state

    def start(self) -> Keeper:
        self._thread = threading.Thread(target=self._run, name="embedded-pg-keeper", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop keeping (before the server is stopped on purpose). Safe to call again."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=90)  # a start under way finishes first (pg_ctl -t 60)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.check()
            except Exception:  # a bug here must not end the thread, nor stay unsaid
                logger.exception("the embedded PostgreSQL keeper failed; trying again")

    def check(self) -> None:
        """One round: is the server running? If not, try to start it (not before its turn)."""
        if self._down_since is None and self.server.is_running():
            return
        now = self.clock()
        if self._down_since is None:
            logger.warning("the embedded PostgreSQL died; starting it again")
            self._down_since, self._attempts, self._next_try = now, 0, now
            self.state = KeeperState("recovering", "the embedded PostgreSQL died; restarting it")
        if now < self._next_try or self._stop.is_set():
            return
        try:
            self.server.revive()
        except EmbeddedPostgresError as error:
            self._failed(now, error)
            return
        logger.warning(
            "the embedded PostgreSQL is back after %.1f s (%d attempt(s))",
            self.clock() - self._down_since, self._attempts + 1,
        )  # fmt: skip
        self._down_since, self.state = None, RUNNING
        self.on_revived()

    def _failed(self, now: float, error: EmbeddedPostgresError) -> None:
        assert self._down_since is not None
        self._attempts += 1
        self._next_try = now + min(self.every_s * 2**self._attempts, self.max_backoff_s)
        down_for = now - self._down_since
        if down_for < self.give_up_s:
            self.state = KeeperState(
                "recovering",
                f"the embedded PostgreSQL died {down_for:.0f} s ago; restart attempt "
                f"{self._attempts} failed ({error}); trying again",
            )
            logger.warning("restarting the embedded PostgreSQL failed: %s", error)
            return
        if self.state.status != "failing":
            logger.error("the embedded PostgreSQL has not come back for %.0f s: %s",
                         down_for, error)  # fmt: skip
        self.state = KeeperState(
            "failing",
            f"the embedded PostgreSQL died {down_for:.0f} s ago and does not start again "
            f"({error}); still trying, but restart Senki or see its server log",
        )
