"""Ruleset options: one field per *Interpretation* in RULES.md section GD.

A campaign may switch any of them (house rules); the encounter records the options in
force, so a ruling can be replayed under the other choice to show what would change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.rules.glorious_drive.rounding import Rounding

HpsZeroFloor = Literal["at_least_one", "allow_zero"]
OccupyThreshold = Literal["at_least", "over"]
SituationTarget = Literal["attack", "damage"]
FaintRule = Literal["example", "text"]
LineOfFireRule = Literal["every_shortest_path", "any_shortest_path"]


class GloriousDriveOptions(BaseModel):
    """House-rule switches for Glorious Drive; the defaults are the digest's calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    piloting_rounding: Rounding = Field(
        default="floor",
        description="GD-STAT-2a: rounding of piloting-boosted unit stats (round = halves up).",
    )
    hps_rounding: Rounding = Field(
        default="floor",
        description="GD-HPS-3: rounding of max_hp × carried ratio when a unit enters "
        "a scenario (round = halves up).",
    )
    hps_zero_floor: HpsZeroFloor = Field(
        default="at_least_one",
        description="GD-HPS-3: at_least_one = a unit carried with any HP left (ratio > 0) "
        "enters with at least 1 HP even if rounding gives 0; allow_zero = the rounded value "
        "stands, 0 included. A ratio of 0 always enters at 0.",
    )
    occupy_threshold: OccupyThreshold = Field(
        default="at_least",
        description="GD-SQ-2a: a body occupies squares when its size is at least one square "
        "(at_least) or only when it is larger than one square (over).",
    )
    skill_cost_clamps_hp: bool = Field(
        default=True,
        description="GD-COST-3a: the temporary max of a skill step also clamps current HP "
        "(GD-COST-2), and the clamp is not undone after the step.",
    )
    status_recovery_difficulty: int = Field(
        default=100,
        description="GD-CHK-2a: recovery check difficulty = this base + the status's "
        "effect value (resistance + 1D100 ≥ difficulty).",
    )
    status_resistance_default_difficulty: int | None = Field(
        default=None,
        description="GD-REACT-7a: difficulty of a status resistance check when neither the "
        "skill nor the GM gives one; None = the skill or the GM must give it.",
    )
    situation_bonus_applies_to: SituationTarget = Field(
        default="attack",
        description="GD-DMG-4a: situation bonus raises the attack before defence (attack) "
        "or the damage after the minimum guarantee and before a guard's cut (damage).",
    )
    faint_rule: FaintRule = Field(
        default="example",
        description="GD-INJ-1a: faint when 1D6 + resistance + hp ≤ −1 (example, matches "
        "the seed's worked example) or < −1 (text, the seed's wording).",
    )
    line_of_fire: LineOfFireRule = Field(
        default="every_shortest_path",
        description="GD-SQ-3 / GD-SQ-4 (proposed interpretation GD-SQ-3a): a square is "
        "'across' an occupied square when every shortest orthogonal path to it passes "
        "through one (every_shortest_path), or when any does (any_shortest_path).",
    )
