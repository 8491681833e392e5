"""Ruleset options: one field per *Interpretation* in RULES.md section AK."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FirstMoveTies = Literal["reroll", "keep_previous"]


class ArmorKnightsOptions(BaseModel):
    """House-rule switches for Armor Knights; the defaults are the digest's calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_move_ties: FirstMoveTies = Field(
        default="reroll",
        description="AK-TURN-2a: a tied first-move roll is rolled again (reroll), or the "
        "side that had the first phase last turn keeps it (keep_previous; a tie in turn 1 "
        "is still rolled again, there being no previous turn).",
    )
