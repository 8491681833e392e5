"""Dice enter the rules as arguments: faces already rolled, or a `draw` callable.

A calculator that needs a variable number of dice (injury checks, initiative re-rolls)
takes `draw(sides, purpose) -> face`; it calls it only for checks that actually happen,
so the caller's fair-dice generator records exactly the dice that were used.
"""

from __future__ import annotations

from collections.abc import Callable

from domain.rules.errors import RuleViolation
from domain.rules.outcome import DieRoll

Draw = Callable[[int, str], int]


def checked_face(face: int, sides: int, rule_id: str) -> int:
    """RULES.md Dice: refuse a face not on a `sides`-sided die, citing the rule it was for."""
    if not 1 <= face <= sides:
        raise RuleViolation(
            rule_id,
            f"a 1D{sides} cannot show {face}; faces are 1–{sides}",
            ja=f"1D{sides} で {face} は出ません。出目は1～{sides}です",
        )
    return face


def draw_checked(draw: Draw, sides: int, purpose: str, rule_id: str) -> DieRoll:
    """RULES.md Dice: draw one die through the caller (who records it) for `rule_id`."""
    face = checked_face(draw(sides, purpose), sides, rule_id)
    return DieRoll(sides=sides, face=face, purpose=purpose)
