"""The OpenAPI document a sheet site generates its client from: stable operation ids, summaries,
problem-details errors and examples, in one place rather than on every route.

Operation ids come from the table below, keyed by the route's function name, so renaming a
path changes no generated method name (`getCharacterSheet` stays `getCharacterSheet`). The
errors each operation documents follow from what the operation takes: a token can be refused
(401/403), an id can name nothing (404), an `If-Match` can be stale (412) or missing (428),
and so on; each is an RFC 9457 `application/problem+json` body of the shared `Problem` schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

from api import writes
from api.problems import PROBLEM_JSON, TYPE_BASE, Problem
from api.sheet_schemas import PILOT_STATS

Doc = dict[str, Any]


@dataclass(frozen=True)
class Operation:
    id: str
    summary: str


def _ops(**entries: tuple[str, str]) -> dict[str, Operation]:
    return {name: Operation(*entry) for name, entry in entries.items()}


OPERATIONS = _ops(
    healthz=("checkLiveness", "Is the process up (no database query)"),
    readyz=("checkReadiness", "Can requests be served (the database answers)"),
    version=("getVersion", "The service and ruleset versions"),
    head=("getLogHead", "The chain head of every shard (a receipt)"),
    log_key=("getLogKeys", "The log's verifier keys and each shard's origin"),
    log_checkpoint=("getLogCheckpoint", "A shard's latest signed checkpoint"),
    log_consistency=("getLogConsistency", "Proof that a tree extends an earlier one"),
    log_inclusion=("getLogInclusion", "Proof that an event is in a shard's tree"),
    create_campaign=("createCampaign", "Open a campaign (answers the GM's first token)"),
    get_campaign=("getCampaign", "Read a campaign, its members and house rules"),
    add_member=("addMember", "Add a member with a role"),
    change_role=("changeMemberRole", "Change a member's role"),
    remove_member=("removeMember", "Remove a member (or leave)"),
    change_options=("changeHouseRules", "Set the campaign's house rules"),
    issue_token=("issueToken", "Issue a member token or a read-only site token"),
    list_tokens=("listTokens", "List the campaign's tokens (never a secret)"),
    revoke_token=("revokeToken", "Revoke a token, at once"),
    register_character=("registerCharacter", "Register a pilot at full HP"),
    get_character=("getCharacter", "Read a pilot as stored"),
    advance_character=("advanceCharacter", "Raise a pilot's level and base stats"),
    equip_item=("equipCharacterItem", "Equip an item on a pilot"),
    unequip_item=("unequipCharacterItem", "Take an item off a pilot"),
    learn_skill=("learnSkill", "Learn a skill"),
    forget_skill=("forgetSkill", "Forget a skill"),
    register_unit=("registerUnit", "Register an Assault Core for a pilot"),
    get_unit=("getUnit", "Read a unit as stored"),
    equip_unit_item=("equipUnitItem", "Equip an item on a unit"),
    unequip_unit_item=("unequipUnitItem", "Take an item off a unit"),
    open_scenario=("openScenario", "Open a scenario"),
    get_scenario=("getScenario", "Read a scenario with HP in and HP out"),
    join_scenario=("joinScenario", "Join a pilot (on foot or in a unit) to a scenario"),
    start_scenario=("startScenario", "Start a scenario (HP enters at the carried ratio)"),
    close_scenario=("closeScenario", "Close a scenario (carried HP is saved)"),
    character_sheet=("getCharacterSheet", "Read a pilot's sheet (JSON or CCFolia)"),
    unit_sheet=("getUnitSheet", "Read a unit's sheet under its pilot (JSON or CCFolia)"),
    import_character=("importCharacterFromCcfolia", "Register a pilot from a CCFolia piece"),
    open_encounter=("openEncounter", "Open an encounter (a fight)"),
    get_encounter=("getEncounter", "Read an encounter now (or at a version)"),
    command=("commandEncounter", "Issue a command in an encounter"),
    reveal=("revealEncounterSeed", "Reveal an encounter's dice seed"),
    audit=("auditEncounterDice", "Recompute an encounter's dice after the reveal"),
    events=("listEncounterEvents", "Page through an encounter's events"),
    stream=("streamEncounterEvents", "Follow an encounter's events live (SSE)"),
    roll=("rollDice", "Roll dice in the table log, a named log, or a log opened by name"),
    list_roll_logs=("listRollLogs", "A campaign's roll logs by name, the table log first"),
    get_roll_log=("getRollLog", "Read a roll log with its rolls"),
    reveal_roll_log=("revealRollLogSeed", "Reveal a roll log's seed"),
    verify_roll_log=("verifyRollLog", "Recompute a roll log's dice after the reveal"),
    crews=("listEncounterCrews", "Which combatant rides which Assault Core"),
    points=("listEncounterPoints", "Every procedure point an encounter went through"),
    playable=("listPlayableCommands", "The commands legal now, with their body schemas"),
    me=("getMe", "Who this token is and what it may do"),
    what_if=("replayEncounter", "Replay an encounter under other rules (stores nothing)"),
    what_if_options=("getEncounterOptions", "The options a what-if may try, and command schemas"),
    at_point=("getEncounterAtPoint", "Read an encounter as a turn, phase or step began"),
    audit_trail=("listEncounterRulings", "Every ruling with its evidence"),
    list_disputes=("listDisputes", "List an encounter's disputes"),
    file_dispute=("fileDispute", "Dispute a ruling"),
    uphold=("upholdRuling", "Settle a dispute by keeping the ruling"),
    amend=("amendRuling", "Settle a dispute by appending corrections"),
    hp_ledger=("getHpLedger", "A pilot's HP ratio across scenarios (read model)"),
    encounter_log=("getEncounterLog", "An encounter's log in English and Japanese (read model)"),
    rulings=("searchEncounterRulings", "Search an encounter's rulings (read model)"),
    timeline=("getCampaignTimeline", "A campaign's scenarios, fights and joins (read model)"),
    # BCDice-API v2 (api/routes/bcdice_api.py), under a roller credential in the path
    bcdice_version=("getBcdiceVersion", "BCDice-API v2: the API's and BCDice's versions"),
    bcdice_admin=("getBcdiceAdmin", "BCDice-API v2: who runs this server"),
    bcdice_game_systems=("listBcdiceGameSystems", "BCDice-API v2: the game systems offered"),
    bcdice_game_system=("getBcdiceGameSystem", "BCDice-API v2: one game system's commands"),
    bcdice_roll=("rollBcdice", "BCDice-API v2: roll a command, recorded in the roll log"),
    bcdice_roll_posted=(
        "rollBcdicePosted",
        "BCDice-API v2: roll a posted command, recorded in the roll log",
    ),
    bcdice_original_table=(
        "rollBcdiceOriginalTable",
        "BCDice-API v2: roll a user-defined dice table, recorded in the roll log",
    ),
    bcdice_greeting=("getBcdiceGreeting", "BCDice-API: the greeting at the base address"),
    # Dice tables a GM keeps (api/routes/dice_tables.py)
    save_table=("saveDiceTable", "The GM saves a dice table: its next version"),
    list_tables=("listDiceTables", "The campaign's dice tables, each at its latest version"),
    get_table=("getDiceTable", "One dice table with every version"),
)


def operation_id(route: APIRoute) -> str:
    """FastAPI's `generate_unique_id_function`: the table's id for the route's name. A route
    missing from the table gets its name in camel case (tests/api/test_openapi.py fails on it,
    so a new route gets a name chosen on purpose)."""
    known = OPERATIONS.get(route.name)
    return known.id if known else _camel(route.name)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def install(app: FastAPI) -> None:
    """Serve the refined document at /openapi.json (FastAPI's documented way to extend it)."""
    generate = app.openapi
    refined: list[Doc] = []

    def openapi() -> Doc:
        doc = generate()  # FastAPI's cached dict, rebuilt only when routes change
        if not refined or refined[0] is not doc:
            refine(doc)
            refined[:] = [doc]
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def refine(doc: Doc) -> None:
    """Summaries, problem responses, ETag headers, examples, the Problem schema, and the
    Idempotency-Key every POST requires."""
    writes.document_keys_required(doc)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(_problem_schemas())
    for path, methods in doc.get("paths", {}).items():
        for method, operation in methods.items():
            known = _by_id.get(operation.get("operationId", ""))
            if known is not None:
                operation["summary"] = known.summary
            _document_errors(path, method, operation)
            _document_etag(operation)
            _document_sheet_shapes(operation)
            _document_success(operation)
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)  # FastAPI's own 422 body: every 422 here is a Problem


