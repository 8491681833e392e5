"""Typed answers (issue #16 item 2): given a write, when it is retried with its key, then the
stored answer comes back byte for byte, and what is stored is the typed answer's JSON."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from api.writes import caller_scope
from domain.campaign.model import Item
from infra.services import CharacterPublic, Runtime, UnitPublic
from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.roster import AOI, KURENAI, register_pilot

pytestmark = pytest.mark.postgres

VISOR = {"name": "バイザー", "slot": "accessory", "cost": 0, "stats": {"evasion": 3}}


@pytest.fixture
def campaign(client: TestClient) -> Campaign:
    opened = open_campaign(client)
    opened.token_for("aoi")  # the player register_pilot registers for
    return opened


def _twice(campaign: Campaign, path: str, body: dict[str, Any]) -> tuple[bytes, bytes, str]:
    """The same POST sent twice under one key: both bodies, and the key as the ledger keeps it."""
    key = str(uuid.uuid4())
    headers = auth(campaign.gm, **{"Idempotency-Key": key})
    first = campaign.client.post(path, headers=headers, json=body)
    again = campaign.client.post(path, headers=headers, json=body)
    assert first.status_code in (200, 201), first.text
    assert (again.status_code, again.headers["ETag"]) == (first.status_code, first.headers["ETag"])
    return first.content, again.content, f"{caller_scope(headers['Authorization'])}:{key}"


def test_a_retried_write_gets_its_first_answer_byte_for_byte(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    rules = {"status_recovery_difficulty": 12, "faint_rule": "text"}  # jsonb reorders these
    writes = [
        ("/v1/campaigns", {"name": "再送", "gm_member_id": "gm", "options": rules}),
        (
            f"/v1/campaigns/{campaign.id}/characters",
            {"owner": "gm", "name": "赤坂", "base_stats": AOI},
        ),
        (f"/v1/characters/{pilot['id']}/items", VISOR),
        (
            f"/v1/campaigns/{campaign.id}/units",
            {"pilot_id": pilot["id"], "name": "紅", "base_stats": KURENAI},
        ),
        (f"/v1/campaigns/{campaign.id}/scenarios", {"name": "第1話"}),
        (f"/v1/campaigns/{campaign.id}/tokens", {"kind": "site", "label": "wiki"}),
        (f"/v1/campaigns/{campaign.id}/members", {"member_id": "kai"}),
    ]
    for path, body in writes:
        first, again, _ = _twice(campaign, path, body)
        assert again == first, path


def test_the_stored_answer_is_the_typed_answers_json(campaign: Campaign, runtime: Runtime) -> None:
    pilot = register_pilot(campaign)
    path = f"/v1/characters/{pilot['id']}/items"

    first, _, key = _twice(campaign, path, VISOR)

    shard = runtime.ledger.shard_of(uuid.UUID(pilot["id"]))
    stored = runtime.ledger.answer_for(key, shard=shard)
    assert stored is not None
    assert stored.response == json.loads(first)


def test_a_token_issued_is_stored_without_its_secret(campaign: Campaign, runtime: Runtime) -> None:
    first, _, key = _twice(
        campaign, f"/v1/campaigns/{campaign.id}/tokens", {"kind": "member", "member_id": "gm"}
    )

    stored = runtime.ledger.answer_for(key, shard=runtime.ledger.shard_of(uuid.UUID(campaign.id)))
    assert stored is not None
    assert "token" not in stored.response  # derived again from the master key when shown
    assert stored.response["token_id"] in first.decode()


def test_a_service_answers_a_frozen_typed_model(campaign: Campaign, runtime: Runtime) -> None:
    pilot = register_pilot(campaign)

    answer = runtime.characters.equip(uuid.UUID(pilot["id"]), "gm", Item.model_validate(VISOR))

    assert isinstance(answer, CharacterPublic)
    assert [item.name for item in answer.items] == ["バイザー"]
    with pytest.raises(ValidationError):
        answer.current_hp = 1  # frozen: handed out as it was built and stored


def test_a_unit_sheet_is_a_typed_answer_of_its_own(campaign: Campaign, runtime: Runtime) -> None:
    pilot = register_pilot(campaign)
    core = campaign.post(
        f"/v1/campaigns/{campaign.id}/units",
        json={"pilot_id": pilot["id"], "name": "紅", "base_stats": KURENAI},
    ).json()

    sheet, _ = runtime.units.sheet(uuid.UUID(core["id"]))

    assert isinstance(sheet, UnitPublic)
    assert (sheet.piloting_boost, sheet.pilot_name) == (AOI["piloting"], "蒼井ソラ")
