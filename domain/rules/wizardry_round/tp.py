"""TP (WZ-2, WZ-2a, WZ-6, WZ-7): what each pool gains at combat start, per round and per roll.

WZ-6a: the seed writes its TP gains for the party; the engine keeps TP for the enemy side too,
by the same rules (combat start, strategy, formations), so a GM can play enemy formations.
Initiative TP (WZ-7) comes from the PCs' die only and so feeds only a party pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from domain.rules.outcome import Decision, Scalar
from domain.rules.wizardry_round.options import TpPool
from domain.rules.wizardry_round.state import WzCombatant

ENEMY_TP = "WZ-6a"


class Starter(BaseModel):
    """A character starting combat this round: its pool and its Strategy level."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    combatant: str
    pool: str
    strategy: int


def enemy_tp(combatants: Iterable[WzCombatant]) -> tuple[str, ...]:
    """WZ-6a, cited by a TP ruling when an enemy's pool is among those it credits or debits."""
    return (ENEMY_TP,) if any(not c.in_party for c in combatants) else ()


def combat_start_gains(
    starters: Sequence[Starter], credited: dict[str, int], tp_pool: TpPool
) -> dict[str, int]:
    """WZ-2 / WZ-2a: TP each pool gains from the characters starting combat now.

    Under party_highest a pool holds the highest Strategy among all who have started; a
    late starter (WZ-2: first round it can act) adds only what its level exceeds that by,
    so a party never gains its best level twice.
    """
    gains: dict[str, int] = {}
    for pool in dict.fromkeys(s.pool for s in starters):
        levels = [s.strategy for s in starters if s.pool == pool]
        if tp_pool == "party_highest":
            gains[pool] = max(0, max(levels) - credited.get(pool, 0))
        else:  # party_sum, and per_character (where each pool has one member)
            gains[pool] = sum(levels)
    return gains


def initiative_gain(die: int, tactics: int, tp: int) -> int:
    """WZ-7: TP from the PCs' 1d10: ≤ 2×Tactics + TP → 1; ≤ half of that → 2; a 1 at TP ≤ 0 → 1.

    "Half" is compared as 2d ≤ threshold, so no rounding is needed.
    """
    threshold = 2 * tactics + tp
    gain = 0
    if 2 * die <= threshold:
        gain = 2
    elif die <= threshold:
        gain = 1
    if tp <= 0 and die == 1:
        gain = max(gain, 1)
    return gain


def initiative_gain_decision(
    die: int, tactics: int, tp: int, pool: str, options: dict[str, Scalar]
) -> Decision:
    gain = initiative_gain(die, tactics, tp)
    threshold = 2 * tactics + tp
    return Decision(
        rule_ids=("WZ-7", "WZ-7a", "WZ-2a"),
        inputs={"die": die, "tactics": tactics, "tp": tp, "threshold": threshold, "pool": pool},
        outcome={"gain": gain},
        options=options,
        summary_en=f"initiative TP: d{die} vs 2×{tactics}+{tp}={threshold} → +{gain} TP",
        summary_ja=f"イニシアチブのTP：出目{die}（基準{threshold}）→ TP+{gain}",
    )