_by_id = {op.id: op for op in OPERATIONS.values()}


def _problem_schemas() -> dict[str, Doc]:
    schema = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    found: dict[str, Doc] = schema.pop("$defs", {})
    found["Problem"] = schema
    return found


# --- errors -------------------------------------------------------------------------------

_EXAMPLES: dict[int, tuple[str, str, str, Doc]] = {
    400: ("bad-request", "Bad request", "every POST needs an Idempotency-Key header", {}),
    401: (
        "unauthenticated",
        "Authentication required",
        "send `Authorization: Bearer <token>`; a campaign's first token is returned when it "
        "is created, others are issued by its GM",
        {},
    ),
    403: (
        "forbidden",
        "Not allowed",
        "a site token may not do this; it needs one of: gm, player",
        {},
    ),
    404: ("not-found", "Not found", "no character 5b0c…: check the id", {}),
    409: ("wrong-state", "Not possible now", "the scenario has already started", {}),
    412: (
        "stale-version",
        "The resource changed",
        "you acted on version 3, but it is now at version 4: reload it, check what changed, "
        "and send the command again with If-Match: 4",
        {"current_version": 4},
    ),
    413: ("too-large", "Request body too large", "send less per request", {}),
    422: (
        "invalid-request",
        "Invalid request",
        "body.name: String should have at least 1 character",
        {"errors": [{"field": "body.name", "message": "String should have at least 1 character"}]},
    ),
    428: (
        "precondition-required",
        "Precondition required",
        "send If-Match with the version you read (the ETag of the resource)",
        {},
    ),
    503: (
        "unavailable",
        "Database unavailable",
        "PostgreSQL did not answer; retry with the same Idempotency-Key.",
        {},
    ),
}

