"""Armour values: "treated as reduced" versus "reduced", their durations, and shot down.

AK-ARM-1: a "treated as" change (〜したものとして) only changes what a check sees; a
"reduced" change (〜する) changes the stored value. Both last the turn unless "until shot
down". AK-ARM-2: a stored value at −5 or below shoots the unit down, which wins (AK-WIN-1);
a value only treated as reduced never does, however low the check sees it.
"""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import condition_events as cev
from domain.rules.armor_knights.commands import DECLARED
from domain.rules.armor_knights.run import Run
from domain.rules.armor_knights.state import AkUnit
from domain.rules.armor_knights.victory import win
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision

SHOT_DOWN_AT = -5


@DECLARED.command(
    cmd.ApplyArmorEffect, legal="any_time", en="Apply Armor Effect", ja="装甲への効果（GM裁定）"
)
def apply_armor_effect(run: Run, command: cmd.ApplyArmorEffect) -> None:
    """AK-ARM-1 (and AK-ARM-2): the GM applies an armour change with its numbers."""
    unit = run.state.unit(command.target, "AK-ARM-1")
    if command.armor not in unit.armor:
        raise RuleViolation(
            "AK-ARM-1",
            f"{unit.id} has no armour value {command.armor!r}",
            ja=f"{unit.id} に装甲値 {command.armor!r} はありません",
        )
    before = unit.armor[command.armor]
    stored = before + command.amount if command.mode == "reduced" else before
    effective = unit.effective(command.armor) + command.amount
    said = (
        f"{unit.id} {command.armor} {command.amount:+d} ({command.mode}, "
        f"{command.lasts}): stored {stored}, checked as {effective}",
        f"{unit.id}の{command.armor}{command.amount:+d}（"
        + ("したものとして" if command.mode == "treated" else "実際に増減")
        + f"・{'そのターンのみ' if command.lasts == 'turn' else '撃墜されるまで'}）："
        f"実数値{stored}、判定値{effective}",
    )
    run.rule(
        Decision(
            rule_ids=("AK-ARM-1",),
            inputs={
                "unit": unit.id,
                "armor": command.armor,
                "amount": command.amount,
                "mode": command.mode,
                "lasts": command.lasts,
                "stored_before": before,
                "reason": command.reason,
            },
            outcome={"stored": stored, "effective": effective},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(
        cev.ArmorEffectApplied,
        said,
        unit=unit.id,
        armor=command.armor,
        amount=command.amount,
        mode=command.mode,
        lasts=command.lasts,
        stored=stored,
        effective=effective,
    )
    # AK-ARM-2: the stored value, never `effective` (a "treated as" change only feeds checks).
    if stored <= SHOT_DOWN_AT and not unit.shot_down:
        _shot_down(run, run.state.combatants[unit.id], command.armor, stored)


def _shot_down(run: Run, unit: AkUnit, armor: str, value: int) -> None:
    winner = run.state.opponent(unit.id).side
    said = (
        f"{unit.id} is shot down ({armor} {value} ≤ −5); {winner} wins",
        f"{unit.id}撃墜（{armor} {value} ≤ −5）：{winner}の勝利",
    )
    run.rule(
        Decision(
            rule_ids=("AK-ARM-2", "AK-WIN-1"),
            inputs={"unit": unit.id, "armor": armor, "value": value},
            outcome={"shot_down": True, "winner": winner},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(cev.UnitShotDown, said, unit=unit.id, armor=armor, value=value)
    win(run, winner, "shot_down", said)


def armor_after_turn(unit: AkUnit) -> dict[str, int]:
    """AK-ARM-1: at turn end a "reduced … this turn" change is undone on the stored value."""
    armor = dict(unit.armor)
    for effect in unit.effects:
        if effect.mode == "reduced" and effect.lasts == "turn":
            armor[effect.armor] -= effect.amount
    return armor


@DECLARED.command(
    cmd.ImposeMoveLimit, legal="any_time", en="Impose Move Limit", ja="移動制限（GM裁定）"
)
def impose_move_limit(run: Run, command: cmd.ImposeMoveLimit) -> None:
    """AK-MOV-2: "move −X this turn" or "cannot move", recorded by the GM until turn end."""
    unit = run.state.unit(command.target, "AK-MOV-2")
    said = (
        f"{unit.id} this turn: move −{command.penalty}"
        + (", cannot move" if command.cannot_move else ""),
        f"{unit.id}はこのターン移動距離－{command.penalty}"
        + ("、移動できない" if command.cannot_move else ""),
    )
    run.rule(
        Decision(
            rule_ids=("AK-MOV-2",),
            inputs={"unit": unit.id, "reason": command.reason},
            outcome={"penalty": command.penalty, "cannot_move": command.cannot_move},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(
        cev.MoveLimitImposed,
        said,
        unit=unit.id,
        penalty=command.penalty,
        cannot_move=command.cannot_move,
    )
