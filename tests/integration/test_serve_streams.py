"""`senki serve` with open event streams: a revoked token's stream ends within seconds, and a
SIGTERM ends every stream and the process within its graceful timeout (not the streams' own
ten-minute limit)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth
from tests.api.fight import Fight, open_fight
from tests.support.processes import free_port, senki_env

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

GRACEFUL_TIMEOUT = 5
# How long a revoked token's stream may go on: a recheck each second, and a loaded machine.
REVOCATION_BOUND = 4.0


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]
    log: Path


@contextmanager
def senki_serve(
    app_url: str, owner_url: str, log_dir: Path, env: dict[str, str] | None = None
) -> Iterator[Server]:
    port = free_port()
    command = [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(port)]
    options = ["--graceful-timeout", str(GRACEFUL_TIMEOUT)]
    log = log_dir / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*command, *options],
            env=senki_env(app_url, owner_url) | {"SENKI_LOG_LEVEL": "warning"} | (env or {}),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        deadline = time.monotonic() + 90
        while not _ready(server.base):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"senki serve did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def _ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class Listener:
    """One open stream, read on a thread of its own: every SSE block it received."""

    blocks: list[str] = field(default_factory=list)
    opened: threading.Event = field(default_factory=threading.Event)
    ended_at: float | None = None
    thread: threading.Thread | None = None

    def closed_reason(self) -> str | None:
        for block in self.blocks:
            if block.startswith("event: closed"):
                data = block.split("data: ", 1)[1]
                return str(json.loads(data)["reason"])
        return None


def listen(base: str, fight: Fight, member: str) -> Listener:
    listener = Listener()

    def read() -> None:
        url = f"{base}/v1/encounters/{fight.id}/stream"
        timeout = httpx.Timeout(10, read=700)
        with httpx.stream("GET", url, headers=auth(fight.token(member)), timeout=timeout) as got:
            assert got.status_code == 200
            buffer = ""
            try:
                for text in got.iter_text():
                    listener.opened.set()
                    buffer += text
                    *done, buffer = buffer.split("\n\n")
                    listener.blocks += done
            except httpx.HTTPError:
                pass  # the server went away: ended all the same
        listener.ended_at = time.monotonic()

    listener.thread = threading.Thread(target=read, daemon=True)
    listener.thread.start()
    assert listener.opened.wait(30), "the stream did not open"
    return listener


def test_a_revoked_tokens_stream_closes_and_sigterm_ends_every_stream(
    app_url: str, owner_url: str, tmp_path: Path
) -> None:
    with (
        senki_serve(app_url, owner_url, tmp_path) as server,
        httpx.Client(base_url=server.base, timeout=30) as http,
    ):
        fight = open_fight(cast(TestClient, http))
        aoi, gm, kai = (listen(server.base, fight, m) for m in ("aoi", "gm", "kai"))
        time.sleep(1.5)  # a few polls and rechecks: every stream is live and still allowed
        assert (aoi.ended_at, gm.ended_at, kai.ended_at) == (None, None, None)

        # When the GM revokes aoi's token, aoi's stream ends; the others go on.
        tokens = http.get(
            f"/v1/campaigns/{fight.campaign.id}/tokens", headers=auth(fight.token("gm"))
        )
        aoi_token = next(t["token_id"] for t in tokens.json() if t["member_id"] == "aoi")
        revoked_at = time.monotonic()
        revoked = http.delete(
            f"/v1/campaigns/{fight.campaign.id}/tokens/{aoi_token}", headers=auth(fight.token("gm"))
        )
        assert revoked.status_code == 200, revoked.text
        assert aoi.thread is not None
        aoi.thread.join(timeout=30)
        assert aoi.ended_at is not None, "the revoked token's stream is still open"
        assert aoi.ended_at - revoked_at < REVOCATION_BOUND
        assert aoi.closed_reason() == "unauthorized"
        assert (gm.ended_at, kai.ended_at) == (None, None)

        # When the server is told to stop, every stream ends and the process exits in time.
        stopped_at = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=GRACEFUL_TIMEOUT + 10)
        except subprocess.TimeoutExpired:
            raise AssertionError("senki serve outlived its graceful timeout") from None
        exited_in = time.monotonic() - stopped_at
        for listener in (gm, kai):
            assert listener.thread is not None
            listener.thread.join(timeout=10)
            assert listener.closed_reason() == "shutting-down"
        print(
            f"revoked stream ended in {aoi.ended_at - revoked_at:.2f}s, exited in {exited_in:.2f}s"
        )
        assert exited_in < GRACEFUL_TIMEOUT, f"exited after {exited_in:.1f}s"
        assert "Traceback" not in server.log.read_text()


def test_a_client_that_leaves_an_idle_stream_gives_its_slot_back_at_once(
    app_url: str, owner_url: str, tmp_path: Path
) -> None:
    """Nothing is appended and no keep-alive is due: the server learns of the departure from
    the connection itself (Starlette's disconnect listener under uvicorn), not from a send."""
    with (
        senki_serve(app_url, owner_url, tmp_path, {"SENKI_STREAMS_PER_TOKEN": "1"}) as server,
        httpx.Client(base_url=server.base, timeout=30) as http,
    ):
        fight = open_fight(cast(TestClient, http))
        path = f"/v1/encounters/{fight.id}/stream"
        headers = auth(fight.token("mio"))
        with http.stream("GET", path, headers=headers) as held:
            assert held.status_code == 200
            with http.stream("GET", path, headers=headers) as refused:
                assert refused.status_code == 429  # the token's one slot is taken
        left_at = time.monotonic()
        while True:
            with http.stream("GET", path, headers=headers, params={"limit": 1}) as again:
                if again.status_code == 200:
                    break
            assert time.monotonic() - left_at < REVOCATION_BOUND, "the slot was not given back"
            time.sleep(0.1)
        assert "Traceback" not in server.log.read_text()
