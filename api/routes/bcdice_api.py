"""BCDice-API v2 at `/bcdice/{credential}/v2/…`: existing BCDice clients roll recorded dice.

BCDice-API clients (CCFolia-style tools, Discord bots, Udonarium) are configured with a base
address and send no headers, so the credential is in the address: a GM-issued `roller` token
that rolls in one roll log of its campaign and can do nothing else. Every roll is a commit–reveal
server roll recorded in that log, verifiable after its reveal. Answers follow BCDice-API v2's
documented shape, errors included (`400 {ok: false, reason}`); the credential is kept out of the
access log and the metrics (whose labels are route templates).
"""

from __future__ import annotations

import inspect
import json
import logging
import re
from http import HTTPStatus
from typing import Any, Literal
from urllib.parse import parse_qs
from uuid import UUID

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.deps import RuntimeDep
from domain.dice.bcdice import BCDICE_VERSION, NotACommand
from domain.dice.bcdice.systems import BY_ID, SYSTEMS
from domain.dice.bcdice.user_table import SYSTEM_ID as TABLE_SYSTEM
from domain.dice.errors import DiceEntryError
from domain.roll_log import RollLogClosed
from infra.services import InvalidToken, Principal

API_VERSION = "3.0.0"  # the BCDice-API release these routes answer as (its lib/…/version.rb)
BASE = "/bcdice/{credential}"
PREFIX = BASE + "/v2"
GREETING = "Hello. This is BCDice-API."  # what BCDice-API answers at its base address


class BcdiceRefusal(BaseModel):
    """BCDice-API's error body."""

    ok: Literal[False]
    reason: str = ""


class BcdiceVersion(BaseModel):
    api: str
    bcdice: str


class BcdiceAdmin(BaseModel):
    name: str
    url: str
    email: str


class BcdiceSystemRow(BaseModel):
    id: str
    name: str
    sort_key: str


class BcdiceSystems(BaseModel):
    game_system: list[BcdiceSystemRow]


class BcdiceSystem(BaseModel):
    ok: Literal[True]
    id: str
    name: str
    sort_key: str
    command_pattern: str
    help_message: str


class BcdiceRand(BaseModel):
    kind: str
    sides: int
    value: int


class BcdiceTableRoll(BaseModel):
    ok: Literal[True]
    text: str
    rands: list[BcdiceRand]


class BcdiceRoll(BaseModel):
    ok: Literal[True]
    text: str
    secret: bool
    success: bool
    failure: bool
    critical: bool
    fumble: bool
    rands: list[BcdiceRand]


def _documented(answer: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    """BCDice-API's bodies, in place of the problem documents the rest of the API answers."""
    return {
        200: {"model": answer, "description": "As BCDice-API v2 answers"},
        400: {
            "model": BcdiceRefusal,
            "description": "unsupported game system / unsupported command / a table refused",
        },
        401: {"model": BcdiceRefusal, "description": "An unknown or revoked credential"},
        403: {"model": BcdiceRefusal, "description": "Not a roller token"},
        404: {"model": BcdiceRefusal, "description": "not found (any other path or method)"},
        409: {"model": BcdiceRefusal, "description": "The roll log is closed (its seed revealed)"},
    }


router = APIRouter(prefix=PREFIX, tags=["bcdice-api"])
base = APIRouter(prefix=BASE, tags=["bcdice-api"])
_CREDENTIAL_IN_PATH = re.compile(r"(/bcdice/)[^/?\s]+")


class RedactCredentials(logging.Filter):
    """Uvicorn's access log prints the path: the roller credential in it becomes `***`."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                _CREDENTIAL_IN_PATH.sub(r"\1***", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        return True


def redact_access_log() -> None:
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactCredentials) for f in access.filters):
        access.addFilter(RedactCredentials())


# Browser tools call BCDice-API servers from any page; no cookie or header carries the
# credential, so any origin may read the answers, as from BCDice-API itself.
_OPEN = {"Access-Control-Allow-Origin": "*"}


def _answer(body: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=_OPEN)


def _refused(reason: str, status: int = 400) -> JSONResponse:
    return _answer({"ok": False, "reason": reason}, status)


def _roller(runtime: RuntimeDep, credential: str) -> Principal | JSONResponse:
    try:
        who = runtime.campaigns.authenticate(credential)
    except InvalidToken as error:
        return _refused(f"invalid credential: {error}", 401)
    if who.role != "roller" or who.roll_log_id is None:
        return _refused(
            "this address needs a roller token, which the GM issues for a roll log", 403
        )
    return who


@base.get(
    "",
    name="bcdice_greeting",
    operation_id="getBcdiceGreeting",
    summary="BCDice-API: the greeting at the base address",
    response_class=HTMLResponse,
)
def greeting(credential: str, runtime: RuntimeDep) -> Any:
    """BCDice-API's greeting at its base address (a client's check that the address works)."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    # Sinatra's own header for a string body, byte for byte.
    return Response(GREETING, media_type="text/html;charset=utf-8", headers=_OPEN)


base.add_api_route("/", greeting, methods=["GET"], include_in_schema=False)


