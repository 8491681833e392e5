"""GD-RLD-1..3: reload interval and reload time."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.reload import after_attack, after_reload, loaded


def test_GD_RLD_1_given_interval_2_then_two_attacks_empty_the_weapon() -> None:
    ammo = after_attack(after_attack(loaded(interval=2, reload_time=1)))
    with pytest.raises(RuleViolation, match="GD-RLD-1: out of ammunition after 2 attacks"):
        after_attack(ammo)


def test_GD_RLD_2_given_reload_time_2_then_two_reloads_not_in_a_row_restore_the_interval() -> None:
    """Seed: 「リロード時間が2の銃で攻撃をした場合、合計2回のリロードを行うことで、再びリロード
    間隔分まで攻撃を行える」, and the reloads may span turns and need not be consecutive."""
    ammo = after_attack(loaded(interval=3, reload_time=2))
    half = after_reload(ammo)
    with pytest.raises(RuleViolation, match="GD-RLD-3"):
        after_attack(half)  # a different action may happen in between: nothing changes
    full = after_reload(half)
    assert (full.shots_left, after_attack(full).shots_left) == (3, 2)


def test_GD_RLD_2_given_a_weapon_not_empty_then_reload_never_exceeds_the_interval() -> None:
    assert after_reload(loaded(interval=3, reload_time=1)).shots_left == 3


def test_GD_RLD_3_given_reload_time_2_when_reloading_a_loaded_weapon_then_it_is_locked() -> None:
    ammo = after_reload(loaded(interval=3, reload_time=2))
    assert ammo.shots_left == 3
    with pytest.raises(RuleViolation, match=r"GD-RLD-3: reload under way \(1 of 2 actions\)"):
        after_attack(ammo)


def test_GD_RLD_1_when_interval_or_time_is_below_1_then_it_is_refused() -> None:
    with pytest.raises(RuleViolation, match="GD-RLD-1"):
        loaded(interval=0, reload_time=1)
