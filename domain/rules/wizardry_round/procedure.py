"""Where a WZ round stands and which commands it awaits (WZ-1..WZ-10).

Every command a combatant's controller may issue, the GM may issue too. A check waiting
for the GM's ruling holds the procedure until it is ruled on, so no roll is left unjudged.
"""

from __future__ import annotations

from domain.frozen import last_answer
from domain.rules.errors import RuleViolation
from domain.rules.ruleset import Command, LegalCommand, ProcedurePoint
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round.checks import may_identify
from domain.rules.wizardry_round.commands import Step
from domain.rules.wizardry_round.state import WzState

# Which commands each step awaits is declared on their handlers (`legal=`, commands.py Step):
# the procedure below says who may issue them, and when the step is reached.
_awaited = cmd.DECLARED.awaited_in


def procedure(state: WzState) -> ProcedurePoint:
    """Round, phase, the inning (its INI and members) and every command awaited now."""
    inning = state.inning
    waiting = state.awaiting_in_inning()
    step = None
    if inning is not None:
        step = f"inning INI {inning.ini}: {', '.join(inning.members)}"
    return ProcedurePoint(
        turn=state.round,
        phase=state.phase,
        step=step,
        # Equal INI act simultaneously, so an inning can have several actors; `acting`
        # holds one only when one is left (the rest are in `awaiting`).
        acting=waiting[0] if len(waiting) == 1 else None,
        awaiting=tuple(legal_commands(state)),
    )


@last_answer
def legal_commands(state: WzState) -> list[LegalCommand]:
    """Every command legal now, and who may issue it."""
    if state.phase == "over":
        return []
    table = _gm("any_time")
    if state.pending_check is not None:
        return [*_gm("ruling"), *table]
    everyone = list(state.combatants)
    checks = [_by(c, who) for who in everyone for c in _awaited("check")]
    match state.phase:
        case "encounter":
            return [*_gm("surprise"), *checks, *table]
        case "identification":
            skill = state.identification.skill if state.identification else None
            skilled = [
                _by(command, c.id)
                for c in state.combatants.values()
                if may_identify(skill, c)
                for command in _awaited("check")
            ]
            return [*_gm("identification"), *_gm("end_phase"), *skilled, *table]
        case "declaration":
            return [*_declarers(state), *table]
        case "strategy":
            formations = _formations(state)
            # Issue 19: with no Formation to declare, WZ-6 holds no choice: the initiative
            # roll is legal at once and the phase ends by itself before it (rounds.py).
            later = [] if formations else _gm("initiative")
            return [*formations, *_gm("end_phase"), *later, *table]
        case "initiative":
            return [*_gm("initiative"), *table]
        case "action":
            waiting = state.awaiting_in_inning()
            turns = [_by(c, m) for m in waiting for c in _awaited("inning")]
            return [*turns, *checks, *table]
        case "recovery" | "end":
            return [*_gm("end_phase"), *checks, *table]
    return table


def _declarers(state: WzState) -> list[LegalCommand]:
    """WZ-5: every character in combat (WZ-2) and able to act declares once a round."""
    return [
        _by(command, c.id)
        for c in state.combatants.values()
        if c.started and c.able and c.id not in state.declarations
        for command in _awaited("declaration")
    ]


def _formations(state: WzState) -> list[LegalCommand]:
    """WZ-6: characters in combat with a Formation skill."""
    return [
        _by(command, c.id)
        for c in state.combatants.values()
        if c.started and c.able and c.sheet.formations
        for command in _awaited("formation")
    ]


def _gm(step: Step) -> list[LegalCommand]:
    """The GM's commands of this step."""
    return [LegalCommand(command=c.command_type, issuer="gm") for c in _awaited(step)]


def _by(command: type[Command], combatant: str) -> LegalCommand:
    return LegalCommand(command=command.command_type, issuer="controller", combatant=combatant)


def refusal(state: WzState, command: Command) -> RuleViolation | None:
    """The rule that keeps a combatant from acting: collapse (WZ-3), surrender (WZ-8 F), or
    an incapacitating status (WZ-8: in effect since the end of the inning it came in)."""
    combatant = state.combatants.get(command.combatant or "")
    if combatant is None:
        return None
    who = f"{combatant.name} ({combatant.id})"
    refused = f"{command.command_type} is refused"
    named = cmd.DECLARED.named_ja(command.command_type)
    if combatant.collapsed:
        return RuleViolation(
            "WZ-3",
            f"{who} has collapsed from fatigue (+10): {refused}",
            ja=f"{who} は疲労（+10）で行動不能です：{named}は行えません",
        )
    if combatant.surrendered:
        return RuleViolation(
            "WZ-8",
            f"{who} has surrendered (F) and acts no more: {refused}",
            ja=f"{who} は降伏（F）し、もう行動しません：{named}は行えません",
        )
    held = [s.name for s in combatant.statuses if s.incapacitating]
    if held:
        return RuleViolation(
            "WZ-8",
            f"{who} cannot act under {', '.join(held)}: {refused}",
            ja=f"{who} は{'、'.join(held)}のため行動できません：{named}は行えません",
        )
    return None
