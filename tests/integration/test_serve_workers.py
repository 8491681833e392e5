"""`senki serve --workers 2`: two processes answer on one port, a worker that dies is started
again while the other serves, and SIGTERM stops every worker and the parent."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest

from infra.postgres.proc import read_pid_file
from tests.support.processes import free_port, senki_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

STARTED = re.compile(r"worker (\d+) started \(pid (\d+)\)")


@contextmanager
def serve_two(env: dict[str, str], log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    command = [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(port)]
    with log.open("wb") as output:
        parent = subprocess.Popen(
            [*command, "--workers", "2", "--graceful-timeout", "3"],
            env=env | {"SENKI_LOG_LEVEL": "warning"},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180  # the embedded default may run initdb first
        while len(workers(log)) < 2 or not _answers(base):
            if parent.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"senki serve --workers 2 did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield base, parent
    finally:
        if parent.poll() is None:
            for child in psutil.Process(parent.pid).children(recursive=True):
                child.kill()
            parent.kill()
            parent.wait(timeout=30)


def workers(log: Path) -> dict[int, int]:
    """Worker number → its newest pid, as the parent logged them."""
    return {int(n): int(pid) for n, pid in STARTED.findall(log.read_text())}


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def served_while_others_frozen(base: str, serving: int, others: list[int]) -> bool:
    """A request on a new connection while every other worker is stopped (SIGSTOP): only
    `serving` can accept it from the shared socket."""
    for pid in others:
        os.kill(pid, signal.SIGSTOP)
    try:
        with httpx.Client(timeout=10) as http:
            return http.get(f"{base}/readyz").status_code == 200
    finally:
        for pid in others:
            os.kill(pid, signal.SIGCONT)


def test_two_workers_serve_one_port_and_a_dead_one_is_replaced(
    app_url: str, owner_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    with serve_two(senki_env(app_url, owner_url), log) as (base, parent):
        first = workers(log)
        assert len(set(first.values())) == 2
        # Each worker, alone, answers on the one port.
        for pid in first.values():
            others = [p for p in first.values() if p != pid]
            assert served_while_others_frozen(base, pid, others), f"worker pid {pid} did not answer"

        # A worker killed outright: the other goes on serving, and the parent starts another.
        os.kill(first[1], signal.SIGKILL)
        assert _answers(base)
        deadline = time.monotonic() + 60
        while workers(log)[1] == first[1]:
            assert time.monotonic() < deadline, f"worker 1 was not replaced:\n{log.read_text()}"
            time.sleep(0.2)
        assert f"worker 1 (pid {first[1]}) exited" in log.read_text()
        replaced = workers(log)
        while not served_while_others_frozen(base, replaced[1], [replaced[2]]):
            assert time.monotonic() < deadline, "the new worker 1 never answered"
            time.sleep(0.5)

        # SIGTERM to the parent stops every worker within the graceful timeout, then itself.
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=30) == 0, log.read_text()
        for pid in replaced.values():
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie"


def test_on_the_embedded_default_the_parent_alone_starts_and_stops_postgresql(
    tmp_path: Path,
) -> None:
    data_dir = (tmp_path / "senki").resolve()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    log = tmp_path / "serve.log"
    with serve_two(env | {"SENKI_DATA_DIR": str(data_dir)}, log) as (base, parent):
        postmaster = read_pid_file(data_dir / "pg")
        assert postmaster is not None
        users_lock = str(data_dir / "pg.users.lock")
        # The parent uses the server it started; the workers reach it by URL, as an external
        # one: none of them holds it, so none can start, adopt or stop it.
        assert users_lock in {f.path for f in psutil.Process(parent.pid).open_files()}
        for pid in workers(log).values():
            assert users_lock not in {f.path for f in psutil.Process(pid).open_files()}
        answer = httpx.post(
            f"{base}/v1/campaigns",
            json={"name": "蒼穹", "gm_member_id": "gm"},
            headers={"Idempotency-Key": str(uuid.uuid4())},
            timeout=30,
        )
        assert answer.status_code == 201, answer.text

        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=60) == 0, log.read_text()
        deadline = time.monotonic() + 60
        while psutil.pid_exists(postmaster.pid):  # its last user gone: the server stops
            assert time.monotonic() < deadline, "the embedded server outlived its last user"
            time.sleep(0.5)
