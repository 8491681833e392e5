"""Where an Armor Knights turn stands and which commands it awaits (AK-TURN-1, AK-ORD-1).

With an attack open, only its target may answer (counter-attack, evade, emergency move) and
the GM rules the top check; otherwise the acting unit acts, and its opponent may answer a
move under way. Responses come in either phase (the AK introduction): the target answering
may be the acting unit itself, attacked while it moves. Every command a unit's controller
may issue, the GM may issue too.
"""

from __future__ import annotations

from domain.frozen import last_answer
from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights.commands import Step
from domain.rules.armor_knights.state import AkState, AkUnit, ProcedureStep
from domain.rules.errors import RuleViolation
from domain.rules.ruleset import Command, LegalCommand, ProcedurePoint

# Which commands each step awaits is declared on their handlers (`legal=`, commands.py Step):
# the procedure below says who may issue them, and when the step is reached.
_awaited = cmd.DECLARED.awaited_in


def procedure(state: AkState) -> ProcedurePoint:
    """AK-TURN-1: turn, phase, step (an open check, a move under way), who acts."""
    acting = state.acting
    step: ProcedureStep | None = None
    if state.checks:
        step = "check"
    elif acting is not None and state.combatants[acting].moving is not None:
        step = "moving"
    return ProcedurePoint(
        turn=state.turn,
        phase=state.phase,
        step=step,
        acting=acting,
        awaiting=tuple(legal_commands(state)),
    )


@last_answer
def legal_commands(state: AkState) -> list[LegalCommand]:
    """Every command legal now, and who may issue it."""
    if state.phase == "over":
        return []
    table = _gm("any_time")
    acting = state.acting
    if acting is None:
        return [*_gm("first_move"), *table]
    if state.checks:
        target = state.combatants[state.checks[-1].target]
        return [*_responses(state, target), *_gm("ruling"), *table]
    unit = state.combatants[acting]
    legal = _by("act", acting)
    if unit.moving is not None:
        legal += _by("moving", acting)
        other = state.opponent(acting)
        if other.response_points > 0 and other.sheet.has("counter_attack"):
            legal += _by("counter_attack", other.id)  # answering the move under way
    if unit.sheet.has("reload") and unit.loads:
        legal += _by("reload", acting)
    if unit.sheet.has("swap"):  # AK-SWP-1: a combat skill, offered only once acquired
        legal += _by("swap", acting)
    return [*legal, *_by("end_phase", acting), *table]


def _responses(state: AkState, target: AkUnit) -> list[LegalCommand]:
    """AK-ORD-1: the target of the top check answers it (points are checked on use)."""
    if target.response_points <= 0:
        return []
    legal = []
    if target.sheet.has("counter_attack"):
        legal += _by("counter_attack", target.id)
    if target.sheet.has("evade") and not state.checks[-1].evading:
        legal += _by("evade", target.id)
    responsive = any(f.timing == "response" for f in target.sheet.fixed_moves)
    if target.sheet.has("response_move") or responsive:
        legal += _by("response_move", target.id)
    return legal


def _gm(step: Step) -> list[LegalCommand]:
    """The GM's commands of this step."""
    return [LegalCommand(command=c.command_type, issuer="gm") for c in _awaited(step)]


def _by(step: Step, unit: str) -> list[LegalCommand]:
    """The commands of this step, for the unit's controller."""
    return [
        LegalCommand(command=c.command_type, issuer="controller", combatant=unit)
        for c in _awaited(step)
    ]


def refusal(state: AkState, command: Command) -> RuleViolation | None:
    """A unit shot down acts no more (AK-ARM-2); a target out of response points cannot
    answer the check against it (AK-TURN-3)."""
    unit = state.combatants.get(command.combatant or "")
    if unit is None:
        return None
    refused = f"{command.command_type} is refused"
    if unit.shot_down:
        return RuleViolation(
            "AK-ARM-2",
            f"{unit.name} ({unit.id}) was shot down: {refused}",
            ja=f"{unit.name}（{unit.id}）は撃墜されました：{cmd.DECLARED.named_ja(command.command_type)}は行えません",
        )
    answering = state.checks and state.checks[-1].target == unit.id
    if answering and unit.response_points <= 0:
        return RuleViolation(
            "AK-TURN-3",
            f"{unit.name} ({unit.id}) has 0 response points left (restored at the end of the"
            f" opponent's phase): {refused}",
            ja=f"{unit.name}（{unit.id}）は対応動作の値が 0 です（相手フェイズの終わりに回復）："
            f"{cmd.DECLARED.named_ja(command.command_type)}は行えません",
        )
    return None
