"""Sheets for character-sheet sites and table tools: JSON, CCFolia clipboard, and import.

A sheet is read-only (any member or site token of the campaign) and conditional: its ETag
names the versions it was computed from, so a site polling it gets 304 until something changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter
from starlette.concurrency import run_in_threadpool

from api.deps import RuntimeDep
from api.resources import not_modified, require_reader
from api.security import WRITERS, PrincipalDep, require
from api.sheet_bodies import RenderedSheets, json_response
from api.sheet_schemas import PILOT_STATS
from api.writes import etag, idempotency_key
from domain import ccfolia
from domain.campaign import character_commands as ch
from domain.campaign.character import Character
from infra.services import (
    CharacterPublic,
    CharacterSheet,
    Idempotency,
    InjuryPublic,
    ItemPublic,
    RatioPublic,
    Runtime,
    SkillPublic,
    UnitSheet,
    sheet_of_character,
)

router = APIRouter(prefix="/v1", tags=["sheets"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
Format = Literal["json", "ccfolia"]
FormatQuery = Annotated[
    Format,
    Query(
        alias="format",
        description="json: the sheet; ccfolia: CCFolia clipboard JSON to paste as a piece.",
    ),
]
INJURIES = {
    "faint": "気絶",
    "shutdown": "機能停止",
    "critical": "重体",
    "incapacitated": "再起不能",
    "dead": "死亡",
}
_AOI_STATS = PILOT_STATS | {"ranged_hit": 19}
# A sheet is one of two shapes, chosen by `format` (api/openapi.py says both in its schema).
SHEET_EXAMPLES: dict[str, Any] = {
    "json": {
        "summary": "format=json: the sheet",
        "value": {
            "id": "0b1c4d7e-8f90-4a1b-9c2d-3e4f5a6b7c8d",
            "version": 3,
            "campaign_id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
            "owner": "aoi",
            "name": "蒼井ソラ",
            "level": 2,
            "base_stats": PILOT_STATS,
            "items": [
                {"name": "ビームライフル", "slot": "weapon", "cost": 20, "stats": {"ranged_hit": 5}}
            ],
            "skills": [],
            "max_hp": 80,
            "current_hp": 40,
            "carried_ratio": {"numerator": 1, "denominator": 2, "value": 0.5},
            "injuries": [],
            "lost": False,
            "stats": _AOI_STATS,
        },
    },
    "ccfolia": {
        "summary": "format=ccfolia: paste into CCFolia as a piece",
        "value": {
            "kind": "character",
            "data": {
                "name": "蒼井ソラ",
                "initiative": 9,
                "externalUrl": "https://senki.example/v1/characters/0b1c4d7e-8f90-4a1b-9c2d-3e4f5a6b7c8d/sheet",
                "status": [{"label": "生命", "value": 40, "max": 80}],
                "params": [{"label": "レベル", "value": "2"}, {"label": "回避", "value": "12"}],
                "commands": "1D100+{回避} 回避\n1D6+{反応} 行動順",
                "memo": "Lv2 / PL: aoi\n装備: ビームライフル(コスト20)\n持ち越し割合: 1/2",
                "secret": False,
                "invisible": False,
                "hideStatus": False,
            },
        },
    },
}
CCFOLIA_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"examples": SHEET_EXAMPLES}}},
    304: {"description": "Not modified (If-None-Match)"},
}


SHEET_JSON = TypeAdapter(CharacterSheet)
RENDERED = RenderedSheets()


class CcfoliaPiece(BaseModel):
    """A CCFolia piece as copied to the clipboard (read leniently)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "kind": "character",
                    "data": {
                        "name": "蒼井ソラ",
                        "status": [{"label": "生命", "value": 80, "max": 80}],
                        "params": [
                            {"label": "回避", "value": "12"},
                            {"label": "操縦", "value": "150"},
                            {"label": "装備力", "value": "100"},
                        ],
                    },
                }
            ]
        },
    )

    kind: JsonValue = "character"
    data: JsonValue = None


class CharacterImported(CharacterPublic):
    ignored: list[str] = Field(description="Labels that name no GD stat, left out.")
    defaulted: list[str] = Field(
        description="GD stats the piece did not give (by their Japanese label), set to 0."
    )
    notes: list[str] = Field(description="What the import did not take over, and why.")


def _page(request: Request, path: str) -> str:
    """The human sheet page (api/web), which a CCFolia piece's link opens, not the JSON."""
    return f"{request.base_url}{path}"


def _memo(
    sheet: CharacterSheet | UnitSheet,
    level: int,
    skills: Sequence[SkillPublic] = (),
    injuries: Sequence[InjuryPublic] = (),
    lost: bool = False,
) -> str:
    lines = [f"Lv{level} / PL: {sheet.owner}"]
    items: Sequence[ItemPublic] = sheet.items
    if items:
        lines.append("装備: " + "、".join(f"{i.name}(コスト{i.cost})" for i in items))
    if skills:
        lines.append("スキル: " + "、".join(s.name for s in skills))
    ratio: RatioPublic = sheet.carried_ratio
    lines.append(f"持ち越し割合: {ratio.numerator}/{ratio.denominator}")
    if injuries:
        lines.append("負傷: " + "、".join(INJURIES[i.injury] for i in injuries))
    if lost:
        lines.append("ロスト")
    return "\n".join(lines)