_DESCRIPTIONS = {
    400: "Bad request: a missing Idempotency-Key, or a malformed If-Match or Last-Event-ID",
    401: "No token, or an unknown or revoked one (problem type `unauthenticated`)",
    403: "The token's role or campaign does not allow this (`forbidden`)",
    404: "No such resource (`not-found`)",
    409: "Not possible in the resource's current state, or a concurrent change",
    412: "If-Match names an older version (`stale-version`; current_version and ETag say which)",
    413: "Body too large (`too-large`)",
    422: "Invalid request (`invalid-request`, with errors), refused by a rule (`rule-violation`,"
    " with rule_id), or an Idempotency-Key reused with another body",
    428: "If-Match is required on this resource (`precondition-required`)",
    503: "The database is unavailable, or a read model is still being built (Retry-After)",
}

_WRITES = {"post", "put", "patch", "delete"}


def _statuses(path: str, method: str, operation: Doc) -> set[int]:
    """The errors this operation can answer, from what it takes."""
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
    found = set() if path == "/healthz" else {503}
    rules: list[tuple[bool, set[int]]] = [
        (bool(operation.get("security")), {401, 403}),
        ("{" in path, {404}),
        (bool(operation.get("parameters")) or "requestBody" in operation, {422}),
        ("requestBody" in operation, {413, 422}),
        ("idempotency-key" in headers, {400, 409, 422}),
        ("if-match" in headers, {400, 412, 428}),
        ("last-event-id" in headers, {400}),
        (method in _WRITES, {409}),
    ]
    for applies, statuses in rules:
        if applies:
            found |= statuses
    return found


def _problem_response(status: int) -> Doc:
    kind, title, detail, extra = _EXAMPLES[status]
    example = {"type": TYPE_BASE + kind, "title": title, "status": status, "detail": detail}
    return {
        "description": _DESCRIPTIONS[status],
        "content": {
            PROBLEM_JSON: {
                "schema": {"$ref": "#/components/schemas/Problem"},
                "example": example | extra,
            }
        },
    }


def _document_errors(path: str, method: str, operation: Doc) -> None:
    responses = operation.setdefault("responses", {})
    for status in list(responses):
        if status.isdigit() and int(status) >= 400:
            del responses[status]  # FastAPI's defaults; replaced by the ones that apply
    for status in sorted(_statuses(path, method, operation)):
        responses[str(status)] = _problem_response(status)


# --- ETags and examples -------------------------------------------------------------------

