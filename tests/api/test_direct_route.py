"""The encounter command's short way (api/direct.py): a plain request is read without
FastAPI's dependency solving, into exactly the arguments FastAPI would have given; any other
request is FastAPI's own, so its answer is word for word what FastAPI answers."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from contextvars import ContextVar
from typing import Any

import fastapi.routing
import pytest
from fastapi import FastAPI
from fastapi.dependencies.utils import solve_dependencies
from fastapi.testclient import TestClient
from starlette.requests import Request

from api.app import MAX_BODY_BYTES
from api.direct import DirectRoute, in_thread, is_json
from api.encounter_commands import COMMAND_BODIES
from api.routes.encounters import _plain_command
from tests.api.conftest import auth, key
from tests.api.fight import Fight, started_fight

COMMANDS = "/v1/encounters/{encounter_id}/commands"


def _route(client: TestClient) -> DirectRoute:
    """The route as the app declares it: on its own router, not an included one."""
    app = client.app
    assert isinstance(app, FastAPI)
    found = [r for r in app.router.routes if getattr(r, "path", None) == COMMANDS]
    assert len(found) == 1
    assert isinstance(found[0], DirectRoute)
    return found[0]


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths FastAPI solved the dependencies of, request by request."""
    paths: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counted(*args: Any, **kwargs: Any) -> Any:
        paths.append(kwargs["request"].url.path)
        return await solve(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    return paths


def _unused() -> None:
    """A dependency no route has: overriding it changes nothing but the way requests go."""


def _headers(fight: Fight, **more: str) -> dict[str, str]:
    return auth(fight.campaign.gm, **{"If-Match": f'"{fight.version()}"'}) | key() | more


def test_a_plain_command_is_served_without_fastapis_dependency_solving(
    client: TestClient, solved: list[str]
) -> None:
    fight = started_fight(client)
    path = f"/v1/encounters/{fight.id}/commands"
    headers = _headers(fight, **{"Content-Type": "application/json; charset=utf-8"})
    solved.clear()
    answer = client.post(
        path, headers=headers, content=b'{"command": "Cleanup", "combatant_id": "ace"}'
    )
    assert answer.status_code == 200, answer.text
    assert path not in solved
    assert answer.headers["ETag"] == f'"{answer.json()["version"]}"'


# Requests that are not plain, or are refused: (what is wrong, headers to change or drop
# (None), the raw body). Each changes nothing, so it can be sent twice.
REFUSED: list[tuple[str, dict[str, str | None], bytes]] = [
    (
        "no Idempotency-Key",
        {"Idempotency-Key": None},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    (
        "a key too short",
        {"Idempotency-Key": "abc"},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    (
        "a key too long",
        {"Idempotency-Key": "k" * 201},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    ("no If-Match", {"If-Match": None}, b'{"command": "Cleanup", "combatant_id": "ace"}'),
    (
        "an If-Match naming no version",
        {"If-Match": '"v1"'},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    ("a stale If-Match", {"If-Match": '"1"'}, b'{"command": "Cleanup", "combatant_id": "ace"}'),
    ("no token", {"Authorization": None}, b'{"command": "Cleanup", "combatant_id": "ace"}'),
    (
        "a forged token",
        {"Authorization": "Bearer senki.x.y.z"},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    (
        "a viewer's token",
        {"Authorization": "viewer"},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    (
        "text, not JSON",
        {"Content-Type": "text/plain"},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    ("no content type", {"Content-Type": None}, b'{"command": "Cleanup", "combatant_id": "ace"}'),
    ("broken JSON", {}, b'{"command": "Cleanup",'),
    ("an empty body", {}, b""),
    ("a JSON array", {}, b"[1, 2]"),
    ("no such command", {}, b'{"command": "Fly"}'),
    ("a field no command has", {}, b'{"command": "Cleanup", "combatant_id": "ace", "x": 1}'),
    ("a field of the wrong type", {}, b'{"command": "Cleanup", "combatant_id": 7}'),
    ("NaN, which JSON has not", {}, b'{"command": "Cleanup", "combatant_id": NaN}'),
    ("out of turn (GD-TURN-1)", {}, b'{"command": "Cleanup", "combatant_id": "wing"}'),
    (
        "the wrong player's combatant",
        {"Authorization": "kai"},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    (
        "a bad encounter id",
        {"path": "not-a-uuid"},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
    (
        "no such encounter",
        {"path": str(uuid.UUID(int=7))},
        b'{"command": "Cleanup", "combatant_id": "ace"}',
    ),
]


def _send(
    fight: Fight, changes: dict[str, str | None], body: bytes
) -> tuple[int, str, dict[str, str]]:
    headers: dict[str, str | None] = {"Content-Type": "application/json"} | _headers(fight)
    for name, value in changes.items():
        if name != "path":
            headers[name] = value
    for role in ("viewer", "kai"):
        if headers.get("Authorization") == role:
            headers["Authorization"] = f"Bearer {fight.token('mio' if role == 'viewer' else role)}"
    sent = {k: v for k, v in headers.items() if v is not None}
    where = changes.get("path") or fight.id
    answer = fight.client.post(f"/v1/encounters/{where}/commands", headers=sent, content=body)
    kept = {
        k: answer.headers[k]
        for k in ("content-type", "www-authenticate", "etag")
        if k in answer.headers
    }
    return answer.status_code, answer.text, kept


@pytest.mark.parametrize(("wrong", "changes", "body"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_request_that_is_not_plain_gets_fastapis_own_answer(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    wrong: str,
    changes: dict[str, str | None],
    body: bytes,
) -> None:
    fight = started_fight(client)
    at = fight.version()
    direct = _send(fight, changes, body)
    # Any override sends every request to FastAPI's own handler (api/direct.py).
    monkeypatch.setitem(client.app.dependency_overrides, _unused, _unused)  # type: ignore[attr-defined]
    standard = _send(fight, changes, body)
    assert direct[0] >= 400, f"{wrong}: {direct}"
    assert direct == standard, wrong
    assert fight.version() == at  # refused: nothing appended
    if "GD-" in wrong:  # a refusal by the rules names the rule it cites
        rule = wrong.partition("(")[2].rstrip(")")
        assert json.loads(direct[1])["rule_id"] == rule


def test_a_command_body_over_the_limit_is_413_and_appends_nothing(client: TestClient) -> None:
    """A chunked body (no Content-Length) is counted as it arrives (api/limits.py): cut off
    while the command route reads it, the client gets the 413, not a 500 or a 400."""
    fight = started_fight(client)
    at = fight.version()

    def chunks() -> Iterator[bytes]:
        yield b'{"command": "Cleanup", "combatant_id": "'
        for _ in range(MAX_BODY_BYTES // 4096 + 2):
            yield b"x" * 4096
        yield b'"}'

    headers = {"Content-Type": "application/json"} | _headers(fight)
    answer = client.post(f"/v1/encounters/{fight.id}/commands", headers=headers, content=chunks())
    assert "content-length" not in answer.request.headers
    assert answer.status_code == 413, answer.text
    assert answer.json()["type"].endswith("/too-large")
    assert fight.version() == at


def _request(client: TestClient, fight: Fight, headers: dict[str, str], body: bytes) -> Request:
    """The request as FastAPI's route would see it, its body read from `body`."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "path": f"/v1/encounters/{fight.id}/commands",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "query_string": b"",
        "path_params": {"encounter_id": fight.id},
        "app": client.app,
    }
    return Request(scope, receive)


def _examples() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for ruleset, bodies in COMMAND_BODIES.bodies.items():
        for name, body in bodies.items():
            extra = body.model_config.get("json_schema_extra")
            examples = extra.get("examples", []) if isinstance(extra, dict) else []
            found += [(f"{ruleset}.{name}", example) for example in examples]
    return found


EXAMPLES = _examples()


def test_every_ruleset_declares_examples_to_read() -> None:
    assert {name.partition(".")[0] for name, _ in EXAMPLES} == set(COMMAND_BODIES.bodies)


def test_every_example_body_is_read_into_the_arguments_fastapi_would_give(
    client: TestClient,
) -> None:
    """Every command body the API documents, read both ways from the same request."""
    fight = started_fight(client)
    route = _route(client)

    headers = {"Content-Type": "application/json"} | _headers(fight)

    async def both(raw: bytes) -> tuple[dict[str, Any] | None, dict[str, Any], list[Any]]:
        direct = await _plain_command(route, _request(client, fight, headers, raw))
        async with AsyncExitStack() as stack:
            request = _request(client, fight, headers, raw)
            for astack in ("fastapi_inner_astack", "fastapi_function_astack"):
                request.scope[astack] = stack  # what FastAPI's handler sets up around it
            solved = await solve_dependencies(
                request=request,
                dependant=route.dependant,
                body=json.loads(raw),
                async_exit_stack=stack,
                embed_body_fields=False,
            )
        return direct, solved.values, solved.errors

    assert len(EXAMPLES) > 40  # every command of every ruleset, about
    for name, example in EXAMPLES:
        direct, values, errors = asyncio.run(both(json.dumps(example).encode()))
        assert not errors, f"{name}: the documented example is not a valid body: {errors}"
        assert direct is not None, name
        for argument in ("encounter_id", "body", "call"):
            assert direct[argument] == values[argument], f"{name}: {argument}"
        assert type(direct["body"]) is type(values["body"]), name


@pytest.mark.parametrize(
    ("content_type", "plain"),
    [
        ("application/json", True),
        ("Application/JSON; charset=utf-8", True),
        ("application/merge-patch+json", False),  # FastAPI's handler reads it
        ("text/json", False),
        (None, False),
    ],
)
def test_only_plain_json_takes_the_short_way(content_type: str | None, plain: bool) -> None:
    assert is_json(content_type) is plain


def test_the_endpoint_runs_in_the_requests_context_on_another_thread() -> None:
    asked: ContextVar[str] = ContextVar("asked")

    async def request() -> tuple[str, int]:
        asked.set("the request's")
        return await in_thread(lambda: (asked.get(), threading.get_ident()))

    seen, thread = asyncio.run(request())
    assert seen == "the request's"
    assert thread != threading.get_ident()


def test_a_cancelled_request_waits_for_its_running_command_before_it_ends() -> None:
    """As anyio's threads: a server shutting down must not close the store under a write."""
    started, finished = threading.Event(), threading.Event()

    def command() -> None:
        started.set()
        time.sleep(0.3)
        finished.set()

    async def request() -> None:
        running = asyncio.create_task(in_thread(command))
        while not started.is_set():
            await asyncio.sleep(0.01)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        assert finished.is_set()

    asyncio.run(request())


def test_a_refusal_in_the_command_reaches_the_request_as_it_was_raised() -> None:
    def command() -> None:
        raise ValueError("GD-MAIN: not your turn")

    with pytest.raises(ValueError, match="GD-MAIN: not your turn"):
        asyncio.run(in_thread(command))
