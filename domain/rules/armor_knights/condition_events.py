"""Armor Knights facts on armour, move limits and the end of the duel (AK-ARM, AK-MOV-2, AK-WIN).

Like the other AK events, each carries the values it leaves (stored and checked armour).
"""

from __future__ import annotations

from typing import Literal

from domain.events import registry
from domain.rules.armor_knights.events import Logged
from domain.rules.armor_knights.state import Lasts, Mode


class ArmorEffectApplied(Logged):
    """AK-ARM-1: an armour change; the stored and the checked value after it."""

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

    event_type = "ak.MoveLimitImposed"
    unit: str
    penalty: int
    cannot_move: bool


class UnitShotDown(Logged):
    """AK-ARM-2: a stored armour value at −5 or below."""

    event_type = "ak.UnitShotDown"
    unit: str
    armor: str
    value: int


class SideWon(Logged):
    """AK-WIN-1: the side that won, and by which condition."""

    event_type = "ak.SideWon"
    side: str
    condition: Literal["shot_down", "first_move_total", "situational"]


registry.register(ArmorEffectApplied, MoveLimitImposed, UnitShotDown, SideWon)
