"""Sheet bodies rendered once per state: sites poll the same sheet far more often than it changes.

Validating the answer against its response model and encoding it as JSON costs more than the
rest of a sheet read once the token check is cached. A body is kept beside the very state
object and version it was rendered from; the executor hands out that same (frozen) object
until the stream changes, so an identity check tells whether the body still shows the current
state — no invalidation, and nothing to go stale across databases or processes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from uuid import UUID

from fastapi import Response


class RenderedSheets:
    """The latest rendered JSON body per stream, keyed by the state object it shows."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._bodies: OrderedDict[UUID, tuple[object, int, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def body(
        self, stream_id: UUID, state: object, version: int, render: Callable[[], bytes]
    ) -> bytes:
        """The body for `state` at `version`, rendered by `render` unless it already was."""
        found = self._bodies.get(stream_id)
        # `is`, not ==: an event that changes nothing may leave the same object at a new
        # version, hence the version too; equal-but-distinct states just render again.
        if found is not None and found[0] is state and found[1] == version:
            return found[2]
        rendered = render()
        with self._lock:
            self._bodies[stream_id] = (state, version, rendered)
            self._bodies.move_to_end(stream_id)
            while len(self._bodies) > self.size:
                self._bodies.popitem(last=False)
        return rendered


def json_response(body: bytes, etag: str) -> Response:
    """A 200 with a ready JSON body (FastAPI's response model is not applied again)."""
    return Response(body, media_type="application/json", headers={"ETag": f'"{etag}"'})
