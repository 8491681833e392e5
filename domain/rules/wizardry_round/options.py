"""Ruleset options: one field per *Interpretation* in RULES.md section WZ.

A campaign may switch any of them (house rules); the encounter records the options in
force, so a ruling can be replayed under the other choice to show what would change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TpPool = Literal["party_highest", "party_sum", "per_character"]
FatigueAcAfterSecond = Literal["rise", "hold"]
NonPositiveInterval = Literal["count_as_one", "collapse"]
InitiativeDifference = Literal["gm_minus_pc", "pc_minus_gm"]
InitiativeTactics = Literal["party_highest", "representative"]


class WizardryRoundOptions(BaseModel):
    """House-rule switches for the WZ round procedure; the defaults are the digest's calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tp_pool: TpPool = Field(
        default="party_highest",
        description="WZ-2a: TP is one pool per side that gains the highest Strategy level "
        "among its characters starting combat (party_highest), their sum (party_sum), or "
        "each character keeps its own TP (per_character).",
    )
    # The default was `rise` until the digest's correction (issue 21): the seed names only the
    # die past 2k. An encounter keeps the value recorded when it opened (EncounterOpened.options
    # holds every option, defaults filled in), so encounters opened before still rise.
    fatigue_ac_after_second: FatigueAcAfterSecond = Field(
        default="hold",
        description="WZ-3a: past the second fatigue step AC stays at +4 while the die penalty "
        "grows (hold, the seed naming only the die: 「以降…ダイス目+2が累積していき」) or "
        "rises with it (rise).",
    )
    nonpositive_fatigue_interval: NonPositiveInterval = Field(
        default="count_as_one",
        description="WZ-3b: when endurance − Fatigue level ≤ 0 the interval counts as 1 "
        "(count_as_one), or every step is reached at once and the character starts "
        "collapsed (collapse, the literal reading of 'rounds elapsed reach k').",
    )
    initiative_difference: InitiativeDifference = Field(
        default="gm_minus_pc",
        description="WZ-7a: the initiative roll difference added to every enemy's INI is "
        "GM − PC (a higher GM roll speeds the enemies) or PC − GM.",
    )
    initiative_tactics: InitiativeTactics = Field(
        default="party_highest",
        description="WZ-7a: the Tactics level in the initiative TP threshold is the highest "
        "in the party (party_highest) or the representative's own (representative); the "
        "seed names no one.",
    )
