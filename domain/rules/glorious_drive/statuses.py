"""Statuses (変調): inflicted with a resistance check, run down at cleanup.

GD-CHK-2 (statuses), GD-REACT-7 (status resistance, interpretation GD-REACT-7a), GD-MAIN-2
(removal and recovery checks, interpretation GD-CHK-2a). Duration: a status starts with its
effect value in turns; each failed cleanup check counts one down, and at a cleanup with none
left its duration has ended and it is removed without a check.
"""

from __future__ import annotations

from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import condition_events as cev
from domain.rules.glorious_drive.checks import status_recovery_check, status_resistance_check
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.state import GdCombatant
from domain.rules.outcome import Decision


@DECLARED.command(cmd.InflictStatus, legal="any_time", en="Inflict Status", ja="状態異常を与える")
def inflict_status(run: Run, command: cmd.InflictStatus) -> None:
    """GD-CHK-2 / GD-REACT-7: the GM's status; resisted when a difficulty is known and met."""
    target = run.state.combatant(command.target, "GD-CHK-2")
    difficulty = command.resist_difficulty
    if difficulty is None:
        difficulty = run.state.options.status_resistance_default_difficulty
    if difficulty is not None and _resisted(run, target, difficulty):
        return
    run.rule(
        Decision(
            rule_ids=("GD-CHK-2",),
            inputs={"status": command.status, "effect_value": command.effect_value},
            outcome={"target": target.id},
            summary_en=f"GM: {target.id} suffers {command.status} ({command.effect_value})",
            summary_ja=f"GM裁定：{target.id}に変調「{command.status}」({command.effect_value})",
        )
    )
    run.emit(
        cev.StatusInflicted,
        combatant=target.id,
        status=command.status,
        effect_value=command.effect_value,
    )


def _resisted(run: Run, target: GdCombatant, difficulty: int) -> bool:
    die = run.draw_for(target.id)(100, "GD-REACT-7 resistance")
    check = status_resistance_check(
        target.sheet.stats.resistance, die, difficulty, options=run.state.options
    )
    run.rule(check.decision())
    return check.success


def run_down_statuses(run: Run, combatant: GdCombatant) -> None:
    """GD-MAIN-2: each status ends, or makes its recovery check and counts a turn down."""
    for status in combatant.statuses:
        if status.turns_left <= 0:
            run.emit(
                cev.StatusExpired,
                combatant=combatant.id,
                status=status.name,
                reason="duration_ended",
            )
            continue
        die = run.draw_for(combatant.id)(100, f"GD-MAIN-2 recovery {status.name}")
        check = status_recovery_check(
            combatant.sheet.stats.resistance, status.effect_value, die, options=run.state.options
        )
        run.rule(check.decision())
        if check.success:
            run.emit(
                cev.StatusExpired, combatant=combatant.id, status=status.name, reason="recovered"
            )
        else:
            run.emit(
                cev.StatusDurationElapsed,
                combatant=combatant.id,
                status=status.name,
                turns_left=status.turns_left - 1,
            )
