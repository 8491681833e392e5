"""WZ-5 declarations and WZ-6 strategy (formations paid with TP)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.encounter import aggregate
from domain.rules.errors import RuleViolation
from domain.rules.records import RulingRecorded
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from tests.unit.encounter.table import of_type
from tests.unit.rules.wizardry_round.table import P1, WzTable, party, sheet


def declaring() -> WzTable:
    table = party()
    table.do(cmd.EndPhase())
    return table


@pytest.mark.parametrize(
    "fields",
    [
        {"form": "a", "sub": "combat move", "main": "attack", "passive": "shield"},
        {"form": "a", "sub": "combat move", "main": "attack"},  # the usual passive
        {"form": "b", "sub": "combat move", "main": "attack", "two_handed_attack": True},
        {"form": "c", "full": "full attack", "free": ("shout",)},
    ],
    ids=["a", "a_usual_passive", "b_two_handed", "c_with_free"],
)
def test_WZ_5_each_form_of_declaration_is_accepted(fields: dict[str, Any]) -> None:
    table = declaring()
    table.do(cmd.Declare(combatant_id="fighter", ini=15, **fields), by=P1)
    assert table.wz.declarations["fighter"].form == fields["form"]


@pytest.mark.parametrize(
    "fields",
    [
        {
            "form": "a",
            "sub": "move",
            "main": "attack",
            "passive": "shield",
            "two_handed_attack": True,
        },
        {"form": "b", "sub": "move", "main": "attack", "passive": "shield"},
        {"form": "c", "full": "full attack", "main": "attack"},
        {"form": "c"},
        {"form": "a", "main": "attack", "full": "full attack"},
    ],
    ids=["two_handed_forfeits_passive", "b_with_passive", "c_with_main", "c_empty", "a_full"],
)
def test_WZ_5_a_declaration_outside_the_three_forms_is_refused(fields: dict[str, Any]) -> None:
    table = declaring()
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Declare(combatant_id="fighter", ini=15, **fields), by=P1)
    assert refused.value.rule_id == "WZ-5"
    assert table.state == before


def test_WZ_5_the_declared_ini_may_be_lower_but_not_above_the_characters_ini() -> None:
    table = declaring()
    with pytest.raises(RuleViolation, match="above") as refused:
        table.declare("fighter", 16)
    assert refused.value.rule_id == "WZ-5"
    table.declare("fighter", 12)
    assert table.wz.declarations["fighter"].ini == 12


def test_WZ_5_strategy_follows_once_everyone_able_has_declared() -> None:
    table = declaring()
    table.declare("fighter", 15)
    table.declare("mage", 13)
    assert table.wz.phase == "declaration"
    table.declare("goblin", 11)
    assert table.wz.phase == "strategy"


def strategist(tp_pool: str = "party_highest") -> WzTable:
    """Given: a fighter with the Formation 'wedge', declarations done, strategy phase."""
    table = (
        WzTable()
        .open(tp_pool=tp_pool)
        .join("fighter", "p1", "pc", sheet(15, strategy=1, formations=["wedge"]))
        .join("goblin", "gm", "enemy", sheet(11))
    )
    table.do(cmd.ResolveSurprise(note="none"))
    table.do(cmd.EndPhase())
    table.declare("fighter", 15)
    table.declare("goblin", 11)
    return table


def test_WZ_6_the_party_gains_1_TP_in_the_strategy_phase() -> None:
    table = strategist()
    assert table.wz.tp["pc"] == 2  # Strategy 1 + 1 (the enemy side: tests of WZ-6a)


def test_WZ_6_a_formation_is_paid_from_the_pool() -> None:
    table = strategist()
    table.do(cmd.DeclareFormation(combatant_id="fighter", formation="wedge", cost=2), by=P1)
    assert table.wz.tp["pc"] == 0
    assert table.wz.formations == ("wedge",)


def test_WZ_6_a_formation_is_refused_when_the_pool_is_short() -> None:
    table = strategist()
    with pytest.raises(RuleViolation, match="costs 3 TP") as refused:
        table.do(cmd.DeclareFormation(combatant_id="fighter", formation="wedge", cost=3), by=P1)
    assert refused.value.rule_id == "WZ-6"


def test_WZ_6_only_a_formation_the_character_knows_may_be_declared() -> None:
    table = strategist()
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.DeclareFormation(combatant_id="fighter", formation="crane", cost=1), by=P1)
    assert refused.value.rule_id == "WZ-6"


def test_WZ_6_a_strategy_phase_with_no_formation_to_declare_ends_by_itself() -> None:
    """Issue 19: given no one in combat with a Formation, when the GM rolls initiative,
    then the strategy phase ends by itself first, citing WZ-6, and the roll follows."""
    table = party()
    table.do(cmd.EndPhase())
    for cid, ini in {"fighter": 15, "mage": 13, "goblin": 11}.items():
        table.declare(cid, ini)
    assert table.wz.phase == "strategy"
    legal = {c.command for c in aggregate.legal_commands(table.state)}
    assert {"EndPhase", "RollInitiative"} <= legal
    events = table.do(cmd.RollInitiative(representative="fighter"), faces=[5, 5])
    ruling = of_type(events, RulingRecorded)[0]
    assert (ruling.rule_ids, ruling.outcome) == (("WZ-6",), {"advanced": "strategy"})
    entered = [e.phase for e in of_type(events, ev.PhaseEntered)]
    assert entered == ["initiative", "action"]


def test_WZ_6_with_a_formation_to_declare_the_strategy_phase_waits_for_the_gm() -> None:
    table = strategist()
    legal = {c.command for c in aggregate.legal_commands(table.state)}
    assert "RollInitiative" not in legal
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.RollInitiative(representative="fighter"), faces=[5, 5])
    assert refused.value.rule_id == "WZ-8"
    assert "DeclareFormation(fighter)" in refused.value.detail


def test_WZ_5_a_character_stopped_before_declaring_is_not_awaited() -> None:
    table = declaring()
    table.declare("fighter", 15)
    table.declare("goblin", 11)
    table.do(cmd.InflictStatus(target="mage", status="sleep", incapacitating=True))
    assert table.wz.phase == "strategy"