@router.get(
    "/version",
    name="bcdice_version",
    operation_id="getBcdiceVersion",
    summary="BCDice-API v2: the API's and BCDice's versions",
    responses=_documented(BcdiceVersion),
)
def version(credential: str, runtime: RuntimeDep) -> Any:
    """BCDice-API's and BCDice's versions."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    return _answer({"api": API_VERSION, "bcdice": BCDICE_VERSION})


@router.get(
    "/admin",
    name="bcdice_admin",
    operation_id="getBcdiceAdmin",
    summary="BCDice-API v2: who runs this server",
    responses=_documented(BcdiceAdmin),
)
def admin(credential: str, runtime: RuntimeDep) -> Any:
    """Who runs this server (BCDice-API leaves unset fields empty)."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    return _answer({"name": "Senki", "url": "", "email": ""})


@router.get(
    "/game_system",
    name="bcdice_game_systems",
    operation_id="listBcdiceGameSystems",
    summary="BCDice-API v2: the game systems offered",
    responses=_documented(BcdiceSystems),
)
def game_systems(credential: str, runtime: RuntimeDep) -> Any:
    """The base system `DiceBot` and Senki's three rule systems, sorted by `sort_key`."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    listed = sorted(SYSTEMS, key=lambda s: s.sort_key)
    return _answer(
        {"game_system": [{"id": s.id, "name": s.name, "sort_key": s.sort_key} for s in listed]}
    )


@router.get(
    "/game_system/{system_id}",
    name="bcdice_game_system",
    operation_id="getBcdiceGameSystem",
    summary="BCDice-API v2: one game system's commands",
    responses=_documented(BcdiceSystem),
)
def game_system(credential: str, system_id: str, runtime: RuntimeDep) -> Any:
    """One system: its command pattern (match ignoring case) and help."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    system = BY_ID.get(system_id)
    if system is None:
        return _refused("unsupported game system")
    return _answer(
        {
            "ok": True,
            "id": system.id,
            "name": system.name,
            "sort_key": system.sort_key,
            "command_pattern": system.command_pattern,
            "help_message": system.help_message,
        }
    )


@router.get(
    "/game_system/{system_id}/roll",
    name="bcdice_roll",
    operation_id="rollBcdice",
    summary="BCDice-API v2: roll a command, recorded in the roll log",
    responses=_documented(BcdiceRoll),
)
async def roll(credential: str, system_id: str, request: Request, runtime: RuntimeDep) -> Any:
    """Roll `command` (query) with server dice recorded in the roller's log."""
    command = request.query_params.get("command")
    return await run_in_threadpool(_roll_now, runtime, credential, system_id, command)


@router.post(
    "/game_system/{system_id}/roll",
    name="bcdice_roll_posted",
    operation_id="rollBcdicePosted",
    summary="BCDice-API v2: roll a posted command, recorded in the roll log",
    responses=_documented(BcdiceRoll),
)
async def roll_posted(
    credential: str, system_id: str, request: Request, runtime: RuntimeDep
) -> Any:
    """Roll `command` (form field, JSON or query) with server dice recorded in the roller's log."""
    command = await _posted(request, "command")
    return await run_in_threadpool(_roll_now, runtime, credential, system_id, command)


@router.post(
    "/original_table",
    name="bcdice_original_table",
    operation_id="rollBcdiceOriginalTable",
    summary="BCDice-API v2: roll a user-defined dice table, recorded in the roll log",
    responses=_documented(BcdiceTableRoll),
)
async def original_table(credential: str, request: Request, runtime: RuntimeDep) -> Any:
    """Roll a user-defined dice table (`table`: its text, BCDice's format: a title line, a dice
    line such as 1D6, 2D6, D66, D66A, 1D100, then `n:text` rows) with server dice recorded in
    the roller's log, the table's text with them, so the audit rolls the same table again."""
    table = await _posted(request, "table")
    return await run_in_threadpool(_table_now, runtime, credential, table)


async def _posted(request: Request, field: str) -> str | None:
    """A field of a form or JSON body, else of the query, as BCDice-API's `params` reads it."""
    body = await request.body()
    value: object = None
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = json.loads(body or b"{}")
        except (ValueError, RecursionError):  # broken, or nested deeper than the parser goes
            data = None
        value = data.get(field) if isinstance(data, dict) else None
    else:
        value = parse_qs(body.decode("utf-8", "replace")).get(field, [None])[0]
    if value is None:
        value = request.query_params.get(field)
    return value if isinstance(value, str) else None


def _unreadable(text: str) -> bool:
    """A NUL or a lone surrogate (JSON's `\\ud800`): text no log may store."""
    if "\0" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _roll_now(runtime: RuntimeDep, credential: str, system_id: str, command: str | None) -> Any:
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    if system_id not in BY_ID:
        return _refused("unsupported game system")
    if not command or _unreadable(command):
        return _refused("unsupported command")
    rolled = _recorded(runtime, who, command, system_id)
    if isinstance(rolled, JSONResponse):
        return rolled
    return _answer(
        {
            "ok": True,
            "text": rolled.text,
            "secret": rolled.secret,
            "success": rolled.success,
            "failure": rolled.failure,
            "critical": rolled.critical,
            "fumble": rolled.fumble,
            "rands": [rand.model_dump() for rand in rolled.rands],
        }
    )


