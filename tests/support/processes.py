"""Projector processes for tests: started as `python -m infra.cli.projections project`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg

from infra.projector.runner import PROJECTOR_LOCK
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY


def senki_env(app_url: str, owner_url: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    return clean | {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_SHARDS": str(shard_count()),
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def health(port: int) -> str:
    """The projector state its /healthz reports ("" while it does not answer yet)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return str(json.loads(answer.read())["state"])
    except OSError:
        return ""


def spawn_projector(
    app_url: str,
    owner_url: str,
    name: str,
    log_dir: Path,
    *,
    batch_size: int = 500,
    health_port: int = 0,
    lanes: int = 1,
) -> subprocess.Popen[bytes]:
    path = log_dir / f"projector-{name}.log"
    log = path.open("ab")
    command = [sys.executable, "-m", "infra.cli.projections", "project"]
    options = ["--batch-size", str(batch_size), "--name", name, "--health-port", str(health_port)]
    options += ["--lanes", str(lanes)]
    process = subprocess.Popen(
        [*command, *options],
        env=senki_env(app_url, owner_url),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    LOGS[process.pid] = path
    return process


LOGS: dict[int, Path] = {}  # pid → the projector's output, shown when it dies unexpectedly


def run_cli(app_url: str, owner_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "infra.cli.projections", *args],
        env=senki_env(app_url, owner_url),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def lock_holder(url: str) -> str | None:
    """The application name of the session holding the projector lock, if any."""
    query = (
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objid = %s "
        "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    )
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(query, (PROJECTOR_LOCK >> 32, PROJECTOR_LOCK & 0xFFFFFFFF)).fetchone()
    return None if row is None else str(row[0])


def sessions(url: str, prefix: str) -> list[str]:
    """Application names of the sessions whose name starts with `prefix`."""
    query = "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE %s"
    with psycopg.connect(url, autocommit=True) as conn:
        return sorted(str(r[0]) for r in conn.execute(query, (prefix + "%",)).fetchall())


def in_transaction(url: str, application_name: str) -> bool:
    query = "SELECT 1 FROM pg_stat_activity WHERE application_name = %s AND xact_start IS NOT NULL"
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, (application_name,)).fetchone() is not None


def wait_for(
    check: Callable[[], bool],
    timeout: float = 60.0,
    every: float = 0.05,
    *,
    alive: Sequence[subprocess.Popen[bytes]] = (),
) -> None:
    """Poll `check`; fail at once, with its output, if a process in `alive` has exited."""
    deadline = time.monotonic() + timeout
    while not check():
        for process in alive:
            if process.poll() is not None:
                output = LOGS[process.pid].read_text(errors="replace")[-3000:]
                raise AssertionError(f"projector exited ({process.returncode}):\n{output}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {check}")
        time.sleep(every)
