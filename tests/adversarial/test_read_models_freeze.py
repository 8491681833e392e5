"""A request no one else's read models can choke on (issue 33, section 2).

Before: a `JoinCombatant` whose `combatant_id` had 4,000 characters was recorded (201), and
the rulings model failed on it for ever ("index row size 4016 exceeds maximum 2712",
SQLSTATE 54000, not taken for poison): every read model of every campaign on the shard
stopped, nothing was parked, and a restart did not help. After: the request is a 422 naming
the field and its bound, nothing is recorded; and an event already in the log that a model
still cannot write is parked for that model and stream while every other campaign's models
advance.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient

from domain.catalog import registry
from domain.events import DomainEvent
from infra.store.ledger import Ledger, open_ledger
from projections.catalog import PROJECTIONS
from tests.api.fight import open_fight
from tests.support.databases import shard_count
from tests.support.readside import caught_up_within, tracked
from tests.support.story import _scripted_fight, campaign_story, write
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres

HALT_S = 60.0  # before the fix the projector never caught up: this is how long it was given
LONG_ID = os.urandom(2_000).hex()  # 4,000 characters, as the attacker sent


def test_a_4000_character_combatant_id_is_a_422_naming_the_bound_and_nothing_is_recorded(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    before = fight.version()
    body = {
        "command": "JoinCombatant",
        "combatant_id": LONG_ID,
        "name": "grunt",
        "side": "enemy",
        "controller": "gm",
        "sheet": sheet(4, 1, hp=10),  # a valid grunt: only its id is too long
    }

    answer = fight.command(body)

    assert answer.status_code == 422, answer.text[:300]  # before: 200, and recorded
    problem = answer.json()
    assert [e["field"] for e in problem["errors"]] == [
        "body.glorious_drive.JoinCombatant.combatant_id"
    ]
    assert "64" in problem["detail"]
    assert fight.version() == before


@pytest.fixture
def ledger(app_url: str) -> Iterator[Ledger]:
    ledger = open_ledger(app_url, registry=registry, shards=shard_count())
    yield ledger
    ledger.close()


def with_long_combatant(events: tuple[DomainEvent, ...]) -> list[DomainEvent]:
    """The scripted fight, its first combatant renamed to a 4,000-character id: the events
    such a request left in the log before the bounds (stored events stay readable)."""
    joined = next(e for e in events if e.event_type == "CombatantJoined")
    old = json.dumps(joined.model_dump()["combatant_id"])
    return [
        type(e).model_validate_json(e.model_dump_json().replace(old, json.dumps(LONG_ID)))
        for e in events
    ]


def test_an_event_no_model_can_write_is_parked_and_other_campaigns_read_models_advance(
    app_url: str, ledger: Ledger
) -> None:
    table = campaign_story()
    campaign = table.character(table.pilots[0]).campaign_id
    assert campaign is not None
    opened, *rest = with_long_combatant(_scripted_fight())
    encounter = table.fresh_id()
    table.append(encounter, [opened.model_copy(update={"campaign_id": campaign}), *rest])
    campaign_story(table)  # another campaign, written after the poison
    write(ledger, table.log)

    caught_up = caught_up_within(HALT_S, app_url, ledger, PROJECTIONS, batch_size=50)

    assert caught_up, "every read model stopped: the projector never caught up"
    head = ledger.head().position
    assert {p.name: tracked(app_url, p.name) for p in PROJECTIONS} == {
        p.name: head for p in PROJECTIONS
    }
    with psycopg.connect(app_url) as conn:
        parked = conn.execute(
            "SELECT DISTINCT projection, stream_id FROM senki_read.parked"
        ).fetchall()
        reasons = conn.execute(
            "SELECT reason FROM senki_read.parked WHERE behind IS NULL"
        ).fetchall()
    assert parked == [("rulings", encounter)]  # that model, that stream: nothing else
    assert any("index row" in str(r) for (r,) in reasons), reasons
