"""Armor Knights facts on armour, move limits and the end of the duel (AK-ARM, AK-MOV-2, AK-WIN).

Like the other AK events, each carries the values it leaves (stored and checked armour).
"""

from __future__ import annotations

from typing import Literal

from domain.events import registry, sample
from domain.rules.armor_knights.events import Logged
from domain.rules.armor_knights.state import Lasts, Mode


class ArmorEffectApplied(Logged):
    """AK-ARM-1: an armour change; the stored and the checked value after it."""

    model_config = sample(
        unit="blue",
        armor="physical",
        amount=-5,
        mode="treated",
        lasts="turn",
        stored=10,
        effective=5,
    )

    event_type = "ak.ArmorEffectApplied"
    unit: str
    armor: str
    amount: int
    mode: Mode
    lasts: Lasts
    stored: int
    effective: int


class MoveLimitImposed(Logged):
    """AK-MOV-2: "move −X this turn" or "cannot move", until the turn ends."""

    model_config = sample(unit="red", penalty=1, cannot_move=False)

    event_type = "ak.MoveLimitImposed"
    unit: str
    penalty: int
    cannot_move: bool


class UnitShotDown(Logged):
    """AK-ARM-2: a stored armour value at −5 or below."""

    model_config = sample(unit="blue", armor="physical", value=-5)

    event_type = "ak.UnitShotDown"
    unit: str
    armor: str
    value: int


class SideWon(Logged):
    """AK-WIN-1: the side that won, and by which condition."""

    model_config = sample(side="red", condition="shot_down")

    event_type = "ak.SideWon"
    side: str
    condition: Literal["shot_down", "first_move_total", "situational"]


registry.register(ArmorEffectApplied, MoveLimitImposed, UnitShotDown, SideWon)
