"""Checks by dice expression, and the GM's ruling on them (WZ-1, WZ-4, WZ-8, WZ-9, WZ-10).

The seed gives no hit, damage or check formula, so the engine invents none: a check is the
expression the table names (`1D20+5`), each die recorded, the WZ-3 fatigue die penalty
added to a 1d20 check, and the outcome is the GM's, recorded with the numbers.
"""

from __future__ import annotations

from domain.dice import Constant, D66Term, DiceSyntaxError, DiceTerm, parse
from domain.dice.expression import DiceExpression
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision, Value
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round.commands import DECLARED
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.state import CHECK_PHASE, CHECK_RULE, WzCombatant

FATIGUE_DIE = 20  # WZ-3: the penalty is on the die of 1d20 combat checks


@DECLARED.command(cmd.RollCheck, legal="check", en="Roll Check", ja="判定を振る")
def roll_check(run: Run, command: cmd.RollCheck) -> None:
    """Roll the expression for the phase's kind of check; the GM rules on it next."""
    kind = CHECK_PHASE[run.state.phase]
    rule_id = CHECK_RULE[kind]
    who = run.state.combatant(command.combatant_id, rule_id)
    extra: dict[str, Value] = {}
    if kind == "identification":
        extra = _identification(run, who)
    expression = _parsed(command.expression, rule_id)
    faces, total = _rolled(run, expression, f"{rule_id} {who.id}")
    penalty = who.die_penalty if FATIGUE_DIE in expression.die_sides else 0
    total += penalty
    shown = "+".join(str(f) for f in faces)
    summary_en = f"{who.id} {kind} check {expression.canonical}: [{shown}]"
    summary_en += f" + fatigue {penalty} = {total}" if penalty else f" = {total}"
    summary_ja = f"{who.id}の判定 {expression.canonical}：[{shown}]"
    summary_ja += f"＋疲労{penalty}＝{total}" if penalty else f"＝{total}"
    seqs = run.rule(
        Decision(
            rule_ids=(rule_id, "WZ-3"),
            inputs={"combatant": who.id, "expression": expression.canonical, "note": command.note}
            | extra,
            outcome={"faces": faces, "fatigue_penalty": penalty, "total": total},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        ev.CheckRolled,
        combatant=who.id,
        kind=kind,
        expression=expression.canonical,
        faces=faces,
        fatigue_penalty=penalty,
        total=total,
        roll_seqs=seqs,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )


@DECLARED.command(cmd.RuleCheck, legal="ruling", en="Rule Check", ja="判定の裁定（GM）")
def rule_check(run: Run, command: cmd.RuleCheck) -> None:
    """The GM's ruling on the pending check, citing its dice."""
    pending = run.state.pending_check
    if pending is None:
        raise RuleViolation(
            "WZ-8", "no check is waiting for a ruling", ja="裁定を待っているチェックはありません"
        )
    rule_id = CHECK_RULE[pending.kind]
    inputs: dict[str, Value] = {
        "combatant": pending.combatant,
        "expression": pending.expression,
        "fatigue_penalty": pending.fatigue_penalty,
        "total": pending.total,
    }
    named = run.state.identification
    if pending.kind == "identification" and named is not None:
        inputs |= {"target": named.target, "difficulty": named.difficulty}
    verdict = {True: "success", False: "failure", None: "ruled"}[command.success]
    summary_en = f"GM: {pending.combatant}'s {pending.total} — {verdict}: {command.outcome}"
    verdict_ja = {True: "成功", False: "失敗", None: "裁定"}[command.success]
    summary_ja = f"GM裁定：{pending.combatant}の{pending.total}は{verdict_ja}：{command.outcome}"
    run.rule(
        Decision(
            rule_ids=(rule_id,),
            inputs=inputs,
            outcome={"success": command.success, "outcome": command.outcome},
            summary_en=summary_en,
            summary_ja=summary_ja,
        ),
        cites=pending.roll_seqs,
    )
    run.emit(
        ev.CheckRuled,
        combatant=pending.combatant,
        success=command.success,
        outcome=command.outcome,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )


@DECLARED.command(
    cmd.NameIdentification, legal="identification", en="Name Identification", ja="名前の識別"
)
def name_identification(run: Run, command: cmd.NameIdentification) -> None:
    """WZ-4: the GM names the difficulty and the academic skill for one creature."""
    target = run.state.combatant(command.target, "WZ-4")
    summary_en = f"identify {target.id}: {command.skill}, difficulty {command.difficulty}"
    summary_ja = f"{target.id}の正体判別：{command.skill}、難易度{command.difficulty}"
    run.emit(
        ev.IdentificationNamed,
        target=target.id,
        difficulty=command.difficulty,
        skill=command.skill,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )


def may_identify(skill: str | None, who: WzCombatant) -> bool:
    """WZ-4: only characters with the named academic skill may check."""
    return skill is not None and skill in who.sheet.academic_skills


def _identification(run: Run, who: WzCombatant) -> dict[str, Value]:
    named = run.state.identification
    if named is None:
        raise RuleViolation(
            "WZ-4",
            "the GM has not named a difficulty and academic skill yet",
            ja="GMはまだ正体判別の難易度と学術スキル名を告げていません",
        )
    if not may_identify(named.skill, who):
        raise RuleViolation(
            "WZ-4",
            f"{who.id} lacks the academic skill {named.skill!r}",
            ja=f"{who.id} は学術スキル {named.skill!r} を所持していません",
        )
    return {"target": named.target, "difficulty": named.difficulty, "skill": named.skill}


def _parsed(text: str, rule_id: str) -> DiceExpression:
    try:
        expression = parse(text)
    except DiceSyntaxError as error:
        raise RuleViolation(
            rule_id, f"the check cannot be rolled: {error}", ja=f"このチェックは振れません：{error}"
        ) from error
    if expression.comparison is not None:
        raise RuleViolation(
            rule_id,
            f"{text!r}: give no target number; the GM rules on the outcome",
            ja=f"{text!r}：目標値は付けないでください。結果はGMが裁定します",
        )
    return expression


def _rolled(run: Run, expression: DiceExpression, purpose: str) -> tuple[tuple[int, ...], int]:
    """Every die drawn (and so recorded) one by one; the faces in order and the sum."""
    faces: list[int] = []
    total = 0
    for term in expression.terms:
        sign = -1 if term.negative else 1
        match term:
            case Constant(value=value):
                total += value
            case DiceTerm(count=count, sides=sides):
                drawn = [run.draw(sides, purpose) for _ in range(count)]
                faces += drawn
                total += sign * sum(drawn)
            case D66Term():
                tens, units = run.draw(6, purpose), run.draw(6, purpose)
                faces += [tens, units]
                total += sign * (10 * tens + units)
    return tuple(faces), total
