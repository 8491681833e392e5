"""A WZ table: the encounter table of tests/unit/encounter, opened under `wizardry_round`.

Dice are entered by hand so each test names its faces; `wz` and `c` read the ruleset state.
"""

from __future__ import annotations

from typing import Any

from domain.dice import commitment
from domain.encounter.commands import OpenEncounter
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round.state import WzCombatant, WzState
from tests.unit.encounter.table import GM, SEED, Table, player

P1, P2 = player("p1"), player("p2")


def sheet(ini: int = 10, *, endurance: int = 10, **fields: Any) -> dict[str, Any]:
    """A sheet: INI, AC 5, endurance 10 (k = 10 unless Fatigue is given), a sword at hand."""
    return {"ini": ini, "ac": 5, "endurance": endurance, "weapons": ["sword"]} | fields


class WzTable(Table):
    """An encounter under the WZ round procedure."""

    def open(self, battle_map: dict[str, Any] | None = None, **options: Any) -> WzTable:
        self.do(
            OpenEncounter(ruleset_id="wizardry_round", options=options, commitment=commitment(SEED))
        )
        return self

    def join(self, cid: str, controller: str, side: str, sheet_: dict[str, Any]) -> WzTable:
        super().join(cid, controller, side, sheet_)
        return self

    @property
    def wz(self) -> WzState:
        rules = self.state.rules
        assert isinstance(rules, WzState)
        return rules

    def wc(self, cid: str) -> WzCombatant:
        return self.wz.combatants[cid]

    def declare(self, cid: str, ini: int, **fields: Any) -> None:
        """A plain (b) declaration: SA combat move + MA normal attack, at `ini`."""
        by = GM if self.wc(cid).controller == "gm" else player(self.wc(cid).controller)
        base = {"form": "b", "sub": "combat move", "main": "attack"}
        self.do(cmd.Declare(combatant_id=cid, ini=ini, **(base | fields)), by=by)


def party(**options: Any) -> WzTable:
    """Given: a fighter (INI 15, Strategy 2) and a mage (INI 13, Strategy 1, Tactics 1)
    against a goblin (INI 11); surprise resolved, round 1 at identification."""
    table = (
        WzTable()
        .open(**options)
        .join("fighter", "p1", "pc", sheet(15, strategy=2, weapons=["sword", "shield"]))
        .join("mage", "p2", "pc", sheet(13, strategy=1, tactics=1, academic_skills=["lore"]))
        .join("goblin", "gm", "enemy", sheet(11))
    )
    table.do(cmd.ResolveSurprise(note="no surprise: both sides saw each other"))
    return table


def to_initiative(table: WzTable, inis: dict[str, int]) -> None:
    """From identification: end it, declare everyone at the given INI, end strategy."""
    table.do(cmd.EndPhase())
    for cid, ini in inis.items():
        table.declare(cid, ini)
    table.do(cmd.EndPhase())