_ETAG = {
    "description": "The version(s) the answer was computed from, quoted: send it back as "
    "If-None-Match to get 304 while nothing changed (or as If-Match to change the resource).",
    "schema": {"type": "string"},
    "example": '"7"',
}


def _document_etag(operation: Doc) -> None:
    """Operations that answer 304 to If-None-Match say so, and that they send an ETag."""
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
    if "if-none-match" not in headers:
        return
    for status in ("200", "304"):
        if status in operation["responses"]:
            operation["responses"][status].setdefault("headers", {})["ETag"] = _ETAG


_AOI_STATS = PILOT_STATS | {"ranged_hit": 19}
SHEET_EXAMPLES: Doc = {
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

_CAMPAIGN = "d7e4c7c8-83f0-56da-93b6-756e0e9b3de7"
_PILOT = "a9dd6997-d3fb-584b-8004-8726a35f6fb9"
# Answers of a real run (tests/api/test_openapi_clients.py), trimmed: what a site reads.
SUCCESS_EXAMPLES: dict[str, Doc] = {
    "checkLiveness": {"status": "ok"},
    "getMe": {
        "campaign_id": _CAMPAIGN,
        "campaign_name": "蒼穹",
        "token_id": "f16db641",
        "role": "site",
        "member_id": None,
        "may": ["read", "what_if"],
        "characters": [],
        "characters_reflect": {},
    },
    "getCampaignTimeline": {
        "rows": [
            {
                "position": 4,
                "campaign_id": _CAMPAIGN,
                "at": "2026-12-01T19:49:32.172650Z",
                "by": "gm",
                "kind": "character_joined",
                "subject_id": _PILOT,
                "line_en": "蒼井ソラ (played by aoi) joined",
                "line_ja": "蒼井ソラ（PL：aoi）が参加",
            }
        ],
        "reflects": {"0": 18},
    },
    "getHpLedger": {
        "rows": [
            {
                "scenario_id": "b6db006d-8349-58bb-9b43-fe74ef8a6b29",
                "character_id": _PILOT,
                "campaign_id": _CAMPAIGN,
                "scenario_name": "第1話",
                "unit_id": None,
                "ratio_in_numerator": 1,
                "ratio_in_denominator": 1,
                "pilot_hp_in": 80,
                "pilot_max_hp_in": 80,
                "end_hp": 40,
                "end_max_hp": 80,
                "ratio_out_numerator": 1,
                "ratio_out_denominator": 2,
                "injury": "none",
                "why_in": "GD-HPS-2/3: entered at carried ratio 1/1: pilot 80/80, on foot",
                "why_out": "GD-HPS-1/3: last fought on foot, ended at 40/80: carries 1/2; "
                "GD-INJ: none",
                "position": 8,
            }
        ],
        "reflects": {"0": 18},
    },
    "getEncounterLog": {
        "rows": [
            {
                "position": 18,
                "encounter_id": "218ae7e0-db1f-54e5-b6bc-0b7362d459fb",
                "version": 3,
                "event_type": "CombatantJoined",
                "at": "2026-12-01T19:49:33.853834Z",
                "by": "gm",
                "line_en": "ace (ace) joined on side pc, controlled by aoi",
                "line_ja": "ace（ace）が陣営「pc」で参加（操作：aoi）",
                "rule_ids": [],
            }
        ],
        "reflects": {"0": 18},
    },
}


def _document_success(operation: Doc) -> None:
    example = SUCCESS_EXAMPLES.get(operation.get("operationId", ""))
    ok = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json")
    if example is not None and ok is not None:
        ok["example"] = example


def _document_sheet_shapes(operation: Doc) -> None:
    """A sheet is one of two shapes, chosen by `format`: say both, so a generated client
    parses a CCFolia piece as one (not as a sheet it is not)."""
    names = {p["name"] for p in operation.get("parameters", [])}
    ok = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json")
    if "format" not in names or ok is None or "anyOf" in ok["schema"]:
        return
    # anyOf, not oneOf: a CCFolia piece is read leniently, so a sheet would match it too.
    ok["schema"] = {"anyOf": [ok["schema"], {"$ref": "#/components/schemas/CcfoliaPiece"}]}
    ok.pop("example", None)
    ok["examples"] = SHEET_EXAMPLES
