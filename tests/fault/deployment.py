"""Senki as deployed, on loopback: `senki db migrate`, three `senki serve`, two `senki project`.

Every process is the real CLI in its own Python process, configured only by SENKI_* variables
(the service with the low-privilege role, the migration with the owning role), against a
private PostgreSQL server that the test may restart.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
from psycopg import sql

from infra.store.names import ShardTables
from tests.support.databases import APP_ROLE
from tests.support.private_pg import PrivateServer
from tests.support.processes import free_port, health, lock_holder
from tests.support.runtime import TEST_DICE_KEY

DATABASE = "senki"
# What a request may fail with while PostgreSQL restarts (the client retries those).
DATABASE_DOWN = frozenset({"OperationalError", "InterfaceError", "PoolTimeout"})
_UNHANDLED = "ERROR:senki.api:unhandled error"
_NEXT_RECORD = re.compile(r"^(?:ERROR|WARNING|INFO|DEBUG|CRITICAL):", re.MULTILINE)
# The last line of a traceback: `module.CamelCaseName: message` (not DETAIL:, CONTEXT:…).
_RAISED = re.compile(r"^(?:[a-z_]\w*\.)*([A-Z]\w*[a-z]\w*): ", re.MULTILINE)
_START_TIMEOUT_S = 60.0


@dataclass
class Process:
    """One Senki process: what it is, where it answers, and its output."""

    name: str
    argv: list[str]
    log: Path
    port: int
    popen: subprocess.Popen[bytes] | None = None

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


@dataclass
class Deployment:
    """The processes of one Senki installation on a private PostgreSQL server."""

    server: PrivateServer
    shards: int
    logs: Path
    apis: list[Process] = field(default_factory=list)
    projectors: dict[str, Process] = field(default_factory=dict)

    @property
    def owner_url(self) -> str:
        return self.server.url(DATABASE)

    @property
    def app_url(self) -> str:
        return self.server.url(DATABASE, APP_ROLE)

    @property
    def servers(self) -> list[str]:
        return [f"http://127.0.0.1:{api.port}" for api in self.apis]

    def env(self) -> dict[str, str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
        return clean | {
            "SENKI_DATABASE_URL": self.app_url,
            "SENKI_MIGRATION_DATABASE_URL": self.owner_url,
            "SENKI_APP_ROLE": APP_ROLE,
            "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
            "SENKI_SHARDS": str(self.shards),
            "SENKI_LOG_LEVEL": "warning",
        }

    def senki(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run one `senki` command to completion (migrate, verify, projections status)."""
        return subprocess.run(
            [sys.executable, "-m", "infra.cli.main", *args],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def migrate(self) -> None:
        self.server.create_database(DATABASE)
        done = self.senki("db", "migrate")
        assert done.returncode == 0, done.stdout + done.stderr

    def start_apis(self, count: int) -> None:
        for index in range(count):
            port = free_port()
            argv = ["serve", "--port", str(port)]
            self.apis.append(Process(f"api-{index}", argv, self.logs / f"api-{index}.log", port))
        for api in self.apis:
            self._spawn(api)
        for api in self.apis:
            self.wait_api(api)

    def start_projectors(self, names: tuple[str, ...]) -> None:
        for name in names:
            port = free_port()
            argv = ["project", "--name", name, "--health-port", str(port), "--batch-size", "200"]
            projector = Process(name, argv, self.logs / f"projector-{name}.log", port)
            self.projectors[name] = projector
            self._spawn(projector)

    def _spawn(self, process: Process) -> None:
        with process.log.open("ab") as log:
            process.popen = subprocess.Popen(
                [sys.executable, "-m", "infra.cli.main", *process.argv],
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_api(self, api: Process) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_S
        while True:
            self.check_alive(api)
            try:
                if httpx.get(f"http://127.0.0.1:{api.port}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{api.name} is not ready:\n{api.output()}")
            time.sleep(0.1)

    def check_alive(self, process: Process) -> None:
        assert process.popen is not None
        if process.popen.poll() is not None:
            raise AssertionError(
                f"{process.name} exited ({process.popen.returncode}):\n{process.output()}"
            )

    def sigkill(self, process: Process) -> None:
        assert process.popen is not None
        os.kill(process.popen.pid, signal.SIGKILL)
        process.popen.wait(10)

    def restart(self, process: Process) -> None:
        """Start a killed process again on the same port (what a supervisor would do)."""
        self._spawn(process)

    def unexplained_errors(self) -> list[str]:
        """Requests the API failed for another reason than the database being down."""
        found = []
        for api in self.apis:
            for text in api.log.read_text(errors="replace").split(_UNHANDLED)[1:]:
                record = _NEXT_RECORD.split(text, maxsplit=1)[0]
                raised = _RAISED.findall(record)
                if not raised or raised[-1] not in DATABASE_DOWN:
                    found.append(f"{api.name}:{record[:2000]}")
        return found

    def shard_of(self, stream_id: str) -> int:
        """The shard whose events table holds the stream (its campaign's shard)."""
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            for shard in range(self.shards):
                table = sql.Identifier("senki", ShardTables(shard).events)
                query = sql.SQL("SELECT 1 FROM {} WHERE originator_id = %s LIMIT 1")
                if conn.execute(query.format(table), (stream_id,)).fetchone():
                    return shard
        raise AssertionError(f"stream {stream_id} is on no shard")

    def active_projector(self) -> str | None:
        holder = lock_holder(self.app_url)
        if holder is None:
            return None
        return holder.removeprefix("senki-projector:").removesuffix("-lock")

    def projector_state(self, name: str) -> str:
        return health(self.projectors[name].port)

    def stop_all(self) -> None:
        """SIGTERM every process (a clean shutdown), SIGKILL what does not exit."""
        everything = [*self.apis, *self.projectors.values()]
        for process in everything:
            if process.popen is not None and process.popen.poll() is None:
                process.popen.terminate()
        for process in everything:
            if process.popen is None:
                continue
            try:
                process.popen.wait(15)
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait(10)
