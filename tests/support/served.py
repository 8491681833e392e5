"""An app served by uvicorn on a thread of the test process, on a loopback port."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn


@contextmanager
def on_a_thread(config: uvicorn.Config, start_within: float = 30) -> Iterator[None]:
    """Serve `config` until the block ends (then wait for the server to stop)."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_within
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=15)
