"""The turn around the actions: initiative and delay, wait, cleanup, end of combat.

GD-INIT-1..3, GD-MAIN-1, GD-MAIN-2 (with GD-INJ-1 faint recovery), GD-END-1..3.
"""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import condition_events as cev
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.initiative import InitiativeRoll, apply_delay, initiative_order
from domain.rules.glorious_drive.injury import faint_recovers
from domain.rules.glorious_drive.procedure import nothing_to_clean_up
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.state import GdCombatant
from domain.rules.glorious_drive.statuses import run_down_statuses
from domain.rules.outcome import Decision
from domain.rules.records import EncounterEnded
from domain.rules.ruleset import Command


@DECLARED.command(
    cmd.RollInitiative, legal="initiative", en="Roll Initiative", ja="イニシアチブを振る"
)
def initiative_called(run: Run, command: cmd.RollInitiative) -> None:
    """GD-INIT-1: the GM starts the turn (the command has nothing more to say)."""
    roll_initiative(run)


def roll_initiative(run: Run) -> None:
    """GD-INIT-1/2: everyone still in the fight rolls reaction + 1D6; ties re-roll."""
    able = [c for c in run.state.combatants.values() if not c.out_of_action]
    if not able:
        raise RuleViolation(
            "GD-INIT-1", "no combatant is able to act", ja="行動できる参加者がいません"
        )
    rolls = [
        InitiativeRoll(
            combatant_id=c.id,
            reaction=c.sheet.stats.reaction,
            die=run.draw(6, f"GD-INIT-1 {c.id}"),
        )
        for c in able
    ]
    order = initiative_order(rolls, run.draw)
    run.rule(order.decision())
    run.emit(ev.InitiativeOrdered, turn=run.state.turn + 1, order=order.order)
    run.close_turn_if_done()


@DECLARED.command(cmd.Delay, legal="delay", en="Delay", ja="行動を遅らせる")
def delay(run: Run, command: cmd.Delay) -> None:
    """GD-INIT-3: act right after `after`; the new order is recorded."""
    done = run.state.order[: run.state.acting_index]
    if command.after in done:
        raise RuleViolation(
            "GD-INIT-3",
            f"{command.after!r} has already acted; a delay can only move later",
            ja=f"{command.after!r} はすでに行動しました。行動を遅らせることはできても、"
            "早めることはできません",
        )
    rest = apply_delay(
        run.state.order[run.state.acting_index :], command.combatant_id, command.after
    )
    run.emit(
        ev.ActionDelayed,
        combatant=command.combatant_id,
        after=command.after,
        order=(*done, *rest),
    )


@DECLARED.command(cmd.Wait, legal="start_of_phase", en="Wait", ja="待機")
def wait(run: Run, command: cmd.Wait) -> None:
    """GD-MAIN-1: no step at all this turn."""
    run.emit(ev.CombatantWaited, combatant=command.combatant_id)
    run.close_turn_if_done()


@DECLARED.command(cmd.Cleanup, legal="cleanup", en="Cleanup", ja="クリーンナップ")
def cleanup(run: Run, command: cmd.Cleanup) -> None:
    """GD-MAIN-2: statuses end or get a recovery check; a fainted character re-checks."""
    combatant = run.state.combatant(command.combatant_id)
    run_down_statuses(run, combatant)
    if combatant.injury == "faint" and not _faint_recovered(run, combatant):
        run.emit(ev.CleanupCompleted, combatant=combatant.id)
        run.end_main_action(combatant.id)  # GD-INJ-1: acts in no phase while fainted
        return
    run.emit(ev.CleanupCompleted, combatant=combatant.id)


# Commands of the cleanup step itself, or of the table: they never run the cleanup first.
_AT_CLEANUP = (cmd.Cleanup, cmd.Wait, cmd.Delay, cmd.InflictStatus, cmd.EndCombat)


