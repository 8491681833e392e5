"""Situation modifiers (状況修正): GD-DMG-4 grades and the 0–100 % bound."""

from __future__ import annotations

from typing import Literal

from domain.rules.errors import RuleViolation

SituationGrade = Literal["small", "medium", "large", "small_to_large"]

# GD-DMG-4: the seed's rough guide (大まかな判定基準); the ranges overlap at their ends.
# large: target unaware; medium: careless or surrounded; small_to_large: terrain or
# situation advantage, several attacking at once.
_GRADE_RANGES: dict[SituationGrade, tuple[int, int]] = {
    "small": (10, 30),
    "medium": (30, 70),
    "large": (70, 100),
    "small_to_large": (10, 100),
}


def situation_grade_range(grade: SituationGrade) -> tuple[int, int]:
    """GD-DMG-4: the (low, high) percentage bounds of a situation modifier grade."""
    return _GRADE_RANGES[grade]


def check_situation(percent: int, grade: SituationGrade | None) -> None:
    """GD-DMG-4: refuse a bonus outside 0–100 %, or outside its grade's range if graded."""
    if not 0 <= percent <= 100:
        raise RuleViolation(
            "GD-DMG-4",
            f"situation bonus is 0–100 %, not {percent} %",
            ja=f"状況修正のダメージ増加は0～100 %です（{percent} % ではなく）",
        )
    if grade is None:
        return
    low, high = situation_grade_range(grade)
    if not low <= percent <= high:
        raise RuleViolation(
            "GD-DMG-4",
            f"a {grade} situation modifier is {low}–{high} %, not {percent} %",
            ja=f"{grade} の状況修正は {low}～{high} % です（{percent} % ではなく）",
        )
