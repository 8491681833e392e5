"""Damage step (ダメージステップ) and guard (防御): GD-DMG-1..4, GD-REACT-4."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.options import GloriousDriveOptions, SituationTarget
from domain.rules.glorious_drive.rounding import percent_of
from domain.rules.glorious_drive.situation import (
    SituationGrade,
    check_situation,
    situation_grade_range,
)
from domain.rules.outcome import Decision

__all__ = [
    "DamageResult",
    "SituationGrade",
    "can_pay_guard_cost",
    "minimum_guaranteed_damage",
    "pay_guard_cost",
    "resolve_damage",
    "situation_grade_range",
]


class DamageResult(BaseModel):
    """Every number of one damage resolution, from the attack to the HP lost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attack: int
    defence: int
    situation_percent: int
    situation_grade: SituationGrade | None
    situation_applies_to: SituationTarget
    effective_attack: int
    raw_damage: int
    min_dmg: int
    minimum_applied: bool
    damage_before_cut: int
    guarded: bool
    cut: int
    guard_cost: int
    damage: int
    hp_loss: int

    def decision(self) -> Decision:
        """The ruling: GD-DMG-1..4 (and GD-REACT-4 when guarding)."""
        rules = ["GD-DMG-1", "GD-DMG-2"]
        if self.situation_percent:
            rules.append("GD-DMG-4")
        if self.guarded:
            rules += ["GD-DMG-3", "GD-REACT-4"]
        data = self.model_dump()
        inputs = {
            k: data[k]
            for k in (
                "attack",
                "defence",
                "situation_percent",
                "situation_grade",
                "cut",
                "guard_cost",
            )
        }
        outcome = {k: v for k, v in data.items() if k not in inputs}
        outcome.pop("situation_applies_to")
        guard = f", guard cost {self.guard_cost} then cut {self.cut}" if self.guarded else ""
        return Decision(
            rule_ids=tuple(rules),
            inputs=inputs,
            outcome=outcome,
            options={"situation_bonus_applies_to": self.situation_applies_to},
            summary_en=f"attack {self.effective_attack} − defence {self.defence}: damage "
            f"{self.damage_before_cut} (minimum {self.min_dmg}){guard}; HP loss {self.hp_loss}",
            summary_ja=f"攻撃{self.effective_attack}−防御{self.defence}：ダメージ"
            f"{self.damage_before_cut}（最低保証{self.min_dmg}）"
            + (f"、防御で生命{self.guard_cost}消費・カット{self.cut}" if self.guarded else "")
            + f"。生命減少{self.hp_loss}",
        )


def minimum_guaranteed_damage(attack: int) -> int:
    """GD-DMG-2: 最低保証ダメージ = ceil(attack / 10), from the attack at the moment of damage."""
    _require_non_negative("GD-DMG-2", "attack", attack)
    return -(-attack // 10)


def can_pay_guard_cost(hp: int, cost: int) -> bool:
    """GD-REACT-4: a guard whose HP cost would leave HP negative cannot be declared.

    A cost of 0 pays nothing, so it is allowed even at negative HP: the clause forbids
    HP *becoming* negative through the payment, and nothing is paid.
    """
    _require_non_negative("GD-REACT-4", "guard cost", cost)
    return cost == 0 or hp - cost >= 0


def pay_guard_cost(hp: int, cost: int) -> int:
    """GD-REACT-4 / GD-DMG-3: HP after paying a guard's cost (not damage, never cut)."""
    if not can_pay_guard_cost(hp, cost):
        raise RuleViolation(
            "GD-REACT-4",
            f"guard costs {cost} HP but HP is {hp}; paying would leave {hp - cost}",
            ja=f"【防御】のコストは生命 {cost} ですが、生命は {hp} です。"
            f"払うと {hp - cost} になります",
        )
    return hp - cost


def resolve_damage(
    attack: int,
    defence: int,
    *,
    cut: int | None,
    options: GloriousDriveOptions,
    guard_cost: int = 0,
    situation_percent: int = 0,
    situation_grade: SituationGrade | None = None,
) -> DamageResult:
    """GD-DMG-1..4, GD-REACT-4: damage from final attack and defence, then a guard's cut.

    `cut` is None without a guard. The guard cost is paid before the cut and is not
    reduced by it (seed: 「5を消費した後に 8-10=-2」→ 0, HP loss 5); the caller checks
    `can_pay_guard_cost` against current HP before the guard is declared.
    """
    _require_non_negative("GD-DMG-1", "attack", attack)
    _require_non_negative("GD-DMG-1", "defence", defence)
    _check_guard(cut, guard_cost)
    check_situation(situation_percent, situation_grade)
    target = options.situation_bonus_applies_to
    effective_attack = _with_bonus(attack, situation_percent, "attack", target)
    raw = max(0, effective_attack - defence)
    min_dmg = minimum_guaranteed_damage(effective_attack)
    before_cut = _with_bonus(max(raw, min_dmg), situation_percent, "damage", target)
    cut_value = cut or 0
    # GD-DMG-3: the cut also eats the minimum guarantee, and damage never goes below 0.
    damage = max(0, before_cut - cut_value)
    return DamageResult(
        attack=attack,
        defence=defence,
        situation_percent=situation_percent,
        situation_grade=situation_grade,
        situation_applies_to=target,
        effective_attack=effective_attack,
        raw_damage=raw,
        min_dmg=min_dmg,
        minimum_applied=raw < min_dmg,
        damage_before_cut=before_cut,
        guarded=cut is not None,
        cut=cut_value,
        guard_cost=guard_cost,
        damage=damage,
        hp_loss=guard_cost + damage,
    )


def _with_bonus(value: int, percent: int, here: SituationTarget, target: SituationTarget) -> int:
    # GD-DMG-4a: the bonus lands in one place only — on the attack before defence, or on
    # the damage after the minimum guarantee and before the cut; floor keeps it whole.
    return math.floor(percent_of(value, 100 + percent)) if here == target else value


def _check_guard(cut: int | None, guard_cost: int) -> None:
    _require_non_negative("GD-REACT-4", "guard cost", guard_cost)
    if cut is None:
        if guard_cost:
            raise RuleViolation(
                "GD-REACT-4",
                f"a guard cost of {guard_cost} needs a guard with a cut value",
                ja=f"【防御】のコスト {guard_cost} には、カット値のある【防御】が必要です",
            )
        return
    _require_non_negative("GD-DMG-3", "cut", cut)


def _require_non_negative(rule_id: str, name: str, value: int) -> None:
    if value < 0:
        raise RuleViolation(
            rule_id,
            f"{name} must be 0 or more, not {value}",
            ja=f"{name} は0以上です（{value} ではなく）",
        )
