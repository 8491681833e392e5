"""The round around the actions: surprise, the GM-paced phases, and the end of the fight.

WZ-1 (surprise, round 0), then each round: WZ-2 and WZ-3 (automatic, in round_start), the
phases that wait on the table (WZ-4, WZ-6, WZ-9, WZ-10) closed by the GM's EndPhase, WZ-5
closed by the last declaration, WZ-6's +1 TP; the end phase opens the next round.
"""

from __future__ import annotations

from domain.rules.outcome import Decision
from domain.rules.records import EncounterEnded
from domain.rules.ruleset import Command
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round.commands import DECLARED
from domain.rules.wizardry_round.round_start import combat_start, enter, fatigue_phase, gain_tp
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.state import WzState
from domain.rules.wizardry_round.tp import enemy_tp


@DECLARED.command(
    cmd.ResolveSurprise, legal="surprise", en="Resolve Surprise", ja="不意打ちの判定（GM裁定）"
)
def resolve_surprise(run: Run, command: cmd.ResolveSurprise) -> None:
    """WZ-1: the GM's surprise ruling is recorded; then round 1 begins."""
    for cid in command.surprising:
        run.state.combatant(cid, "WZ-1")
    summary_en = f"surprise: {', '.join(command.surprising) or 'nobody'} ({command.note})"
    summary_ja = f"不意打ち：{'、'.join(command.surprising) or 'なし'}（{command.note}）"
    run.rule(
        Decision(
            rule_ids=("WZ-1",),
            inputs={"note": command.note},
            outcome={"surprising": command.surprising},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        ev.SurpriseResolved,
        surprising=command.surprising,
        note=command.note,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )
    begin_round(run)


def begin_round(run: Run) -> None:
    """WZ-2 then WZ-3 (both automatic), then the GM names identifications (WZ-4)."""
    enter(run, "combat_start", run.state.round + 1)
    combat_start(run)
    enter(run, "fatigue")
    fatigue_phase(run)
    enter(run, "identification")


def enter_declaration(run: Run) -> None:
    """WZ-5: declarations open; with no one able to declare, straight on to WZ-6."""
    enter(run, "declaration")
    close_declarations(run)


def close_declarations(run: Run) -> None:
    """WZ-5 → WZ-6 once every character in combat and able to act has declared.

    A character that became able after this round's combat start starts next round (WZ-2),
    so it is not awaited now.
    """
    state = run.state
    if state.phase == "declaration" and all(
        c.id in state.declarations for c in state.combatants.values() if c.started and c.able
    ):
        enter_strategy(run)


def enter_strategy(run: Run) -> None:
    """WZ-6: every pool of a character in combat gains 1 TP; formations may follow.

    The enemy side's pool too (WZ-6a): the seed's "TPを1点獲得する" is written for the party.
    """
    enter(run, "strategy")
    state = run.state
    in_combat = [c for c in state.combatants.values() if c.started]
    pools = list(dict.fromkeys(state.pool_of(c) for c in in_combat))
    run.rule(
        Decision(
            rule_ids=("WZ-6", "WZ-2a", *enemy_tp(in_combat)),
            inputs={"pools": tuple(pools)},
            outcome={"gain": 1},
            options={"tp_pool": state.options.tp_pool},
            summary_en="strategy: each TP pool gains 1",
            summary_ja="兵法：各TPが1点増える",
        )
    )
    for pool in pools:
        gain_tp(run, pool, 1, "WZ-6")


def no_formation_to_declare(state: WzState) -> bool:
    """WZ-6 holds no choice: no character in combat and able to act has a Formation skill
    (the TP gain is automatic, on entering the phase)."""
    return not any(c.started and c.able and c.sheet.formations for c in state.combatants.values())


def strategy_by_itself(run: Run, command: Command) -> None:
    """Issue 19: the GM goes on to the initiative roll (WZ-7) from a strategy phase with no
    Formation to declare; the phase ends by itself first, recorded as such (WZ-6), as if
    `EndPhase` was given (which stays legal)."""
    state = run.state
    if state.phase != "strategy" or not isinstance(command, cmd.RollInitiative):
        return
    if not no_formation_to_declare(state):
        return
    run.rule(
        Decision(
            rule_ids=("WZ-6",),
            inputs={"round": state.round, "formations": 0},
            outcome={"advanced": "strategy"},
            summary_en="strategy: no formation to declare, so the phase ended by itself",
            summary_ja="兵法：宣言できる陣形がないため自動で終了",
        )
    )
    enter(run, "initiative")


@DECLARED.command(cmd.EndPhase, legal="end_phase", en="End Phase", ja="フェイズ終了")
def end_phase(run: Run, command: cmd.EndPhase) -> None:
    """The GM closes the phase that waits on the table; the next one begins."""
    match run.state.phase:
        case "identification":
            enter_declaration(run)
        case "strategy":
            enter(run, "initiative")
        case "recovery":
            enter(run, "end")
        case "end":
            begin_round(run)


@DECLARED.command(cmd.EndCombat, legal="any_time", en="End Combat", ja="戦闘終了")
def end_combat(run: Run, command: cmd.EndCombat) -> None:
    """The GM ends the fight; the seed has no end-of-combat rule, so the section is cited."""
    run.rule(
        Decision(
            rule_ids=("WZ",),
            inputs={"reason": command.reason},
            outcome={"round": run.state.round},
            summary_en=f"combat over: {command.reason}",
            summary_ja=f"戦闘終了：{command.reason}",
        )
    )
    run.emit(EncounterEnded, rule_id="WZ", reason=command.reason)
