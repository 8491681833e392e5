"""TP: WZ-2 / WZ-2a combat start (all three pool readings) and WZ-7 gains from the roll."""

from __future__ import annotations

import pytest

from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round.tp import initiative_gain
from tests.unit.rules.wizardry_round.table import party, to_initiative


@pytest.mark.parametrize(
    ("tp_pool", "expected"),
    [
        ("party_highest", {"pc": 2}),
        ("party_sum", {"pc": 3}),
        ("per_character", {"fighter": 2, "mage": 1}),
    ],
)
def test_WZ_2a_combat_start_tp_under_each_pool_reading(
    tp_pool: str, expected: dict[str, int]
) -> None:
    table = party(tp_pool=tp_pool)  # fighter Strategy 2, mage Strategy 1, goblin 0
    assert table.wz.tp == expected


@pytest.mark.parametrize(
    ("tp_pool", "pool", "before", "after"),
    [("party_highest", "pc", 3, 5), ("per_character", "mage", 2, 4)],
)
def test_WZ_2a_the_initiative_roll_feeds_the_representatives_pool(
    tp_pool: str, pool: str, before: int, after: int
) -> None:
    table = party(tp_pool=tp_pool)
    to_initiative(table, {"fighter": 15, "mage": 13, "goblin": 11})
    assert table.wz.tp[pool] == before
    table.do(cmd.RollInitiative(representative="mage"), faces=[1, 5])  # 2×1 + TP: ≥ 2×1
    assert table.wz.tp[pool] == after


@pytest.mark.parametrize(
    ("die", "tactics", "tp", "gain"),
    [
        (5, 1, 3, 1),  # 5 ≤ 2×1 + 3
        (6, 1, 3, 0),
        (2, 1, 3, 2),  # 2 ≤ 5 / 2
        (3, 1, 3, 1),  # 3 > 2.5: half of 5 is not rounded up
        (1, 0, 0, 1),  # TP ≤ 0: a 1 still gives 1
        (1, 0, -2, 1),
        (2, 0, 0, 0),
        (1, 1, 0, 2),  # 1 ≤ half of 2: the usual +2 is not cut to 1
    ],
)
def test_WZ_7_tp_from_the_pcs_die(die: int, tactics: int, tp: int, gain: int) -> None:
    assert initiative_gain(die, tactics, tp) == gain


@pytest.mark.parametrize(("reading", "tp_after"), [("party_highest", 4), ("representative", 3)])
def test_WZ_7a_the_tactics_level_is_the_partys_highest_or_the_representatives(
    reading: str, tp_after: int
) -> None:
    table = party(initiative_tactics=reading)  # the mage has Tactics 1, the fighter 0
    to_initiative(table, {"fighter": 15, "mage": 13, "goblin": 11})
    table.do(cmd.RollInitiative(representative="fighter"), faces=[5, 5])  # TP 3: 5 ≤ 2×1 + 3
    assert table.wz.tp["pc"] == tp_after
