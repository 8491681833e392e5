"""Exact rounding of rule arithmetic (percentages and ratios) to whole numbers."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

Rounding = Literal["floor", "round", "ceil"]


def round_fraction(value: Fraction, mode: Rounding) -> int:
    """Round an exact value: floor, ceil, or "round" = nearest with halves going up.

    Halves go up (not to even, as Python's round() does) because players compute by hand
    and expect 12.5 → 13; the interpretations that use this are GD-STAT-2a and GD-HPS-3.
    """
    if mode == "floor":
        return math.floor(value)
    if mode == "ceil":
        return math.ceil(value)
    return math.floor(value + Fraction(1, 2))


def percent_of(value: int, percent: int) -> Fraction:
    """GD-STAT-2, GD-COST-1, GD-DMG-4: `value × percent / 100` exactly; round once, on purpose."""
    return Fraction(value * percent, 100)
