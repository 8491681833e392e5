"""WZ-8 the action phase: innings in INI order, simultaneous members, deferred bad statuses.

A bad status inflicted during an inning is held until every member of that inning has
acted, so it neither stops nor penalises anything done in the same inning; then it lands,
and a member it incapacitates is passed over in later innings.
"""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round import status_events as sev
from domain.rules.wizardry_round.commands import DECLARED
from domain.rules.wizardry_round.round_start import enter
from domain.rules.wizardry_round.rounds import close_declarations
from domain.rules.wizardry_round.run import Run

# WZ-8 (A)–(F), as the seed letters them.
LETTER = {
    "defensive_stance": "A",
    "combat_move": "B",
    "normal_move": "C",
    "rest": "D",
    "stand_up": "E",
    "surrender": "F",
}


@DECLARED.command(cmd.Act, legal="inning", en="Act", ja="行動する")
def act(run: Run, command: cmd.Act) -> None:
    """WZ-8: the member carries out its declaration (checks go through RollCheck)."""
    inning = _inning(run)
    note = f" — {command.note}" if command.note else ""
    run.emit(
        ev.ActionTaken,
        combatant=command.combatant_id,
        ini=inning,
        note=command.note,
        summary_en=f"INI {inning}: {command.combatant_id} acts as declared{note}",
        summary_ja=f"INI{inning}：{command.combatant_id}が宣言どおり行動{note}",
    )
    open_innings(run)


@DECLARED.command(cmd.DropDeclaration, legal="inning", en="Drop Declaration", ja="宣言を取り下げる")
def drop_declaration(run: Run, command: cmd.DropDeclaration) -> None:
    """WZ-8 (A)–(F): dropped for a fallback that spends sub + main (a passive is kept)."""
    inning = _inning(run)
    cid = command.combatant_id
    declared = run.state.declarations[cid]
    kept = declared.form == "a"  # only (a) has a passive that sub + main leaves alone
    letter = LETTER[command.fallback]
    summary_en = f"INI {inning}: {cid} drops the declaration: ({letter}) {command.fallback}"
    summary_ja = f"INI{inning}：{cid}が宣言を中止し（{letter}）を行う"
    run.rule(
        Decision(
            rule_ids=("WZ-8",),
            inputs={"declared_form": declared.form, "fallback": command.fallback},
            outcome={"spends": ("sub", "main"), "passive_kept": kept},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        ev.DeclarationDropped,
        combatant=cid,
        ini=inning,
        fallback=command.fallback,
        passive_kept=kept,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )
    open_innings(run)


@DECLARED.command(cmd.InflictStatus, legal="any_time", en="Inflict Status", ja="状態異常を与える")
def inflict_status(run: Run, command: cmd.InflictStatus) -> None:
    """WZ-8: a bad status; during an inning it is held until the inning's end."""
    target = run.state.combatant(command.target, "WZ-8")
    inning = run.state.inning
    deferred = inning is not None
    when_en = f" (from the end of inning {inning.ini})" if inning is not None else ""
    when_ja = f"（INI{inning.ini}のイニング終了時から）" if inning is not None else ""
    summary_en = f"GM: {target.id} suffers {command.status}{when_en}"
    summary_ja = f"GM裁定：{target.id}にバッドステータス「{command.status}」{when_ja}"
    run.rule(
        Decision(
            rule_ids=("WZ-8",),
            inputs={"status": command.status, "incapacitating": command.incapacitating},
            outcome={"target": target.id, "deferred": deferred},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        sev.StatusInflicted,
        combatant=target.id,
        status=command.status,
        incapacitating=command.incapacitating,
        deferred=deferred,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )
    close_declarations(run)  # WZ-5: the last one able may just have been stopped


@DECLARED.command(cmd.RemoveStatus, legal="any_time", en="Remove Status", ja="状態異常を解除")
def remove_status(run: Run, command: cmd.RemoveStatus) -> None:
    """WZ-9 (in the recovery phase; WZ-8 otherwise): the GM ends a bad status."""
    rule_id = "WZ-9" if run.state.phase == "recovery" else "WZ-8"
    target = run.state.combatant(command.target, rule_id)
    if all(s.name != command.status for s in target.statuses):
        held = [s.name for s in target.statuses]
        raise RuleViolation(
            rule_id,
            f"{target.id} has no status {command.status!r}: {held}",
            ja=f"{target.id} に状態 {command.status!r} はありません：{held}",
        )
    summary_en = f"GM: {target.id} is rid of {command.status}"
    summary_ja = f"GM裁定：{target.id}の「{command.status}」が回復"
    run.rule(
        Decision(
            rule_ids=(rule_id,),
            inputs={"status": command.status},
            outcome={"target": target.id},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        sev.StatusRemoved,
        combatant=target.id,
        status=command.status,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )


def open_innings(run: Run) -> None:
    """Close every inning with no one left to act; after the last, WZ-9 recovery."""
    while (inning := run.state.inning) is not None and not run.state.awaiting_in_inning():
        _land_deferred(run, inning.ini)
        run.emit(
            ev.InningEnded,
            ini=inning.ini,
            summary_en=f"inning at INI {inning.ini} ends",
            summary_ja=f"INI{inning.ini}のイニング終了",
        )
    if run.state.phase == "action" and run.state.inning is None:
        enter(run, "recovery")


def _land_deferred(run: Run, ini: int) -> None:
    held = run.state.deferred
    if not held:
        return
    landed = tuple(f"{d.combatant}:{d.status.name}" for d in held)
    run.rule(
        Decision(
            rule_ids=("WZ-8",),
            inputs={"inning": ini},
            outcome={"statuses": landed},
            summary_en=f"end of inning {ini}: "
            + ", ".join(f"{d.combatant}'s {d.status.name}" for d in held)
            + (" takes effect" if len(held) == 1 else " take effect"),
            summary_ja=f"INI{ini}のイニング終了："
            + "、".join(f"{d.combatant}の{d.status.name}" for d in held)
            + "が効果を発揮",
        )
    )
    for d in held:
        run.emit(
            sev.StatusTookEffect,
            combatant=d.combatant,
            status=d.status.name,
            incapacitating=d.status.incapacitating,
            summary_en=f"{d.combatant}: {d.status.name} takes effect",
            summary_ja=f"{d.combatant}：「{d.status.name}」が効果を発揮",
        )


def _inning(run: Run) -> int:
    inning = run.state.inning
    if inning is None:
        raise RuleViolation("WZ-8", "no inning is open", ja="開いているイニングはありません")
    return inning.ini
