"""The audit trail of an encounter on real PostgreSQL (issue 6).

Given a small Glorious Drive fight — server dice for initiative, dice entered by hand for a
dodge, a disputed ruling — and its revealed seed, the trail lists every ruling with the text
of its rules, the command behind it, and dice that recompute.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from domain.encounter import aggregate as encounter
from domain.encounter.disputes import file_dispute
from domain.rules.records import RulingRecorded
from infra.cli.audit import audit
from infra.services.audit import AuditService, revealed_encounters
from infra.services.encounters import Actor
from infra.services.runtime import Runtime
from infra.store.verify import collect
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY, start_runtime
from tests.unit.encounter.table import AT, sheet, weapon

pytestmark = pytest.mark.postgres

GM, P1 = Actor("gm", is_gm=True), Actor("p1")


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


def small_fight(runtime: Runtime, *, reveal: bool = True) -> uuid.UUID:
    """Initiative (server dice), an attack declared by a player, a dodge with hand dice."""
    service = runtime.encounters
    fight = uuid.UUID(service.open(GM, ruleset_id="glorious_drive", options={}, battle_map={}).id)
    joins: list[tuple[str, str, str, dict[str, Any]]] = [
        ("ace", "p1", "pc", sheet(1, 1, reaction=10, weapons=[weapon()])),
        ("grunt", "gm", "enemy", sheet(3, 1, reaction=2)),
    ]
    for combatant, controller, side, body in joins:
        service.command(
            fight,
            GM,
            "JoinCombatant",
            {
                "combatant_id": combatant,
                "name": combatant,
                "side": side,
                "controller": controller,
                "sheet": body,
            },
        )
    service.command(fight, GM, "RollInitiative", {})
    service.command(fight, P1, "Cleanup", {"combatant_id": "ace"})
    service.command(fight, P1, "DeclareAttack", {"combatant_id": "ace", "target": "grunt"})
    service.command(fight, GM, "Dodge", {"combatant_id": "grunt"}, hand_faces=[50, 30])
    if reveal:
        service.reveal(fight, GM)
    return fight


def dispute(runtime: Runtime, fight: uuid.UUID, ruling_version: int) -> None:
    events = [r.event for r in runtime.ledger.read(fight)]
    runtime.executor.execute(
        encounter.KIND,
        fight,
        lambda state: file_dispute(
            state, events, ruling_version, "the dodge was rolled wrong", "d15d15d1", at=AT, by="p1"
        ),
        lambda state, version: {"version": version},
    )


def test_the_trail_lists_every_ruling_with_its_rule_text_and_dice_that_recompute(
    runtime: Runtime,
) -> None:
    fight = small_fight(runtime)
    recorded = runtime.ledger.read(fight)
    rulings = [r.version for r in recorded if isinstance(r.event, RulingRecorded)]

    trail = AuditService(runtime.ledger, runtime.executor).trail(fight)

    assert [entry.version for entry in trail] == rulings
    shard = runtime.ledger.shard_of(fight)
    assert all(e.position and runtime.ledger.link_at(e.position, shard=shard) for e in trail)
    assert all(rule.text and rule.rule_id in rule.text for e in trail for rule in e.rules)
    assert all(rule.anchor.startswith("rules/RULES.md#gd-") for e in trail for rule in e.rules)
    initiative = next(e for e in trail if "GD-INIT-1" in [r.rule_id for r in e.rules])
    assert initiative.command is not None
    assert (initiative.command.command_type, initiative.command.by) == ("RollInitiative", "gm")
    assert [d.source for roll in initiative.dice for d in roll.dice] == ["server", "server"]
    assert all(d.recomputes for roll in initiative.dice for d in roll.dice)
    declared = next(e for e in trail if e.command and e.command.command_type == "DeclareAttack")
    assert declared.command is not None
    assert declared.command.by == "p1"
    assert declared.command.payload["target"] == "grunt"
    dodge = next(e for e in trail if "GD-REACT-1" in [r.rule_id for r in e.rules])
    assert [(d.face, d.source, d.recomputes) for r in dodge.dice for d in r.dice] == [
        (50, "hand", None),
        (30, "hand", None),
    ]
    assert dodge.command is not None
    assert dodge.command.hand_faces == [50, 30]
    assert all(not roll.problems for e in trail for roll in e.dice)
    assert all(e.options_in_force["faint_rule"] == "example" for e in trail)
    json.dumps([e.model_dump(mode="json") for e in trail])  # the --json form serialises


def test_a_dispute_shows_on_the_ruling_it_challenges(runtime: Runtime) -> None:
    fight = small_fight(runtime)
    service = AuditService(runtime.ledger, runtime.executor)
    dodge = next(e for e in service.trail(fight) if e.dice and e.dice[0].source == "hand")
    dispute(runtime, fight, dodge.version)

    trail = service.trail(fight)

    disputed = [e for e in trail if e.disputes]
    assert [e.version for e in disputed] == [dodge.version]
    assert disputed[0].disputes[0].reason == "the dodge was rolled wrong"
    assert disputed[0].disputes[0].status == "open"


def test_before_the_reveal_server_dice_are_listed_but_not_recomputed(runtime: Runtime) -> None:
    fight = small_fight(runtime, reveal=False)
    trail = AuditService(runtime.ledger, runtime.executor).trail(fight)
    server = [d for e in trail for r in e.dice for d in r.dice if d.source == "server"]
    assert server
    assert all(d.recomputes is None for d in server)


def test_verify_recomputes_the_dice_of_revealed_encounters_only(runtime: Runtime) -> None:
    revealed = small_fight(runtime)
    small_fight(runtime, reveal=False)

    assert revealed_encounters(runtime.ledger, shard=runtime.ledger.shard_of(revealed)) == [
        revealed
    ]
    [finding] = collect(runtime.ledger, []).dice  # what `senki verify` checks
    assert finding.encounter_id == revealed
    assert (finding.checked, finding.recomputed, finding.by_hand) == (4, 2, 2)
    assert finding.ok


def test_senki_audit_prints_the_trail_as_json(
    runtime: Runtime, app_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = small_fight(runtime)
    for name, value in {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_SHARDS": str(shard_count()),
    }.items():
        monkeypatch.setenv(name, value)
    app = typer.Typer()
    app.command()(audit)
    app.command("unused")(lambda: None)  # two commands, so typer keeps the command name

    result = CliRunner().invoke(app, ["audit", str(fight), "--json"])
    table = CliRunner().invoke(app, ["audit", str(fight)])

    assert result.exit_code == 0, result.output
    trail = json.loads(result.output)
    assert trail
    assert trail[0]["rules"][0]["rule_id"] == "GD-INIT-1"
    assert table.exit_code == 0, table.output
    assert "GD-REACT-1" in table.output
