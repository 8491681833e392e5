"""AK-WIN-1: a side wins; the duel ends."""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import condition_events as cev
from domain.rules.armor_knights.commands import DECLARED
from domain.rules.armor_knights.run import Run, Said
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision
from domain.rules.records import EncounterEnded

FIRST_MOVE_TARGET = 20  # AK-WIN-1: a cumulative first-move total reaching 20 wins


def win(run: Run, side: str, condition: str, said: Said) -> None:
    """Record the winner, then end the encounter (the ruling before says why)."""
    # Its own line, not the reason's again: the ruling and EncounterEnded already say why.
    run.emit(cev.SideWon, (f"{side} wins", f"{side}の勝利"), side=side, condition=condition)
    run.emit_plain(EncounterEnded, rule_id="AK-WIN-1", reason=said[0])


def check_first_move_totals(run: Run) -> None:
    """AK-WIN-1: one side's cumulative first-move total reached 20.

    If both reach it in the same turn the rules name no winner, so the duel goes on and
    the GM records the outcome (DeclareVictory).
    """
    reached = sorted(
        (u for u in run.state.combatants.values() if u.first_move_total >= FIRST_MOVE_TARGET),
        key=lambda u: u.id,
    )
    if not reached:
        return
    totals = {u.id: u.first_move_total for u in run.state.combatants.values()}
    sides = tuple(u.side for u in reached)
    said = (
        f"first-move total reached {FIRST_MOVE_TARGET}: {', '.join(sides)}"
        + ("" if len(sides) == 1 else " (both: the GM decides)"),
        f"先攻決定値の累計が{FIRST_MOVE_TARGET}に到達：{'、'.join(sides)}"
        + ("" if len(sides) == 1 else "（両者：GMが裁定）"),
    )
    run.rule(
        Decision(
            rule_ids=("AK-WIN-1",),
            inputs={"totals": tuple({"unit": k, "total": v} for k, v in sorted(totals.items()))},
            outcome={"reached": sides, "winner": sides[0] if len(sides) == 1 else None},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    if len(sides) == 1:
        win(run, sides[0], "first_move_total", said)


@DECLARED.command(cmd.DeclareVictory, legal="any_time", en="Declare Victory", ja="勝利宣言")
def declare_victory(run: Run, command: cmd.DeclareVictory) -> None:
    """AK-WIN-1: a situational condition, recorded by the GM."""
    sides = {u.side for u in run.state.combatants.values()}
    if command.side not in sides:
        raise RuleViolation(
            "AK-WIN-1",
            f"no side {command.side!r} in this duel: {sorted(sides)}",
            ja=f"この対決に陣営 {command.side!r} はありません：{sorted(sides)}",
        )
    said = (
        f"{command.side} wins by a situational condition: {command.reason}",
        f"{command.side}が状況による勝利条件を達成：{command.reason}",
    )
    run.rule(
        Decision(
            rule_ids=("AK-WIN-1",),
            inputs={"side": command.side, "reason": command.reason},
            outcome={"winner": command.side},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    win(run, command.side, "situational", said)
