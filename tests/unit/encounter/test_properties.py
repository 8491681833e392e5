"""Properties over random fights: replay equals live state, refusals change nothing, damage ≥ 0.

Each example opens a fight with random stats and plays random commands — legal ones taken
from the procedure, mixed with arbitrary ones that may be refused — on server dice whose
client seed varies, so the dice differ from example to example.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.catalog import registry
from domain.dice import DiceEntryError
from domain.encounter import aggregate
from domain.encounter.errors import CommandRefused
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import DamageApplied
from domain.rules.ruleset import Command, CommandContext, LegalCommand
from tests.unit.encounter.table import AT, Table, sheet, weapon

IDS = ("a", "b", "c", "d")
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@st.composite
def fights(draw: st.DrawFn) -> Table:
    table = Table().open()
    for index, cid in enumerate(IDS):
        arms = [
            weapon(
                "gun",
                range=draw(st.integers(2, 10)),
                attack=draw(st.integers(0, 60)),
                area=draw(st.sampled_from([0, 0, 1])),
                reload_interval=draw(st.sampled_from([None, 1, 2])),
                reload_time=draw(st.integers(1, 2)),
                cut=draw(st.sampled_from([None, 5, 50])),
                guard_cost=draw(st.integers(0, 10)),
            )
        ]
        stats = {
            "phys_atk": draw(st.integers(0, 200)),
            "phys_def": draw(st.integers(0, 400)),
            "hp": draw(st.integers(1, 120)),
            "reaction": draw(st.integers(0, 3)),
        }
        body = draw(st.sampled_from(["licenser", "assault_core"]))
        skills = [
            {"name": kind, "skill_type": kind, "cost": draw(st.integers(0, 50)), "uses": 1}
            for kind in ("active", "movement", "counter")
            if draw(st.booleans())
        ]
        side = "pc" if index < 2 else "enemy"
        table.join(
            cid,
            f"m{index}",
            side,
            sheet(index * 2, index, weapons=arms, body=body, stats=stats, skills=skills),
        )
    return table


def concrete(legal: LegalCommand, table: Table, data: st.DataObject) -> Command:
    """A command of the kind `legal` names, with drawn parameters (which may be refused)."""
    who = legal.combatant or "a"
    others = [cid for cid in IDS if cid != who]
    match legal.command:
        case "Delay":
            return cmd.Delay(combatant_id=who, after=data.draw(st.sampled_from(IDS)))
        case "Move":
            me = table.c(who).position
            dx, dy = data.draw(st.sampled_from(STEPS))
            return cmd.Move(combatant_id=who, path=({"x": me.x + dx, "y": me.y + dy},))
        case "DeclareAttack":
            if data.draw(st.booleans()):
                return cmd.DeclareAttack(
                    combatant_id=who, target=data.draw(st.sampled_from(others))
                )
            x, y = data.draw(st.integers(0, 9)), data.draw(st.integers(0, 9))
            return cmd.DeclareAttack(combatant_id=who, point={"x": x, "y": y})
        case "Intercept":
            return cmd.Intercept(combatant_id=who, target=data.draw(st.sampled_from(others)))
        case "GrantSituationModifier":
            pending = table.gd.pending
            defender = pending.defenders[0] if pending and pending.defenders else "a"
            percent = data.draw(st.integers(0, 110))
            return cmd.GrantSituationModifier(defender=defender, percent=percent, reason="GM")
        case "InflictStatus":
            return cmd.InflictStatus(
                target=data.draw(st.sampled_from(IDS)), status="burn", effect_value=2
            )
        case "UseActiveSkill":
            return cmd.UseActiveSkill(combatant_id=who, skill="active")
        case "UseCounterSkill":
            return cmd.UseCounterSkill(
                combatant_id=who, skill="counter", negates_hit=data.draw(st.booleans())
            )
        case "UseMovementSkill":
            x, y = data.draw(st.integers(-1, 12)), data.draw(st.integers(-1, 12))
            return cmd.UseMovementSkill(
                combatant_id=who, skill="movement", destination={"x": x, "y": y}
            )
        case "EndCombat":
            return cmd.EndCombat(
                clause=data.draw(st.sampled_from(["GD-END-1", "GD-END-3"])), reason="GM"
            )
    kinds: dict[str, type[Command]] = {c.command_type: c for c in cmd.COMMANDS}
    command_type = kinds[legal.command]
    fields: dict[str, Any] = {"combatant_id": who} if legal.combatant else {}
    return command_type(**fields)


RARE = ("EndCombat", "InflictStatus", "Wait", "ForgoAction")


def _weighted(legal: list[LegalCommand], data: st.DataObject) -> list[LegalCommand]:
    """Mostly the fight's own commands; now and then the rare ones or an out-of-turn Move."""
    common = [entry for entry in legal if entry.command not in RARE]
    if common and data.draw(st.integers(0, 9)):
        return common
    return [*legal, LegalCommand(command="Move", issuer="controller", combatant="a")]


def play(table: Table, data: st.DataObject, steps: int) -> int:
    """Play up to `steps` commands; returns how many were refused (each changing nothing)."""
    refused = 0
    for _ in range(steps):
        legal = aggregate.legal_commands(table.state)
        if not legal:
            break
        pick = data.draw(st.sampled_from(_weighted(legal, data)))
        command = concrete(pick, table, data)
        ctx = CommandContext(at=AT, by="gm", is_gm=True, client_seed=data.draw(st.text(max_size=3)))
        before = table.state
        snapshot = before.model_dump_json()
        try:
            table.do(command, by=ctx)
        except (RuleViolation, CommandRefused, DiceEntryError):
            refused += 1
            assert table.state is before
            assert table.state.model_dump_json() == snapshot
    return refused


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(fights(), st.data())
def test_rebuilding_from_stored_events_equals_the_live_state(
    table: Table, data: st.DataObject
) -> None:
    play(table, data, 40)
    rows = [(registry.topic(e), json.loads(e.model_dump_json())) for e in table.events]
    rebuilt = aggregate.KIND.rebuild(table.state.id, [registry.decode(t, d) for t, d in rows])
    assert rebuilt == table.state


@SETTINGS
@given(fights(), st.data())
def test_damage_is_never_negative_and_hp_falls_by_exactly_the_damage(
    table: Table, data: st.DataObject
) -> None:
    play(table, data, 40)
    hp = {cid: table.c(cid).sheet.stats.hp for cid in IDS}
    for event in table.events:
        if isinstance(event, DamageApplied):
            assert event.damage >= 0
            assert event.hp == hp[event.combatant] - event.damage
        if hasattr(event, "hp") and hasattr(event, "combatant"):
            hp[event.combatant] = event.hp
