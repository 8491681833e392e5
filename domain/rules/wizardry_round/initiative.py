"""WZ-7 initiative roll and the innings it leaves (WZ-8 order)."""

from __future__ import annotations

from collections.abc import Mapping

from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision, Scalar
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round.action import open_innings
from domain.rules.wizardry_round.commands import DECLARED
from domain.rules.wizardry_round.options import InitiativeDifference
from domain.rules.wizardry_round.round_start import enter, gain_tp
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.state import Declaration, Inning, WzCombatant
from domain.rules.wizardry_round.tp import initiative_gain, initiative_gain_decision


def difference(pc_die: int, gm_die: int, reading: InitiativeDifference) -> int:
    """WZ-7a: what is added to every enemy's INI."""
    return gm_die - pc_die if reading == "gm_minus_pc" else pc_die - gm_die


def innings(
    declarations: Mapping[str, Declaration],
    combatants: Mapping[str, WzCombatant],
    diff: int,
) -> tuple[Inning, ...]:
    """WZ-7 / WZ-8: declared INI (+ the difference for the GM's side), highest first.

    Equal INI share one inning and act simultaneously.
    """
    acting: dict[int, list[str]] = {}
    for cid, declared in declarations.items():
        ini = declared.ini + (0 if combatants[cid].in_party else diff)
        acting.setdefault(ini, []).append(cid)
    return tuple(Inning(ini=i, members=tuple(acting[i])) for i in sorted(acting, reverse=True))


@DECLARED.command(
    cmd.RollInitiative, legal="initiative", en="Roll Initiative", ja="イニシアチブを振る"
)
def roll_initiative(run: Run, command: cmd.RollInitiative) -> None:
    """WZ-7: 1d10 each for the PCs' representative and the GM; TP from the PCs' die."""
    state = run.state
    rep = state.combatant(command.representative, "WZ-7")
    if not rep.in_party:
        raise RuleViolation(
            "WZ-7",
            f"{rep.id} is not a PC and cannot roll for the PCs",
            ja=f"{rep.id} はPCではないので、PCの代表としてイニシアチブロールを振れません",
        )
    pc_die = run.draw(10, "WZ-7 PCs' representative")
    gm_die = run.draw(10, "WZ-7 GM")
    reading = state.options.initiative_difference
    diff = difference(pc_die, gm_die, reading)
    order = innings(state.declarations, state.combatants, diff)
    listed = " / ".join(f"{i.ini}: {', '.join(i.members)}" for i in order)
    summary_en = f"initiative: PC {pc_die}, GM {gm_die}; enemies' INI {diff:+d}; {listed}"
    summary_ja = f"イニシアチブ：PC {pc_die}、GM {gm_die}、敵のINI{diff:+d}；{listed}"
    seqs = run.rule(
        Decision(
            rule_ids=("WZ-7", "WZ-7a", "WZ-8"),
            inputs={"pc_die": pc_die, "gm_die": gm_die},
            outcome={
                "difference": diff,
                "innings": tuple({"ini": i.ini, "members": ",".join(i.members)} for i in order),
            },
            options={"initiative_difference": reading},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        ev.InitiativeRolled,
        pc_die=pc_die,
        gm_die=gm_die,
        difference=diff,
        innings=order,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )
    _tp_from_roll(run, rep, pc_die, seqs[0])
    enter(run, "action")
    open_innings(run)


def _tp_from_roll(run: Run, rep: WzCombatant, die: int, seq: int) -> None:
    """WZ-7 with WZ-7a (whose Tactics level) and WZ-2a (the pool the roll feeds)."""
    state = run.state
    options = state.options
    tactics = rep.sheet.tactics
    if options.initiative_tactics == "party_highest":
        tactics = max(c.sheet.tactics for c in state.combatants.values() if c.in_party)
    pool = state.pool_of(rep)
    tp = state.tp.get(pool, 0)
    read: dict[str, Scalar] = {
        "tp_pool": options.tp_pool,
        "initiative_tactics": options.initiative_tactics,
    }
    run.rule(initiative_gain_decision(die, tactics, tp, pool, read), cites=(seq,))
    gain_tp(run, pool, initiative_gain(die, tactics, tp), "WZ-7")
