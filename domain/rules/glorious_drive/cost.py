"""Equipment cost over capacity (装備力のコスト超過): GD-COST-1..3."""

from __future__ import annotations

import math
from fractions import Fraction

from pydantic import BaseModel, ConfigDict

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.outcome import Decision


class SkillStepHp(BaseModel):
    """GD-COST-3: the max HP while a costed skill's step lasts, and current HP in that step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    equipment_max_hp: int  # GD-COST-1 max from equipment alone, outside the step
    step_max_hp: int
    hp_before: int
    hp_in_step: int
    clamped: bool
    skill_cost_clamps_hp: bool

    def decision(self) -> Decision:
        """The ruling: GD-COST-1 and GD-COST-3 (GD-COST-2 when current HP was clamped)."""
        rules = (
            ("GD-COST-1", "GD-COST-3", "GD-COST-2") if self.clamped else ("GD-COST-1", "GD-COST-3")
        )
        return Decision(
            rule_ids=rules,
            inputs={"equipment_max_hp": self.equipment_max_hp, "hp_before": self.hp_before},
            outcome={
                "step_max_hp": self.step_max_hp,
                "hp_in_step": self.hp_in_step,
                "clamped": self.clamped,
            },
            options={"skill_cost_clamps_hp": self.skill_cost_clamps_hp},
            summary_en=f"max HP {self.step_max_hp} during the skill step; HP {self.hp_in_step}",
            summary_ja=f"スキル使用ステップ中の最大生命{self.step_max_hp}、生命{self.hp_in_step}",
        )


def max_hp_under_cost(max_hp: int, capacity: int, total_cost: int) -> int:
    """GD-COST-1: max HP drops by the excess of cost over capacity, in %, never below 1."""
    if max_hp < 1:
        raise RuleViolation(
            "GD-COST-1",
            f"max HP must be at least 1, not {max_hp}",
            ja=f"最大生命は1以上です（{max_hp} ではなく）",
        )
    excess = max(0, total_cost - capacity)
    return max(1, math.floor(Fraction(max_hp * (100 - excess), 100)))


def clamp_current_hp(current: int, new_max: int) -> int:
    """GD-COST-2: current HP above the new max drops to it; below, it is unchanged.

    A later rise of max does not raise current HP, which `min` gives for free.
    """
    return min(current, new_max)


def skill_step_hp(
    max_hp: int,
    capacity: int,
    equipment_cost: int,
    skill_cost: int,
    current_hp: int,
    *,
    options: GloriousDriveOptions,
) -> SkillStepHp:
    """GD-COST-3 (option GD-COST-3a): max HP during the step a costed skill is declared in.

    With `skill_cost_clamps_hp` the GD-COST-2 clamp applies to the temporary max and is not
    undone after the step (HP never rises by itself); without it, current HP is untouched
    and the lower max only caps what the step could heal.
    """
    step_max = max_hp_under_cost(max_hp, capacity, equipment_cost + skill_cost)
    clamps = options.skill_cost_clamps_hp
    hp_in_step = clamp_current_hp(current_hp, step_max) if clamps else current_hp
    return SkillStepHp(
        equipment_max_hp=max_hp_under_cost(max_hp, capacity, equipment_cost),
        step_max_hp=step_max,
        hp_before=current_hp,
        hp_in_step=hp_in_step,
        clamped=hp_in_step < current_hp,
        skill_cost_clamps_hp=clamps,
    )
