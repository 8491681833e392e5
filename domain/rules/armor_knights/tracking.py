"""AK-TRK-1: an attack follows its target's emergency moves (AK-MOV-3) up to its correction.

M moves (inside the map) count against the M correction, F moves (between cells) against
the F correction; past either, the attack no longer finds its target and misses.
"""

from __future__ import annotations

from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.run import Run
from domain.rules.outcome import Decision


def track(run: Run, mover: str, m: int, f: int) -> None:
    """AK-TRK-1: each attack on `mover` follows while its moves total ≤ the correction."""
    for check in [c for c in run.state.checks if c.target == mover]:
        moved_m, moved_f = check.moved_m + m, check.moved_f + f
        tracked = moved_m <= check.m_correction and moved_f <= check.f_correction
        said = (
            f"{check.attacker}'s attack "
            + ("follows" if tracked else "loses")
            + f" {mover} (moved M{moved_m}/F{moved_f}, "
            f"correction M{check.m_correction}/F{check.f_correction})",
            f"{check.attacker}の攻撃は{mover}の緊急移動（M{moved_m}・F{moved_f}）を"
            + ("追尾" if tracked else "追尾できず外れる")
            + f"（M補正{check.m_correction}・F補正{check.f_correction}）",
        )
        run.rule(
            Decision(
                rule_ids=("AK-TRK-1", "AK-MOV-3"),
                inputs={
                    "attacker": check.attacker,
                    "moved_m": moved_m,
                    "moved_f": moved_f,
                    "m_correction": check.m_correction,
                    "f_correction": check.f_correction,
                },
                outcome={"tracked": tracked},
                summary_en=said[0],
                summary_ja=said[1],
            )
        )
        run.emit(
            ev.TrackingChecked,
            said,
            attacker=check.attacker,
            target=mover,
            moved_m=moved_m,
            moved_f=moved_f,
            tracked=tracked,
        )
        if not tracked:
            run.emit(
                ev.AttackSettled,
                said,
                attacker=check.attacker,
                target=mover,
                outcome="missed",
                rule_id="AK-TRK-1",
            )
