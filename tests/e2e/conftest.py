"""A real Senki served over HTTP on a loopback port, with the table page, for a browser.

The browser needs a socket, so the app runs under uvicorn in a thread (TestClient has none).
The database is the run's PostgreSQL server, like every other test's.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from playwright import sync_api

from api.app import create_app
from infra.services.runtime import Runtime
from tests.support.databases import APP_ROLE, TestServer
from tests.support.runtime import start_runtime

CHROMIUM = Path("/usr/bin/chromium")


@dataclass
class LiveServer:
    base_url: str
    client: httpx.Client


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def e2e_database(pg_server: TestServer) -> Iterator[tuple[str, str]]:
    with pg_server.fresh_database() as name:
        yield pg_server.url(name, user=APP_ROLE), pg_server.url(name)


@pytest.fixture
def e2e_runtime(e2e_database: tuple[str, str]) -> Iterator[Runtime]:
    runtime = start_runtime(*e2e_database)
    yield runtime
    runtime.close()


@pytest.fixture
def live_server(e2e_runtime: Runtime) -> Iterator[LiveServer]:
    app = create_app(lambda: e2e_runtime, lambda _: None)  # serves /table itself
    port = _free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    base_url = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base_url, timeout=20) as client:
        try:
            yield LiveServer(base_url, client)
        finally:
            server.should_exit = True
            thread.join(timeout=15)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for a test file's page tests: launching it was most of a page
    test's set-up (docs/capacity.md). Each test has contexts of its own (`browser`), which
    share no cookies, storage or pages with another test's."""
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    """The file's Chromium for one test. Every context the test opened, and its pages, is
    closed before the test's server stops, so no live stream is cut mid-request."""
    yield chromium
    for context in chromium.contexts:
        context.close()