def _clipboard(sheet: CharacterSheet | UnitSheet, level: int, memo: str, url: str) -> JSONResponse:
    piece = ccfolia.SheetForExport(
        name=sheet.name,
        level=level,
        stats=sheet.stats,
        current_hp=sheet.current_hp,
        max_hp=sheet.max_hp,
        memo=memo,
        external_url=url,
    )
    return JSONResponse(ccfolia.to_clipboard(piece))


@router.get(
    "/characters/{character_id}/sheet",
    response_model=CharacterSheet,
    responses=CCFOLIA_RESPONSE,
    operation_id="getCharacterSheet",
    summary="Read a pilot's sheet (JSON or CCFolia)",
)
async def character_sheet(
    character_id: UUID,
    request: Request,
    runtime: RuntimeDep,
    who: PrincipalDep,
    shape: FormatQuery = "json",
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """A pilot's sheet: effective stats, HP now and max, carried ratio, injuries, lost."""
    state, version = await _character(runtime, character_id)
    require_reader(who, state.campaign_id)
    tag = str(version) if shape == "json" else f"{version}.{shape}"
    unchanged = not_modified(if_none_match, tag)
    if unchanged is not None:
        return unchanged
    if shape == "ccfolia":
        url = _page(request, f"table/characters/{character_id}")
        sheet = sheet_of_character(state, version)
        memo = _memo(sheet, state.level, sheet.skills, sheet.injuries, sheet.lost)
        clipboard = _clipboard(sheet, state.level, memo, url)
        clipboard.headers["ETag"] = f'"{tag}"'
        return clipboard
    body = RENDERED.body(character_id, state, version, lambda: _sheet_json(state, version))
    return json_response(body, tag)


async def _character(runtime: Runtime, character_id: UUID) -> tuple[Character, int]:
    """The character from memory while no append was heard (no thread hop, no query),
    else from the log on a thread. The route is async for the first case."""
    states = runtime.character_states
    known = states.get(character_id)
    if known is not None:
        return known
    read = partial(runtime.characters.get, character_id)
    return await run_in_threadpool(states.load, character_id, read)


def _sheet_json(state: Character, version: int) -> bytes:
    """The sheet as FastAPI would render it through the response model."""
    return SHEET_JSON.dump_json(sheet_of_character(state, version))


@router.get(
    "/units/{unit_id}/sheet",
    response_model=UnitSheet,
    responses=CCFOLIA_RESPONSE,
    operation_id="getUnitSheet",
    summary="Read a unit's sheet under its pilot (JSON or CCFolia)",
)
def unit_sheet(
    unit_id: UUID,
    request: Request,
    runtime: RuntimeDep,
    who: PrincipalDep,
    response: Response,
    shape: FormatQuery = "json",
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """A unit's sheet under its pilot: boosted stats (GD-STAT-2), HP at the pilot's ratio."""
    state, _ = runtime.units.get(unit_id)
    require_reader(who, state.campaign_id)
    answer, versions = runtime.units.sheet(unit_id)
    tag = versions if shape == "json" else f"{versions}.{shape}"
    unchanged = not_modified(if_none_match, tag)
    if unchanged is not None:
        return unchanged
    if shape == "ccfolia":
        url = _page(request, f"table/units/{unit_id}")
        pilot = runtime.units.pilot(state.pilot_id)
        clipboard = _clipboard(answer, pilot.level, _memo(answer, pilot.level), url)
        clipboard.headers["ETag"] = f'"{tag}"'
        return clipboard
    response.headers["ETag"] = f'"{tag}"'
    return answer


def _read(piece: CcfoliaPiece) -> ccfolia.ImportedSheet:
    try:
        return ccfolia.from_clipboard(piece.model_dump(mode="json"))
    except ccfolia.UnusableClipboard as error:
        raise RequestValidationError(
            [
                {"loc": ("body", where), "msg": why, "type": "value_error"}
                for where, why in error.problems
            ]
        ) from None


@router.post(
    "/campaigns/{campaign_id}/characters/import",
    status_code=status.HTTP_201_CREATED,
    response_model=CharacterImported,
    operation_id="importCharacterFromCcfolia",
    summary="Register a pilot from a CCFolia piece",
)
def import_character(
    campaign_id: UUID,
    body: CcfoliaPiece,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
    owner: Annotated[
        str | None, Query(max_length=100, description="The member who plays it; default: you.")
    ] = None,
) -> CharacterImported:
    """Register a pilot from a CCFolia piece (a player only their own), at full HP."""
    require(who, campaign_id, WRITERS)
    sheet = _read(body)
    command = ch.RegisterCharacter(
        owner=owner or who.actor, name=sheet.name, level=sheet.level, base_stats=sheet.base_stats
    )
    answer = runtime.characters.register(campaign_id, who.actor, command, key)
    notes = []
    if sheet.current_hp is not None and sheet.current_hp < sheet.base_stats["hp"]:
        notes.append(
            f"生命 {sheet.current_hp}/{sheet.base_stats['hp']}: registered at full HP; "
            "HP changes only through scenarios (GD-HPS-1)"
        )
    if sheet.defaulted:
        notes.append(
            f"set to 0, not in the piece: {'、'.join(sheet.defaulted)}; "
            "give them as params (label and value) to import them"
        )
    etag(response, answer.version)
    response.headers["Location"] = f"/v1/characters/{answer.id}"
    # The typed answer's fields as they are (nothing parsed again), and what the import adds.
    fields = {name: getattr(answer, name) for name in CharacterPublic.model_fields}
    return CharacterImported(
        **fields, ignored=list(sheet.ignored), defaulted=list(sheet.defaulted), notes=notes
    )
