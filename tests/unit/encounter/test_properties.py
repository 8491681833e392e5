"""Properties over random fights: replay, refusals, damage, HP accounting, initiative order.

Each example opens a fight with random stats and plays random commands — legal ones taken
from the procedure, mixed with arbitrary ones that may be refused — on server dice whose
client seed varies, so the dice differ from example to example.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.catalog import registry
from domain.dice import DiceEntryError
from domain.encounter import aggregate
from domain.encounter.errors import CommandRefused
from domain.encounter.record import issued
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.condition_events import SkillUsed
from domain.rules.glorious_drive.events import (
    AttackDeclared,
    DamageApplied,
    GuardCostPaid,
    InitiativeOrdered,
    ReactionDeclared,
)
from domain.rules.glorious_drive.initiative import InitiativeRoll, Reroll, initiative_order
from domain.rules.glorious_drive.ruleset import GLORIOUS_DRIVE
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from domain.rules.ruleset import Command, CommandContext, LegalCommand
from tests.unit.encounter.table import AT, SEED, Table, of_type, sheet, weapon

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
            percent = data.draw(st.integers(0, 100))  # past 100: no command (bounds.Percent)
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
    kinds: dict[str, type[Command]] = {c.command_type: c for c in GLORIOUS_DRIVE.commands}
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


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
def test_the_state_a_command_reaches_while_decided_is_the_fold_of_its_events(
    table: Table, data: st.DataObject
) -> None:
    """Events are evolved once: the Encounter `issued` hands back (kept by the application
    instead of evolving the events again) is exactly what folding `evolve` over them gives."""
    for _ in range(40):
        legal = aggregate.legal_commands(table.state)
        if not legal:
            break
        command = concrete(data.draw(st.sampled_from(_weighted(legal, data))), table, data)
        ctx = CommandContext(at=AT, by="gm", is_gm=True, client_seed=data.draw(st.text(max_size=3)))
        try:
            outcome = issued(table.state, command, ctx, server_seed=SEED)
        except (RuleViolation, CommandRefused, DiceEntryError):
            continue
        folded = table.state
        for event in outcome.events:
            folded = aggregate.evolve(folded, event)
        assert outcome.state == folded
        assert outcome.state.model_dump_json() == folded.model_dump_json()
        table.state, table.events = folded, [*table.events, *outcome.events]


@SETTINGS
@given(fights(), st.data())
def test_damage_is_never_negative_nor_below_the_minimum_guarantee_without_a_guard(
    table: Table, data: st.DataObject
) -> None:
    play(table, data, 40)
    attack = 0
    guarded: dict[str, bool] = {}
    for event in table.events:
        if isinstance(event, AttackDeclared):
            attack, guarded = event.attack, {}
        elif isinstance(event, ReactionDeclared):
            guarded[event.combatant] = event.guard
        elif isinstance(event, DamageApplied):
            assert event.damage >= 0  # GD-DMG-1/3
            if not guarded[event.combatant]:  # GD-DMG-2: ceil(attack / 10) at least
                assert event.damage >= math.ceil(attack / 10)


@SETTINGS
@given(fights(), st.data())
def test_hp_changes_equal_the_damage_and_cost_rulings(table: Table, data: st.DataObject) -> None:
    play(table, data, 40)
    hp = {cid: table.c(cid).sheet.stats.hp for cid in IDS}
    ruled_loss = dict.fromkeys(IDS, 0)
    events = table.events
    for index, event in enumerate(events):
        if isinstance(event, RulingRecorded) and "GD-DMG-1" in event.rule_ids:
            # GD-DMG / GD-REACT-4: the damage ruling's HP loss (guard cost + damage) lands on
            # the defender named by the DamageApplied that follows it.
            applied = events[index + 1]
            assert isinstance(applied, DamageApplied)
            assert applied.damage == event.outcome["damage"]
            ruled_loss[applied.combatant] += _int(event.outcome["hp_loss"])
        if isinstance(event, RulingRecorded) and "GD-COST-3" in event.rule_ids:
            # GD-COST-3a: the skill step's clamp, recorded just before the SkillUsed.
            used = events[index + 1]
            assert isinstance(used, SkillUsed)
            clamp = _int(event.inputs["hp_before"]) - _int(event.outcome["hp_in_step"])
            ruled_loss[used.combatant] += clamp
        if isinstance(event, GuardCostPaid):
            assert event.hp == hp[event.combatant] - event.cost
        elif isinstance(event, DamageApplied):
            assert event.hp == hp[event.combatant] - event.damage
        elif isinstance(event, SkillUsed):
            assert event.hp <= hp[event.combatant]  # a cost only ever lowers HP
        if isinstance(event, GuardCostPaid | DamageApplied | SkillUsed):
            hp[event.combatant] = event.hp
    for cid in IDS:
        assert table.c(cid).hp == hp[cid] == table.c(cid).sheet.stats.hp - ruled_loss[cid]


@SETTINGS
@given(fights(), st.data())
def test_the_initiative_order_is_a_total_order_fixed_by_the_recorded_dice(
    table: Table, data: st.DataObject
) -> None:
    play(table, data, 40)
    faces = {e.result.roll_seq: e.result.total for e in of_type(table.events, EncounterDiceRolled)}
    for index, event in enumerate(table.events):
        if not isinstance(event, RulingRecorded) or "GD-INIT-1" not in event.rule_ids:
            continue
        rolls = [InitiativeRoll.model_validate(r) for r in _dicts(event.inputs["rolls"])]
        rerolls = [Reroll.model_validate(r) for r in _dicts(event.outcome["rerolls"])]
        order = tuple(str(cid) for cid in _seq(event.outcome["order"]))
        # The faces the ruling names are the recorded dice it cites, in the order drawn.
        drawn = [r.die for r in rolls] + [r.die for r in rerolls]
        assert drawn == [faces[seq] for seq in event.roll_seqs]
        # A total order: every roller exactly once, and the order that was applied.
        assert sorted(order) == sorted(r.combatant_id for r in rolls)
        ordered = table.events[index + 1]
        assert isinstance(ordered, InitiativeOrdered)
        assert ordered.order == order
        # GD-INIT-1/2: total, then reaction, then the re-rolls, round by round.
        by_id = {r.combatant_id: r for r in rolls}
        for first, second in itertools.pairwise(order):
            a, b = by_id[first], by_id[second]
            assert (a.total, a.reaction) >= (b.total, b.reaction)
            if (a.total, a.reaction) == (b.total, b.reaction):
                rounds_a = {r.round: r.die for r in rerolls if r.combatant_id == first}
                rounds_b = {r.round: r.die for r in rerolls if r.combatant_id == second}
                split = min(n for n in rounds_a if rounds_a[n] != rounds_b.get(n))
                assert rounds_a[split] > rounds_b[split]
        # Fixed by the dice: the same faces give the same order again.
        assert initiative_order(rolls, _replaying(r.die for r in rerolls)).order == order


@SETTINGS
@given(fights(), st.data())
def test_a_command_not_legal_now_is_refused_and_leaves_the_version_unchanged(
    table: Table, data: st.DataObject
) -> None:
    play(table, data, data.draw(st.integers(0, 30)))
    legal = {(entry.command, entry.combatant) for entry in aggregate.legal_commands(table.state)}
    kind = data.draw(st.sampled_from(GLORIOUS_DRIVE.commands))
    acting = "combatant_id" in kind.model_fields
    who = data.draw(st.sampled_from(IDS)) if acting else None
    if (kind.command_type, who) in legal:
        return
    command = concrete(
        LegalCommand(command=kind.command_type, issuer="gm", combatant=who), table, data
    )
    version, logged, before = table.state.version, len(table.events), table.state
    with pytest.raises((RuleViolation, CommandRefused)):
        table.do(command)
    assert table.state is before
    assert table.state.version == version
    assert len(table.events) == logged


def _replaying(faces: Iterable[int]) -> Callable[[int, str], int]:
    """A `draw` that gives back recorded faces in order."""
    recorded = iter(faces)
    return lambda _sides, _purpose: next(recorded)


def _dicts(value: object) -> list[dict[str, Any]]:
    return [dict(item) for item in _seq(value)]


def _seq(value: object) -> list[Any]:
    assert isinstance(value, list | tuple)
    return list(value)


def _int(value: object) -> int:
    assert isinstance(value, int)
    return value
