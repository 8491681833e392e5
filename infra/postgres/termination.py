"""SIGTERM and SIGHUP as a clean exit, so the embedded server a process uses is released.

Apart from embedded.py (standard library only) so that `senki` installs the handlers before
any command without importing psycopg: `senki --help` must not pay for a database driver.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_exiting = False
_TERMINATION_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    global _exiting  # noqa: PLW0603
    if _exiting:
        return  # already on the way out: let the cleanup finish
    _exiting = True
    raise SystemExit(128 + signum)


def exiting() -> None:
    """The process is on its way out: a later SIGTERM must not cut the cleanup short."""
    global _exiting  # noqa: PLW0603
    _exiting = True


def install_termination_handlers() -> None:
    """Make SIGTERM and SIGHUP exit cleanly (SystemExit), so atexit and finally blocks run.

    Python's default for SIGTERM kills the process without running atexit, which is where
    EmbeddedPostgres releases the server. Handlers installed by someone else (e.g. uvicorn's
    graceful shutdown, which returns normally and so runs atexit too) and an ignored SIGHUP
    (nohup) are left alone. Safe to call more than once; must run in the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("install_termination_handlers() must be called from the main thread")
    for signum in _TERMINATION_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _exit_on_signal)
