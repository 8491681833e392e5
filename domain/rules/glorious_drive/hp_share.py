"""HP ratio shared between a pilot and their Assault Core: GD-HPS-1..3."""

from __future__ import annotations

from fractions import Fraction

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.rounding import round_fraction


def carried_ratio(hp: int, max_hp: int) -> Fraction:
    """GD-HPS-1/3: the ratio a scenario carries, clamp(hp / max_hp, 0, 1), exactly.

    Pass the unit the pilot last fought in (the Assault Core if one was deployed).
    Negative HP carries 0: the share is of HP *lost*, and no unit loses more than all.
    """
    if max_hp < 1:
        raise RuleViolation(
            "GD-HPS-3",
            f"max HP must be at least 1, not {max_hp}",
            ja=f"最大生命は1以上です（{max_hp} ではなく）",
        )
    return min(Fraction(1), max(Fraction(0), Fraction(hp, max_hp)))


def entering_hp(max_hp: int, ratio: Fraction, options: GloriousDriveOptions) -> int:
    """GD-HPS-1..3: HP of a unit at the carried ratio (options hps_rounding, hps_zero_floor).

    Used both for the pilot's HP at the scenario result (GD-HPS-1) and for the unit that
    enters the next scenario (GD-HPS-2); `max_hp` is that unit's own, after GD-COST.
    """
    if max_hp < 1:
        raise RuleViolation(
            "GD-HPS-3",
            f"max HP must be at least 1, not {max_hp}",
            ja=f"最大生命は1以上です（{max_hp} ではなく）",
        )
    if not 0 <= ratio <= 1:
        raise RuleViolation(
            "GD-HPS-3",
            f"a carried ratio is between 0 and 1, not {ratio}",
            ja=f"引き継ぐ割合は0から1の間です（{ratio} ではなく）",
        )
    if ratio == 0:
        return 0
    hp = round_fraction(max_hp * ratio, options.hps_rounding)
    # Some HP left means the unit is not carried as if it had lost everything.
    return max(1, hp) if options.hps_zero_floor == "at_least_one" else hp
