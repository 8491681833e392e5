"""The automatic start of a round: WZ-2 combat start and WZ-3 fatigue; phase entries, TP gains.

Nothing here waits on the table: each step follows from the state and the options.
"""

from __future__ import annotations

from domain.rules.outcome import Decision
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round.fatigue import fatigue
from domain.rules.wizardry_round.phases import PHASE_LABELS
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.state import Phase
from domain.rules.wizardry_round.tp import Starter, combat_start_gains, enemy_tp


def enter(run: Run, phase: Phase, round_: int | None = None) -> None:
    """Record the move to `phase` (of a new round when `round_` is given)."""
    r = run.state.round if round_ is None else round_
    run.emit(
        ev.PhaseEntered,
        round=r,
        phase=phase,
        summary_en=f"round {r}: {PHASE_LABELS[phase].en} phase",
        summary_ja=f"第{r}ラウンド：{PHASE_LABELS[phase].ja}",
    )


def combat_start(run: Run) -> None:
    """WZ-2 / WZ-2a: each able character not yet started readies a weapon and gains TP (an
    enemy into its side's pool, WZ-6a)."""
    state = run.state
    starting = [c for c in state.combatants.values() if not c.started and c.able]
    if not starting:
        return
    starters = [
        Starter(combatant=c.id, pool=state.pool_of(c), strategy=c.sheet.strategy) for c in starting
    ]
    gains = combat_start_gains(starters, state.credited, state.options.tp_pool)
    run.rule(
        Decision(
            rule_ids=("WZ-2", "WZ-2a", *enemy_tp(starting)),
            inputs={"starters": tuple(s.model_dump() for s in starters)},
            outcome={"gains": tuple({"pool": p, "gain": g} for p, g in gains.items())},
            options={"tp_pool": state.options.tp_pool},
            summary_en=f"combat start: {', '.join(s.combatant for s in starters)}",
            summary_ja=f"戦闘開始：{'、'.join(s.combatant for s in starters)}",
        )
    )
    for c in starting:
        weapon = c.sheet.weapon_to_ready
        run.emit(
            ev.CombatStarted,
            combatant=c.id,
            weapon=weapon,
            strategy=c.sheet.strategy,
            summary_en=f"{c.id} readies {weapon or 'no weapon'}",
            summary_ja=f"{c.id}が{weapon or '素手'}を構える",
        )
    for pool, gain in gains.items():
        gain_tp(run, pool, gain, "WZ-2")


def gain_tp(run: Run, pool: str, gain: int, rule_id: str) -> None:
    """A pool gains TP (nothing is recorded for a gain of 0)."""
    if gain <= 0:
        return
    tp = run.state.tp.get(pool, 0) + gain
    run.emit(
        ev.TpGained,
        pool=pool,
        gain=gain,
        tp=tp,
        rule_id=rule_id,
        summary_en=f"{pool} gains {gain} TP ({rule_id}): {tp}",
        summary_ja=f"{pool}がTPを{gain}点獲得（{rule_id}）：{tp}",
    )


def fatigue_phase(run: Run) -> None:
    """WZ-3: every combatant's penalties for the rounds elapsed; a change is recorded."""
    options = run.state.options
    elapsed = run.state.round - 1  # WZ-3c: the rounds completed before this one
    for c in list(run.state.combatants.values()):
        level = fatigue(c.sheet.endurance, c.sheet.fatigue, elapsed, options)
        now = (level.step, level.die_penalty, level.ac_penalty, level.collapsed)
        if now == (c.fatigue_step, c.die_penalty, c.ac_penalty, c.collapsed):
            continue
        decision = level.decision(c.id, options)
        run.rule(decision)
        run.emit(
            ev.FatigueChanged,
            combatant=c.id,
            step=level.step,
            die_penalty=level.die_penalty,
            ac_penalty=level.ac_penalty,
            collapsed=level.collapsed,
            summary_en=decision.summary_en,
            summary_ja=decision.summary_ja,
        )
