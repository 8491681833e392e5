"""WZ-6a: the seed writes its TP gains for the party; the engine keeps TP for the enemy side by
the same rules (combat start, strategy, formations), and every such ruling cites WZ-6a."""

from __future__ import annotations

from domain.rules.records import RulingRecorded
from domain.rules.wizardry_round import commands as cmd
from tests.unit.encounter.table import of_type
from tests.unit.rules.wizardry_round.table import WzTable, sheet


def ogres(*, with_enemy: bool = True) -> WzTable:
    """Given: a fighter (Strategy 1) and, unless left out, an ogre chief (Strategy 2, the
    Formation 'phalanx'); combat started, declarations done: the strategy phase."""
    table = WzTable().open().join("fighter", "p1", "pc", sheet(15, strategy=1))
    if with_enemy:
        table.join("ogre", "gm", "enemy", sheet(9, strategy=2, formations=["phalanx"]))
    table.do(cmd.ResolveSurprise(note="none"))
    table.do(cmd.EndPhase())
    table.declare("fighter", 15)
    if with_enemy:
        table.declare("ogre", 9)
    return table


def cites_6a(table: WzTable, first_rule: str) -> list[bool]:
    rulings = [r for r in of_type(table.events, RulingRecorded) if r.rule_ids[0] == first_rule]
    return ["WZ-6a" in r.rule_ids for r in rulings]


def test_WZ_6a_the_enemy_side_keeps_tp_from_combat_start_and_strategy() -> None:
    table = ogres()
    assert table.wz.phase == "strategy"
    assert table.wz.tp == {"pc": 2, "enemy": 3}  # Strategy 1 + 1; the ogre's 2 + 1
    assert cites_6a(table, "WZ-2") == [True]
    assert cites_6a(table, "WZ-6") == [True]


def test_WZ_6a_an_enemy_formation_is_paid_from_the_enemy_pool() -> None:
    table = ogres()
    table.do(cmd.DeclareFormation(combatant_id="ogre", formation="phalanx", cost=3))
    assert table.wz.tp == {"pc": 2, "enemy": 0}
    assert cites_6a(table, "WZ-6")[-1]


def test_WZ_6a_is_not_cited_when_only_the_party_gains_or_spends_tp() -> None:
    table = ogres(with_enemy=False)
    assert table.wz.tp == {"pc": 2}
    assert cites_6a(table, "WZ-2") == [False]
    assert cites_6a(table, "WZ-6") == [False]
