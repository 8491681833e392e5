"""A table for Armor Knights tests: a GM, two pilots, two knights, and a duel driven by commands.

Built on the encounter test table (load → decide → save); dice are entered by hand so each
test names its faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.dice import commitment
from domain.encounter.commands import OpenEncounter
from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights.state import AkState, AkUnit
from tests.unit.encounter.table import SEED, Table, player

P1, P2 = player("p1"), player("p2")
ALL_ACTIONS = ("evade", "reload", "swap", "counter_attack", "response_move")


def cell(x: int, y: int = 0) -> dict[str, int]:
    return {"x": x, "y": y}


def weapon(name: str = "rifle", range_: str = "far+3", **fields: Any) -> dict[str, Any]:
    return {"name": name, "range": range_} | fields


def knight(
    x: int,
    y: int = 0,
    *,
    weapons: Sequence[dict[str, Any]] | None = None,
    actions: Sequence[str] = ALL_ACTIONS,
    **fields: Any,
) -> dict[str, Any]:
    """A knight: armour 10/8, M move 2, F move 3, 3 active and 2 response points, a rifle."""
    return {
        "armor": {"physical": 10, "beam": 8},
        "m_move": 2,
        "f_move": 3,
        "active_points": 3,
        "response_points": 2,
        "actions": list(actions),
        "weapons": list(weapons) if weapons is not None else [weapon()],
        "cell": cell(x, y),
    } | fields


class Duel(Table):
    """An Armor Knights encounter in progress."""

    def open(self, battle_map: dict[str, Any] | None = None, **options: Any) -> Duel:
        self.do(
            OpenEncounter(
                ruleset_id="armor_knights",
                options=options,
                commitment=commitment(SEED),
                battle_map={"width": 8, "height": 3} | (battle_map or {}),
            )
        )
        return self

    @property
    def ak(self) -> AkState:
        rules = self.state.rules
        assert isinstance(rules, AkState)
        return rules

    def u(self, uid: str) -> AkUnit:
        return self.ak.combatants[uid]


def duel(
    red: dict[str, Any] | None = None,
    blue: dict[str, Any] | None = None,
    *,
    battle_map: dict[str, Any] | None = None,
    **options: Any,
) -> Duel:
    """Red (p1) at cell 0 and blue (p2) at cell 3, not yet started."""
    table = Duel().open(battle_map, **options)
    table.join("red", "p1", "red", red or knight(0))
    table.join("blue", "p2", "blue", blue or knight(3))
    return table


def started(
    red: dict[str, Any] | None = None,
    blue: dict[str, Any] | None = None,
    *,
    battle_map: dict[str, Any] | None = None,
    **options: Any,
) -> Duel:
    """The duel after turn 1's first-move roll: blue 2, red 5 → red takes the first phase."""
    table = duel(red, blue, battle_map=battle_map, **options)
    table.do(cmd.RollFirstMove(), faces=[2, 5])  # units roll in id order: blue, red
    return table
