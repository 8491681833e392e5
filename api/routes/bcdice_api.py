"""BCDice-API v2 at `/bcdice/{credential}/v2/…`: existing BCDice clients roll recorded dice.

BCDice-API clients (CCFolia-style tools, Discord bots, Udonarium) are configured with a base
address and send no headers, so the credential is in the address: a GM-issued `roller` token
that rolls in one roll log of its campaign and can do nothing else. Every roll is a commit–reveal
server roll recorded in that log, verifiable after its reveal. Answers follow BCDice-API v2's
documented shape, errors included (`400 {ok: false, reason}`); the credential is kept out of the
access log and the metrics (whose labels are route templates).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Literal
from urllib.parse import parse_qs
from uuid import UUID

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from api.deps import RuntimeDep
from domain.dice.bcdice import BCDICE_VERSION, NotACommand
from domain.dice.bcdice.systems import BY_ID, SYSTEMS
from domain.dice.errors import DiceEntryError
from domain.roll_log import RollLogClosed
from infra.services import InvalidToken, Principal

API_VERSION = "2.0.0"  # the BCDice-API protocol version these routes speak
PREFIX = "/bcdice/{credential}/v2"


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
            "description": "unsupported game system / unsupported command",
        },
        401: {"model": BcdiceRefusal, "description": "An unknown or revoked credential"},
        403: {"model": BcdiceRefusal, "description": "Not a roller token"},
    }


router = APIRouter(prefix=PREFIX, tags=["bcdice-api"])
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


@router.get("/version", name="bcdice_version", responses=_documented(BcdiceVersion))
def version(credential: str, runtime: RuntimeDep) -> Any:
    """BCDice-API's and BCDice's versions."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    return _answer({"api": API_VERSION, "bcdice": BCDICE_VERSION})


@router.get("/admin", name="bcdice_admin", responses=_documented(BcdiceAdmin))
def admin(credential: str, runtime: RuntimeDep) -> Any:
    """Who runs this server (BCDice-API leaves unset fields empty)."""
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    return _answer({"name": "Senki", "url": "", "email": ""})


@router.get("/game_system", name="bcdice_game_systems", responses=_documented(BcdiceSystems))
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
    "/game_system/{system_id}", name="bcdice_game_system", responses=_documented(BcdiceSystem)
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


@router.get("/game_system/{system_id}/roll", name="bcdice_roll", responses=_documented(BcdiceRoll))
async def roll(credential: str, system_id: str, request: Request, runtime: RuntimeDep) -> Any:
    """Roll `command` (query) with server dice recorded in the roller's log."""
    command = request.query_params.get("command")
    return await run_in_threadpool(_roll_now, runtime, credential, system_id, command)


@router.post(
    "/game_system/{system_id}/roll", name="bcdice_roll_posted", responses=_documented(BcdiceRoll)
)
async def roll_posted(
    credential: str, system_id: str, request: Request, runtime: RuntimeDep
) -> Any:
    """Roll `command` (form field, JSON or query) with server dice recorded in the roller's log."""
    command = await _posted_command(request) or request.query_params.get("command")
    return await run_in_threadpool(_roll_now, runtime, credential, system_id, command)


async def _posted_command(request: Request) -> str | None:
    body = await request.body()
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return None
        value = data.get("command") if isinstance(data, dict) else None
        return value if isinstance(value, str) else None
    fields = parse_qs(body.decode("utf-8", "replace"))
    return fields.get("command", [None])[0]


def _roll_now(runtime: RuntimeDep, credential: str, system_id: str, command: str | None) -> Any:
    who = _roller(runtime, credential)
    if isinstance(who, JSONResponse):
        return who
    if system_id not in BY_ID:
        return _refused("unsupported game system")
    if not command:
        return _refused("unsupported command")
    log_id: UUID | None = who.roll_log_id
    assert log_id is not None
    try:
        answer = runtime.roll_logs.roll(
            log_id, command, by=who.actor, purpose="BCDice-API", system=system_id
        )
    except NotACommand:
        return _refused("unsupported command")
    except (DiceEntryError, RollLogClosed) as error:
        return _refused(str(error))
    finally:
        runtime.append_watch.bump()  # a write: this process's caches may be stale now
    rolled = answer.roll
    assert rolled is not None  # a roll's answer carries it
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
