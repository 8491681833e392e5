"""Stats (能力値) and the piloting boost of units: GD-STAT-1..2."""

from __future__ import annotations

from collections.abc import Mapping

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.rounding import Rounding, percent_of, round_fraction

# GD-STAT: the stat keys, exactly as in the digest's table.
STAT_KEYS: tuple[str, ...] = (
    "phys_atk",
    "phys_def",
    "perc_atk",
    "perc_def",
    "evasion",
    "melee_hit",
    "ranged_hit",
    "move",
    "hp",
    "reaction",
    "piloting",
    "resistance",
    "capacity",
)


def boosted_unit_stats(
    base: Mapping[str, int],
    slot_contributions: Mapping[str, int],
    piloting: int,
    rounding: Rounding,
) -> dict[str, int]:
    """GD-STAT-2 (with GD-STAT-2a rounding): a unit's stats under its pilot's piloting.

    Every stat in `base` (the unit's own stats, equipment included) gets +piloting %:
    piloting 150 → × 2.5. `slot_contributions` (skill slots and accessory slots) are added
    afterwards, unboosted (「操縦による変化はスキル枠とアクセサリ枠には影響しません」).
    Rounding happens per stat, after the boost and before the unboosted part is added.
    """
    _check_keys(base)
    _check_keys(slot_contributions)
    if piloting < 0:
        raise RuleViolation(
            "GD-STAT-2",
            f"piloting is a percentage boost ≥ 0, not {piloting}",
            ja=f"操縦は0以上の割合（%）による強化です（{piloting} ではなく）",
        )
    boosted = {k: round_fraction(percent_of(v, 100 + piloting), rounding) for k, v in base.items()}
    for key, extra in slot_contributions.items():
        boosted[key] = boosted.get(key, 0) + extra
    return boosted


def _check_keys(stats: Mapping[str, int]) -> None:
    unknown = sorted(set(stats) - set(STAT_KEYS))
    if unknown:
        raise RuleViolation(
            "GD-STAT-1",
            f"unknown stat keys {unknown}; known: {list(STAT_KEYS)}",
            ja=f"不明な能力値 {unknown} です。既知の能力値：{list(STAT_KEYS)}",
        )