def cleanup_by_itself(run: Run, command: Command) -> None:
    """Issue 19: the acting character goes on from a cleanup with nothing to clean up; the
    step advances by itself first, recorded as such (GD-MAIN-2), as if `Cleanup` was given."""
    state = run.state
    if state.phase != "main_action" or state.step != "cleanup" or state.acting is None:
        return
    if isinstance(command, _AT_CLEANUP) or command.combatant != state.acting:
        return
    combatant = state.combatant(state.acting)
    if not nothing_to_clean_up(combatant):
        return
    run.rule(
        Decision(
            rule_ids=("GD-MAIN-2",),
            inputs={"combatant": combatant.id, "statuses": 0, "injury": combatant.injury},
            outcome={"advanced": "cleanup"},
            summary_en=f"{combatant.id}'s cleanup: nothing to clean up, so it ran by itself",
            summary_ja=f"{combatant.id}のクリーンナップ：対象がないため自動で終了",
        )
    )
    cleanup(run, cmd.Cleanup(combatant_id=combatant.id))


def fainted_cleanups_by_themselves(run: Run) -> None:
    """Issue 19: a fainted character's phase holds only its cleanup (GD-INJ-1), whose one
    content is the recovery die (GD-MAIN-2): no one chooses anything in it, so it runs as
    soon as the phase comes, recorded as such. With hand dice the encounter then awaits that
    die (the command that led here waits for it: deciding again from the start is the same).
    A character that stays fainted ends its phase, so the next one may be fainted too."""
    while (state := run.state).phase == "main_action" and state.step == "cleanup":
        combatant = state.combatants[state.acting] if state.acting is not None else None
        if combatant is None or combatant.injury != "faint":
            return
        run.rule(
            Decision(
                rule_ids=("GD-MAIN-2", "GD-INJ-1"),
                inputs={"combatant": combatant.id, "injury": combatant.injury},
                outcome={"advanced": "cleanup"},
                summary_en=f"{combatant.id} has fainted: its cleanup (the recovery check) "
                "is no one's choice, so it runs by itself",
                summary_ja=f"{combatant.id}は気絶中：クリーンナップ（回復判定）は選択の余地が"
                "ないため自動で行う",
            )
        )
        cleanup(run, cmd.Cleanup(combatant_id=combatant.id))


def _faint_recovered(run: Run, combatant: GdCombatant) -> bool:
    recovery = faint_recovers(
        combatant.hp,
        combatant.sheet.stats.resistance,
        is_assault_core=combatant.sheet.is_assault_core,
        draw=run.draw_for(combatant.id),
        options=run.state.options,
    )
    check = recovery.check
    face = check.die.face if check is not None else None
    run.rule(
        Decision(
            rule_ids=("GD-INJ-1", "GD-MAIN-2"),
            inputs={"hp": combatant.hp, "resistance": combatant.sheet.stats.resistance},
            outcome={"face": face, "recovered": recovery.recovered},
            options={"faint_rule": run.state.options.faint_rule},
            summary_en=f"{combatant.id} faint recovery: "
            + ("recovered" if recovery.recovered else "still fainted"),
            summary_ja=f"{combatant.id}の気絶回復判定："
            + ("回復" if recovery.recovered else "気絶のまま"),
        )
    )
    if recovery.recovered:
        run.emit(cev.FaintRecovered, combatant=combatant.id)
    return recovery.recovered


@DECLARED.command(cmd.EndCombat, legal="any_time", en="End Combat", ja="戦闘終了")
def end_combat(run: Run, command: cmd.EndCombat) -> None:
    """GD-END-1..3: the GM ends the combat; GD-END-3 needs a side with no one able to fight."""
    sides: dict[str, list[GdCombatant]] = {}
    for combatant in run.state.combatants.values():
        sides.setdefault(combatant.side, []).append(combatant)
    beaten = sorted(s for s, members in sides.items() if not any(m.can_react for m in members))
    if command.clause == "GD-END-3" and not beaten:
        able = "; ".join(
            f"{side}: {', '.join(m.name for m in members if m.can_react)}"
            for side, members in sorted(sides.items())
        )
        raise RuleViolation(
            "GD-END-3",
            f"every side still has someone able to fight ({able})",
            ja=f"どの陣営にもまだ戦える者がいます（{able}）",
        )
    run.rule(
        Decision(
            rule_ids=(command.clause,),
            inputs={"reason": command.reason},
            outcome={"sides_without_fighters": tuple(beaten)},
            summary_en=f"combat over ({command.clause}): {command.reason}",
            summary_ja=f"戦闘終了（{command.clause}）：{command.reason}",
        )
    )
    run.emit(EncounterEnded, rule_id=command.clause, reason=command.reason)
