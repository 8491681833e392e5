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
from domain.rules.armor_knights.state import AkState, AkUnit
from domain.rules.errors import RuleViolation
from domain.rules.ruleset import Command, LegalCommand, ProcedurePoint


def procedure(state: AkState) -> ProcedurePoint:
    """AK-TURN-1: turn, phase, step (an open check, a move under way), who acts."""
    acting = state.acting
    step = None
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
    table = [_gm(cmd.ApplyArmorEffect), _gm(cmd.ImposeMoveLimit), _gm(cmd.DeclareVictory)]
    acting = state.acting
    if acting is None:
        return [_gm(cmd.RollFirstMove), *table]
    if state.checks:
        target = state.combatants[state.checks[-1].target]
        return [*_responses(state, target), _gm(cmd.ResolveAttack), *table]
    unit = state.combatants[acting]
    legal = [_by(cmd.DeclareAttack, acting), _by(cmd.StartMove, acting)]
    if unit.moving is not None:
        legal.append(_by(cmd.AdvanceMove, acting))
        other = state.opponent(acting)
        if other.response_points > 0 and other.sheet.has("counter_attack"):
            legal.append(_by(cmd.DeclareAttack, other.id))  # answering the move under way
    if unit.sheet.has("reload") and unit.loads:
        legal.append(_by(cmd.Reload, acting))
    if unit.sheet.has("swap"):  # AK-SWP-1: a combat skill, offered only once acquired
        legal.append(_by(cmd.SwapWeapons, acting))
    return [*legal, _by(cmd.EndPhase, acting), *table]


def _responses(state: AkState, target: AkUnit) -> list[LegalCommand]:
    """AK-ORD-1: the target of the top check answers it (points are checked on use)."""
    if target.response_points <= 0:
        return []
    legal = []
    if target.sheet.has("counter_attack"):
        legal.append(_by(cmd.DeclareAttack, target.id))
    if target.sheet.has("evade") and not state.checks[-1].evading:
        legal.append(_by(cmd.Evade, target.id))
    responsive = any(f.timing == "response" for f in target.sheet.fixed_moves)
    if target.sheet.has("response_move") or responsive:
        legal.append(_by(cmd.StartMove, target.id))
    return legal


def _gm(command: type[Command]) -> LegalCommand:
    return LegalCommand(command=command.command_type, issuer="gm")


def _by(command: type[Command], unit: str) -> LegalCommand:
    return LegalCommand(command=command.command_type, issuer="controller", combatant=unit)


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
            ja=f"{unit.name}（{unit.id}）は撃墜されました：{command.command_type}は行えません",
        )
    answering = state.checks and state.checks[-1].target == unit.id
    if answering and unit.response_points <= 0:
        return RuleViolation(
            "AK-TURN-3",
            f"{unit.name} ({unit.id}) has 0 response points left (restored at the end of the"
            f" opponent's phase): {refused}",
            ja=f"{unit.name}（{unit.id}）は対応動作の値が 0 です（相手フェイズの終わりに回復）："
            f"{command.command_type}は行えません",
        )
    return None
