"""Every text a client sends is bounded (issue 33): a new field cannot be forgotten.

The OpenAPI document lists everything a client can send; every string in a request body or
a query is bounded in length (or an enum, a UUID, a date), every object's keys too. Free-form
JSON is allowed only where it becomes a command whose JSON is checked (BoundedJson) or is never
stored; path parameters name a thing that exists (looked up, never stored as given) and
headers are bounded by the server. A command built without validation is refused by the
domain all the same (domain/campaign/bounds.py, check_texts).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest
from pydantic import TypeAdapter, ValidationError

from api.app import create_app
from api.encounter_commands import EncounterCommand
from domain.campaign import bounds
from domain.campaign.campaign_commands import AddMember, OpenCampaign
from domain.encounter.aggregate import decide
from domain.encounter.commands import JoinCombatant, OpenEncounter
from domain.encounter.state import Encounter
from domain.rules.ruleset import CommandContext

Node = dict[str, Any]

# Free-form JSON a client may send, and why it is bounded all the same.
FREE_FORM = {
    "JoinCombatantBody.sheet{}": "SheetJson: every text, key and number checked",
    "EncounterCreate.options{}": "becomes OpenEncounter.options (BoundedJson)",
    "EncounterCreate.battle_map{}": "becomes OpenEncounter.battle_map (BoundedJson)",
    "CampaignCreate.options{}": "becomes OpenCampaign.options (BoundedJson)",
    "OptionsPut.options{}": "becomes ChangeOptions.options (BoundedJson)",
    "WhatIf.options{}": "a replay's options: read by the options model, never stored",
    "AmendmentIn.payload{}": "validated into the amended command's class, never stored",
    "DisputeAmend.options{}": "read by the ruleset's options model",
    "CcfoliaPiece{}": "an import: read into RegisterCharacter and items (bounded)",
}
# Objects whose keys the validators check against a fixed set (GD-STAT keys).
CHECKED_KEYS = {
    "CharacterCreate.base_stats",
    "CharacterAdvance.base_stats",
    "UnitCreate.base_stats",
    "ItemBody.stats",
}


def unbounded(doc: Node) -> list[str]:
    """Where the document accepts a text of any length: `Model.field`, `[]` for items,
    `{}` for an object's values, `{key}` for its keys."""
    schemas: Node = doc["components"]["schemas"]
    found: list[str] = []
    seen: set[str] = set()

    def walk(node: Any, where: str) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            if name not in seen:
                seen.add(name)
                walk(schemas[name], name)
            return
        if node == {} or (node.get("type") == "object" and node.get("additionalProperties")):
            extra = node.get("additionalProperties", True)
            names = node.get("propertyNames", {})
            if "maxLength" not in names and where not in CHECKED_KEYS and extra is not False:
                found.append(f"{where}{{}}")
            if isinstance(extra, dict):
                walk(extra, f"{where}{{}}")
        if node.get("type") == "string" and not {"maxLength", "enum", "const", "format"} & set(
            node
        ):
            found.append(where)
        for name, child in node.get("properties", {}).items():
            walk(child, f"{where}.{name}")
        if "items" in node:
            walk(node["items"], f"{where}[]")
        for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
            for child in node.get(key, []):
                walk(child, where)

    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    walk(parameter["schema"], f"{method} {path}?{parameter['name']}")
            for content in operation.get("requestBody", {}).get("content", {}).values():
                walk(content["schema"], f"{method} {path}")
    return sorted(set(found) - {"JsonValue{}"})


@pytest.fixture(scope="module")
def doc() -> Node:
    return create_app(lambda: None, lambda _: None).openapi()  # type: ignore[arg-type,return-value]


def test_every_text_a_client_sends_is_bounded_or_checked_free_form_json(doc: Node) -> None:
    assert unbounded(doc) == sorted(FREE_FORM)


COMMANDS = TypeAdapter(EncounterCommand)
JOIN = {"command": "JoinCombatant", "name": "x", "side": "enemy", "controller": "gm", "sheet": {}}


@pytest.mark.parametrize(
    ("body", "field", "limit"),
    [
        (JOIN | {"combatant_id": "x" * 4_000}, "combatant_id", bounds.ID),
        (JOIN | {"combatant_id": "a", "name": "名" * 201}, "name", bounds.NAME),
        (JOIN | {"combatant_id": "a", "sheet": {"note": "x" * 2_001}}, "sheet", bounds.TEXT),
        (JOIN | {"combatant_id": "a", "sheet": {"k" * 201: 1}}, "sheet", bounds.NAME),
        ({"command": "ForgoAction", "combatant_id": "a", "note": "x" * 2_001}, "note", 2_000),
        ({"command": "SwapEquipment", "combatant_id": "a", "equip": ["x" * 201]}, "equip", 200),
        ({"command": "RemoveStatus", "target": "x" * 65, "status": "s"}, "target", bounds.ID),
        ({"command": "DeclareVictory", "side": "x" * 65, "reason": "r"}, "side", bounds.ID),
        ({"command": "DeclareVictory", "side": "s", "reason": "x" * 2_001}, "reason", bounds.TEXT),
    ],
)
def test_a_text_past_its_bound_is_refused_naming_the_field_and_the_bound(
    body: dict[str, Any], field: str, limit: int
) -> None:
    with pytest.raises(ValidationError) as invalid:
        COMMANDS.validate_python(body)
    errors = [e for e in invalid.value.errors() if field in map(str, e["loc"])]
    assert errors, invalid.value.errors()
    assert f"{limit:,}" in errors[0]["msg"] or str(limit) in errors[0]["msg"]


def test_campaign_commands_bound_member_ids_and_free_form_options() -> None:
    with pytest.raises(ValidationError):
        AddMember(member_id="m" * 65, role="player")
    with pytest.raises(ValidationError):
        OpenCampaign(name="c", ruleset="wizardry_round", options={"house": "x" * 2_001})


def test_a_command_built_without_validation_is_refused_by_the_domain() -> None:
    ctx = CommandContext(at=datetime(2026, 12, 7, tzinfo=UTC), by="gm", is_gm=True)
    opened = OpenEncounter(ruleset_id="glorious_drive", commitment="0" * 64)
    joined = JoinCombatant.model_construct(
        combatant_id="x" * 4_000, name="n", side="enemy", controller="gm", sheet={}
    )
    state = Encounter.model_construct(id=UUID(int=1))  # never read: texts are checked first
    with pytest.raises(bounds.TextTooLong, match="combatant_id: 4,000 characters; send at most 64"):
        decide(state, joined, ctx)
    bounds.check_texts(opened)  # a command within its bounds passes