def _table_now(runtime: RuntimeDep, credential: str, table: str | None) -> Any:
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    if not table:
        return _refused("no table: send its text in the field `table` (a form field or JSON)")
    if _unreadable(table):
        return _refused("the table holds a NUL or an unpaired surrogate; send plain text")
    rolled = _recorded(runtime, who, table, TABLE_SYSTEM)
    if isinstance(rolled, JSONResponse):
        return rolled
    rands = [rand.model_dump() for rand in rolled.rands]
    return _answer({"ok": True, "text": rolled.text, "rands": rands})


def _recorded(runtime: RuntimeDep, who: Principal, command: str, system: str) -> Any:
    """The roll recorded in the roller's log, or BCDice-API's refusal."""
    log_id: UUID | None = who.roll_log_id
    assert log_id is not None
    try:
        answer = runtime.roll_logs.roll(
            log_id, command, by=who.actor, purpose="BCDice-API", system=system
        )
    except NotACommand:
        return _refused("unsupported command")
    except RollLogClosed as error:
        return _refused(str(error), 409)
    except DiceEntryError as error:  # a table refused, a limit passed: the message says which
        return _refused(str(error))
    finally:
        runtime.append_watch.bump()  # a write: this process's caches may be stale now
    rolled = answer.roll
    assert rolled is not None  # a roll's answer carries it
    return rolled


# Every other answer under the base address (an unknown path or method, a body too large, a
# shard down, a busy server, an unexpected error) is the app's problem document; BCDice
# clients read `{ok, reason}` and need CORS to read anything, so they get BCDice-API's shape.
_UNDER = "/bcdice/"
_NOT_FOUND = (404, json.dumps({"ok": False, "reason": "not found"}).encode())
_REPLACED = {b"content-type", b"content-length", b"access-control-allow-origin"}


def _reshaped(status: int, body: bytes) -> tuple[int, bytes]:
    """BCDice-API's body for an error answer: Sinatra's `not found` for any path or method it
    has no route for (it has no 405), else the problem's detail as the reason."""
    if status in (404, 405):
        return _NOT_FOUND
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        detail = None
    reason = detail if isinstance(detail, str) else HTTPStatus(status).phrase.lower()
    return status, json.dumps({"ok": False, "reason": reason}, ensure_ascii=False).encode()


def _headers(kept: list[tuple[bytes, bytes]], body: bytes) -> list[tuple[bytes, bytes]]:
    return [
        *(pair for pair in kept if pair[0].lower() not in _REPLACED),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"access-control-allow-origin", b"*"),
    ]


class BcdiceAnswers:
    """ASGI middleware, outermost: every answer under `/bcdice/` carries CORS, and every error
    answer is BCDice-API's `{ok: false, reason}` with its status (and Retry-After) kept.
    `OPTIONS` is answered as BCDice-API answers it: Sinatra has no route for it (404)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(_UNDER):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            status, body = _NOT_FOUND
            await send(
                {"type": "http.response.start", "status": status, "headers": _headers([], body)}
            )
            await send({"type": "http.response.body", "body": body})
            return
        held: dict[str, Any] = {}
        parts: list[bytes] = []

        async def shaped(message: Message) -> None:
            if message["type"] == "http.response.start":
                type_ = Headers(raw=message["headers"]).get("content-type", "")
                if message["status"] >= 400 and not type_.startswith("application/json"):
                    held["start"] = message  # reshaped once its body is complete
                    return
                message["headers"] = [
                    *(
                        p
                        for p in message["headers"]
                        if p[0].lower() != b"access-control-allow-origin"
                    ),
                    (b"access-control-allow-origin", b"*"),
                ]
            elif message["type"] == "http.response.body" and "start" in held:
                parts.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                start = held.pop("start")
                status, body = _reshaped(start["status"], b"".join(parts))
                headers = _headers(start["headers"], body)
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, shaped)


def install(app: FastAPI) -> None:
    """The routes, BCDice-API's shape on every answer under them (after problems.install: its
    handler for unexpected errors answers outside every middleware, so it is wrapped too), and
    the credential kept out of the access log."""
    app.include_router(base)
    app.include_router(router)
    app.add_middleware(BcdiceAnswers)
    unexpected = app.exception_handlers.get(Exception)
    if unexpected is not None:

        async def shaped(request: Request, error: Exception) -> Response:
            answered = unexpected(request, error)  # problems' handler: a coroutine
            response = await answered if inspect.isawaitable(answered) else answered
            if not request.url.path.startswith(_UNDER):
                return response
            status, body = _reshaped(response.status_code, bytes(response.body))
            raw = _headers(list(response.raw_headers), body)
            reshaped = Response(body, status_code=status)
            reshaped.raw_headers = raw
            return reshaped

        app.add_exception_handler(Exception, shaped)
    redact_access_log()
