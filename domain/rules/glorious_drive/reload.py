"""Reload (リロード): GD-RLD-1..4, a weapon's ammunition as a value that rules step on."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from domain.frozen import replaced
from domain.rules.errors import RuleViolation


class WeaponAmmo(BaseModel):
    """A weapon with a reload interval: attacks left, and reload actions done so far."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    interval: int  # リロード間隔: attacks per full load
    reload_time: int  # リロード時間: reload actions needed to refill
    shots_left: int
    reloads_done: int = 0

    @property
    def reloading(self) -> bool:
        """GD-RLD-3: between the first and the last reload action of a multi-action reload."""
        return self.reloads_done > 0


def loaded(interval: int, reload_time: int) -> WeaponAmmo:
    """GD-RLD-1: a weapon starts full (n attacks); interval and reload time are at least 1."""
    if interval < 1 or reload_time < 1:
        raise RuleViolation(
            "GD-RLD-1",
            f"reload interval and reload time are at least 1, not {interval} and {reload_time}",
            ja=f"リロード間隔とリロード時間は1以上です（{interval} と {reload_time} ではなく）",
        )
    return WeaponAmmo(interval=interval, reload_time=reload_time, shots_left=interval)


def after_attack(ammo: WeaponAmmo) -> WeaponAmmo:
    """GD-RLD-1: an attack spends one of the n; refused when empty or mid-reload (GD-RLD-3)."""
    if ammo.reloading:
        raise RuleViolation(
            "GD-RLD-3",
            f"reload under way ({ammo.reloads_done} of {ammo.reload_time} actions); "
            "the weapon cannot attack until it completes",
            ja=f"リロード中です（{ammo.reload_time} 回中 {ammo.reloads_done} 回）。"
            "終わるまでこの武器で攻撃できません",
        )
    if ammo.shots_left == 0:
        raise RuleViolation(
            "GD-RLD-1",
            f"out of ammunition after {ammo.interval} attacks",
            ja=f"{ammo.interval} 回攻撃して弾切れです",
        )
    return replaced(ammo, {"shots_left": ammo.shots_left - 1})


def after_reload(ammo: WeaponAmmo) -> WeaponAmmo:
    """GD-RLD-2/3: one reload action; the t-th restores exactly n (never more).

    Reload actions need not be consecutive and may span turns; reloading a weapon that is
    not empty is allowed, and with t ≠ 1 it locks the weapon until the reload completes.
    """
    done = ammo.reloads_done + 1
    if done >= ammo.reload_time:
        return replaced(ammo, {"shots_left": ammo.interval, "reloads_done": 0})
    return replaced(ammo, {"reloads_done": done})
