"""A route whose plain requests skip FastAPI's general request machinery (issue #16).

FastAPI reads every request of a route by walking its dependency tree: each parameter's
annotation is inspected again, each header looked up through its field, each sub-dependency
solved in turn. For the encounter command, the busiest route, that walk was a seventh of the
server's instructions per command (callgrind, 3.83 M → 3.31 M per command over HTTP, against
1.01 M for a bare FastAPI request).

A `DirectRoute` is declared like any other route, so its signature is still the one contract:
the OpenAPI document, the generated clients and FastAPI's own handler all come from it. Its
`reader` turns a request into the endpoint's arguments, or says None when the request is
anything but plain (a header missing or malformed, a body that is not valid JSON of the
declared type); then, and whenever the app overrides a dependency or includes the route with
one more, the request goes to FastAPI's own handler, so every refusal is FastAPI's, word for
word, and only an accepted request takes the short way. The body is validated by the route's
own body field, exactly as FastAPI would validate it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from fastapi import Request, Response
from fastapi.dependencies.models import Dependant

# FastAPI's own way for a route to learn the inclusion its handler is built for (APIRoute's
# get_route_handler reads it); if a release drops it, this import fails at start, loudly.
from fastapi.routing import APIRoute, _effective_route_context_var

# The endpoint's arguments by name, or None: let FastAPI's own handler read this request.
Reader = Callable[["DirectRoute", Request], Awaitable[dict[str, Any] | None]]

# The threads a plain request's endpoint runs on: as many as anyio lends FastAPI's own `def`
# endpoints (its default limiter), handed work by the event loop's own executor call.
# anyio's `to_thread.run_sync` (what FastAPI and `run_in_threadpool` use) goes through a
# capacity limiter, cancel scopes and run-variable lookups on every call: moving the command
# onto this pool took 2.5 % of the server's instructions per command (callgrind, 3.05 M →
# 2.96 M per command over HTTP).
THREADS = 40
T = TypeVar("T")
_pool = ThreadPoolExecutor(THREADS, thread_name_prefix="senki-direct")


async def in_thread(call: Callable[[], T]) -> T:
    """`call()` on the pool, in a copy of this task's context (as anyio runs it). As with
    anyio, a call once started is waited for when the request is cancelled (a server shutting
    down), so the server never closes the store under a command still writing."""
    done = _pool.submit(contextvars.copy_context().run, call)
    try:
        return await asyncio.wrap_future(done)
    except asyncio.CancelledError:
        if not done.cancelled():  # it had started: a thread cannot be stopped midway
            await asyncio.wait([asyncio.wrap_future(done)])
        raise


class DirectRoute(APIRoute):
    """A route with a `reader` (set by `direct_route`) that serves its plain requests."""

    reader: Reader

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        standard = super().get_route_handler()
        endpoint, reader = self.endpoint, type(self).reader
        # The route as the app includes it: FastAPI builds this handler once per inclusion,
        # which may add dependencies (the router's) and brings the app's overrides. A
        # dependency the reader would not call keeps every request on FastAPI's handler.
        included = _as_included(self)
        shortcut = _calls(included.dependant) == _calls(self.dependant)
        provider = included.dependency_overrides_provider

        async def handle(request: Request) -> Response:
            plain = shortcut and not _overridden(provider)
            arguments = await reader(self, request) if plain else None
            if arguments is None:
                return await standard(request)
            # A plain `def` endpoint, run on a thread as FastAPI would run it (one hop).
            answer = await in_thread(functools.partial(endpoint, **arguments))
            if not isinstance(answer, Response):
                raise TypeError(f"{endpoint.__name__} must return a Response on a DirectRoute")
            return answer

        return handle

    def json_body(self, raw: bytes) -> tuple[Any, bool]:
        """(the body, True) as the route's own body field reads it, or (None, False) when it
        is not valid JSON of that type (FastAPI's handler then says what is wrong)."""
        if self.body_field is None or not raw:
            return None, False
        try:
            value = json.loads(raw)  # what FastAPI's handler parses a JSON body with
        except ValueError:
            return None, False
        body, errors = self.body_field.validate(value, {}, loc=("body",))
        return body, not errors


def _as_included(route: DirectRoute) -> Any:
    """The inclusion FastAPI is building this route's handler for (as `APIRoute` itself
    reads it), or the route when it is not included in another router."""
    context = _effective_route_context_var.get()
    return context if context is not None and context.original_route is route else route


def _calls(dependant: Dependant) -> list[Any]:
    return [dependency.call for dependency in dependant.dependencies]


def _overridden(provider: Any) -> bool:
    """A test that overrides a dependency expects FastAPI to solve it."""
    return bool(getattr(provider, "dependency_overrides", None))


def direct_route(reader: Reader) -> type[DirectRoute]:
    """A `DirectRoute` class for `APIRouter.add_api_route(..., route_class_override=...)`."""
    return type(f"Direct_{reader.__name__}", (DirectRoute,), {"reader": staticmethod(reader)})


def is_json(content_type: str | None) -> bool:
    """Plainly `application/json` (with parameters or not); FastAPI's handler reads the
    rest (`+json` types, a missing type)."""
    if content_type is None:
        return False
    return content_type.partition(";")[0].strip().lower() == "application/json"
