"""A DirectRoute takes the short way only where FastAPI would solve nothing the reader does
not do itself: included with a dependency of the router's, or with an override in the app,
every request goes to FastAPI's own handler (api/direct.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.testclient import TestClient

from api.direct import DirectRoute, direct_route

READ: list[str] = []


async def read_plainly(route: DirectRoute, request: Request) -> dict[str, Any] | None:
    READ.append(request.url.path)
    return {"mark": "short"}


def endpoint(mark: str = "fastapi") -> Response:
    return Response(mark.encode())


def guard(request: Request) -> None:
    request.state.guarded = True


def _app(**include: Any) -> FastAPI:
    router = APIRouter()
    router.add_api_route(
        "/plain", endpoint, methods=["POST"], route_class_override=direct_route(read_plainly)
    )
    app = FastAPI()
    app.include_router(router, **include)
    return app


def _answer(app: FastAPI) -> str:
    READ.clear()
    with TestClient(app) as client:
        return client.post("/plain").text


def test_a_plain_request_is_read_by_the_routes_reader() -> None:
    assert _answer(_app()) == "short"
    assert READ == ["/plain"]


def test_included_with_a_dependency_of_the_router_every_request_is_fastapis() -> None:
    assert _answer(_app(dependencies=[Depends(guard)])) == "fastapi"
    assert READ == []


def test_an_override_in_the_app_sends_every_request_to_fastapi() -> None:
    app = _app()
    app.dependency_overrides[guard] = lambda: None
    assert _answer(app) == "fastapi"
    assert READ == []


def test_a_reader_that_finds_nothing_plain_leaves_the_request_to_fastapi() -> None:
    async def never(route: DirectRoute, request: Request) -> dict[str, Any] | None:
        return None

    router = APIRouter()
    router.add_api_route(
        "/plain", endpoint, methods=["POST"], route_class_override=direct_route(never)
    )
    app = FastAPI()
    app.include_router(router)
    assert _answer(app) == "fastapi"
