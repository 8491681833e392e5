"""Issue 33 §1 over HTTP on real PostgreSQL: an encounter command refused after its server
dice were drawn is recorded, then answered 422 with the rule and a fixed sentence.

Given a Glorious Drive fight whose ruleset (test-only, tests/unit/encounter/risky_toss.py)
refuses the command that draws the fight's first dice after drawing them, when the GM rolls
initiative, then the answer is 422 citing GD-INIT-1 and no die, the dice and the refusal are
on the record, the next roll of initiative shows the seed's next sequence, and after the
reveal every die, the refused ones too, recomputes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from domain.dice import fair_die
from infra.services.audit import check_dice
from infra.services.runtime import Runtime
from infra.store.bundle import export_bundle, verify_bundle
from tests.api.conftest import auth, key
from tests.api.fight import Fight, open_fight
from tests.unit.encounter.risky_toss import glorious_drive_refusing_first_dice, registered

pytestmark = pytest.mark.postgres


@pytest.fixture
def refusing() -> Iterator[None]:
    with registered(glorious_drive_refusing_first_dice()):
        yield


def _events(fight: Fight, after: int, by: str = "gm") -> list[dict[str, object]]:
    return list(fight.get("/events", by=by, after=after, limit=500).json()["events"])


def _no_number_but_the_rule(text: str, rule_id: str) -> None:
    assert not re.findall(r"\d", text.replace(rule_id, "")), text


@pytest.mark.usefixtures("refusing")
def test_a_command_refused_after_its_dice_is_recorded_and_answered_422(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    at = fight.version()
    refused = fight.command({"command": "RollInitiative", "client_seed": "peek"})
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["type"].endswith("/refused-after-dice")
    assert problem["rule_id"] == "GD-INIT-1"
    assert "RollInitiative was refused after its dice were drawn" in problem["detail"]
    _no_number_but_the_rule(problem["detail"], "GD-INIT-1")
    events = _events(fight, at)
    assert [e["type"] for e in events] == [
        "CommandIssued",
        "EncounterDiceRolled",
        "EncounterDiceRolled",
        "EncounterDiceRolled",
        "CommandRefusedAfterDice",
    ]
    assert events[-1]["payload"] == {
        "command_type": "RollInitiative",
        "rule_id": "GD-INIT-1",
        "roll_seqs": [0, 1, 2],
    }
    assert refused.headers["ETag"] == f'"{at + 5}"' == f'"{fight.version()}"'
    state = fight.get().json()
    assert state["roll_count"] == 3
    assert state["procedure"]["phase"] == "setup"  # nothing else the command decided is kept


@pytest.mark.usefixtures("refusing")
def test_after_the_refusal_the_next_dice_are_the_seeds_next_and_all_verify(
    client: TestClient, runtime: Runtime
) -> None:
    fight = open_fight(client)
    assert fight.command({"command": "RollInitiative"}).status_code == 422
    rolled = fight.command({"command": "RollInitiative", "client_seed": "next"})
    assert rolled.status_code == 200, rolled.text
    rolls = rolled.json()["rolls"]
    assert [r["roll_seq"] for r in rolls] == [3, 4, 5]
    revealed = client.post(
        f"/v1/encounters/{fight.id}/reveal", headers=auth(fight.campaign.gm) | key()
    )
    assert revealed.status_code == 200, revealed.text
    seed = bytes.fromhex(fight.get().json()["revealed_seed"])
    for roll in rolls:
        sides = int(roll["expression"].split("D")[1])
        face = fair_die(seed, UUID(fight.id), roll["roll_seq"], 0, sides, "next")
        assert roll["total"] == face
    audit = fight.get("/audit", by="aoi").json()
    assert audit["all_verified"] is True
    assert len(audit["checks"]) == 6  # the refused command's three dice among them
    trail = fight.get("/rulings").json()
    refusal = next(e for e in trail if e["outcome"] == {"refused": "RollInitiative"})
    assert [r["rule_id"] for r in refusal["rules"]] == ["GD-INIT-1"]
    assert [d["roll_seq"] for d in refusal["dice"]] == [0, 1, 2]
    assert all(die["recomputes"] for d in refusal["dice"] for die in d["dice"])
    # `senki verify` and the audit bundle recompute them as well.
    encounter = UUID(fight.id)
    found = check_dice(encounter, runtime.ledger.read(encounter))
    assert (found.ok, found.checked, found.recomputed) == (True, 6, 6), found.problems
    report = verify_bundle(export_bundle(runtime.ledger, encounter))
    assert report.ok, [str(p) for p in report.problems]
    assert (report.dice, report.dice_recomputed) == (6, 6)


@pytest.mark.usefixtures("refusing")
def test_a_retried_refused_command_gets_the_same_refusal_and_appends_once(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    at = fight.version()
    headers = auth(fight.campaign.gm, **{"If-Match": f'"{at}"'}) | key()
    path = f"/v1/encounters/{fight.id}/commands"
    first = client.post(path, headers=headers, json={"command": "RollInitiative"})
    again = client.post(path, headers=headers, json={"command": "RollInitiative"})
    assert first.status_code == again.status_code == 422
    assert again.json() == first.json()
    assert fight.version() == at + 5


@pytest.mark.usefixtures("refusing")
def test_a_player_reads_the_refusal_as_the_gm_does_and_its_line_quotes_no_number(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    at = fight.version()
    assert fight.command({"command": "RollInitiative"}).status_code == 422
    gm, player = _events(fight, at), _events(fight, at, by="aoi")
    # The dice are the table's (docs/visibility.md); the refusal names a rule and the dice.
    assert [e["payload"] for e in player] == [e["payload"] for e in gm]
    assert player[-1]["type"] == "CommandRefusedAfterDice"
    line = player[-1]["line"]
    assert line is not None
    for text in (line["en"], line["ja"]):
        _no_number_but_the_rule(text, "GD-INIT-1")
