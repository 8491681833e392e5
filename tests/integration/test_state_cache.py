"""The per-process state cache against a second writer (issue #16: one pass per command).

Each runtime is what one API process holds: its own executor, so its own cache of the states
its commands reached. Given a fight that process A knows at some version, when process B
appends to it, A's known state is stale; A's next command is then refused by the append's
version check, and decided again on what the log says: never a wrong state, never a lost
write, never a refusal the current state would not give.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.encounter import aggregate as encounter
from domain.rules.errors import RuleViolation
from infra.bootstrap import Runtime
from infra.services.executor import StaleVersion
from tests.integration.test_encounter_service import GM, opened_fight
from tests.support.runtime import start_runtime
from tests.unit.encounter.table import sheet, weapon

pytestmark = pytest.mark.postgres


@pytest.fixture
def two_processes(app_url: str, owner_url: str) -> Iterator[tuple[Runtime, Runtime]]:
    first, second = start_runtime(app_url, owner_url), start_runtime(app_url, owner_url)
    yield first, second
    first.close()
    second.close()


def replayed(runtime: Runtime, fight: uuid.UUID) -> tuple[encounter.Encounter, int]:
    """The fight as its whole log rebuilds it: the truth a cached state must match."""
    recorded = runtime.ledger.read(fight)
    return encounter.KIND.rebuild(fight, (r.event for r in recorded)), recorded[-1].version


def test_a_stale_known_state_is_caught_by_the_append_and_decided_again(
    two_processes: tuple[Runtime, Runtime],
) -> None:
    a, b = two_processes
    fight = opened_fight(a)  # A knows the fight as its last join left it
    _, known = a.encounters.known(fight)
    rolled = b.encounters.command(fight, GM, "RollInitiative", {})  # B moves it on
    assert a.encounters.known(fight)[1] == known < rolled.version  # A's is stale now

    # GD-TURN: on A's stale state initiative is still to roll, so a cleanup would be refused;
    # on the log's state it is the next step, and that is what A must decide on.
    answer = a.encounters.command(fight, GM, "Cleanup", {"combatant_id": "ace"})

    state, version = replayed(a, fight)
    assert answer.version == version == rolled.version + len(answer.events)
    assert a.encounters.known(fight) == (state, version)
    events = [r.event.event_type for r in a.ledger.read(fight, after=known)]
    assert events.count("CommandIssued") == 2  # B's roll and A's cleanup, both kept


def test_a_stale_if_match_on_a_stale_known_state_is_refused_with_the_current_version(
    two_processes: tuple[Runtime, Runtime],
) -> None:
    a, b = two_processes
    fight = opened_fight(a)
    _, known = a.encounters.known(fight)
    rolled = b.encounters.command(fight, GM, "RollInitiative", {})
    with pytest.raises(StaleVersion) as refused:
        a.encounters.command(fight, GM, "RollInitiative", {}, expected_version=known)
    assert refused.value.current == rolled.version
    assert replayed(a, fight)[1] == rolled.version  # nothing appended


def test_a_refusal_stands_when_the_log_agrees_with_the_known_state(
    two_processes: tuple[Runtime, Runtime],
) -> None:
    a, b = two_processes
    fight = opened_fight(a)
    b.encounters.command(fight, GM, "RollInitiative", {})
    _, before = replayed(a, fight)
    with pytest.raises(RuleViolation) as refused:  # initiative is rolled once a turn
        a.encounters.command(fight, GM, "RollInitiative", {})
    assert refused.value.rule_id.startswith("GD-")
    assert replayed(a, fight)[1] == before


def test_two_processes_taking_turns_lose_no_write(two_processes: tuple[Runtime, Runtime]) -> None:
    a, b = two_processes
    fight = opened_fight(a)
    turn = [  # one turn of bench/write_workers.py's fight
        ("RollInitiative", {}),
        ("Cleanup", {"combatant_id": "ace"}),
        ("DeclareAttack", {"combatant_id": "ace", "target": "grunt"}),
        ("Dodge", {"combatant_id": "grunt"}),
        ("Cleanup", {"combatant_id": "grunt"}),
        ("DeclareAttack", {"combatant_id": "grunt", "target": "ace"}),
        ("Dodge", {"combatant_id": "ace"}),
    ]
    versions = []
    for index, (name, body) in enumerate(turn):
        writer = (a, b)[index % 2]  # each command lands on the other's stale known state
        versions.append(writer.encounters.command(fight, GM, name, body).version)
    state, version = replayed(a, fight)
    assert versions == sorted(versions)
    assert versions[-1] == version
    assert a.encounters.state(fight) == b.encounters.state(fight) == (state, version)


def test_an_encounter_command_over_http_keeps_the_callers_token_cached(
    two_processes: tuple[Runtime, Runtime],
) -> None:
    """A write voids, at once, what this process holds of the streams it appended to, and
    nothing else: the caller's token stays cached across its encounter commands (no campaign
    read, no second thread hop per request); a write to the campaign itself voids it."""
    runtime, _ = two_processes
    assert runtime.append_watch.wait_listening(10.0)
    with TestClient(create_app(lambda: runtime, lambda _: None)) as http:
        opened = http.post(
            "/v1/campaigns", json={"name": "cache", "gm_member_id": "gm"}, headers=_key()
        ).json()
        gm = {"Authorization": f"Bearer {opened['token']}"}
        fight = http.post(
            f"/v1/campaigns/{opened['id']}/encounters", json={}, headers=gm | _key()
        ).json()
        version = http.get(f"/v1/encounters/{fight['id']}", headers=gm).headers["ETag"]
        assert runtime.campaigns.cached_principal(opened["token"]) is not None

        joining = {"combatant_id": "ace", "name": "ace", "side": "pc", "controller": "gm"}
        joining["sheet"] = sheet(1, 1, reaction=10, weapons=[weapon()])
        sent = http.post(
            f"/v1/encounters/{fight['id']}/commands",
            json={"command": "JoinCombatant", **joining},
            headers=gm | _key() | {"If-Match": version},
        )
        assert sent.status_code == 200, sent.text
        assert runtime.campaigns.cached_principal(opened["token"]) is not None

        member = {"member_id": "aoi", "role": "player"}
        added = http.post(f"/v1/campaigns/{opened['id']}/members", json=member, headers=gm | _key())
        assert added.is_success, added.text
        assert runtime.campaigns.cached_principal(opened["token"]) is None


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}
