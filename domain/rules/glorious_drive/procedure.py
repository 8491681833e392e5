"""Where a Glorious Drive turn stands and which commands it awaits: GD-TURN, GD-MAIN, GD-REACT.

A step accepts its own commands and those of later steps of the same phase, so a character
that neither swaps weapons nor moves simply declares its action (GD-MAIN-4: not moving
counts as waiting). Every command a combatant's controller may issue, the GM may issue too.
"""

from __future__ import annotations

import functools

from domain.frozen import last_answer
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.commands import Step
from domain.rules.glorious_drive.state import GdCombatant, GdState, PendingAttack
from domain.rules.glorious_drive.targeting import lies_across
from domain.rules.ruleset import Command, LegalCommand, ProcedurePoint

# Which commands each step awaits is declared on their handlers (`legal=`, commands.py Step):
# the procedure below says who may issue them, and when the step is reached.
_awaited = cmd.DECLARED.awaited_in
# GD-MAIN-5: a step accepts its own commands and those of later steps of the same phase.
_FROM_STEP: dict[str, tuple[Step, ...]] = {
    "weapon_swap": ("weapon_swap", "move"),
    "move": ("move",),
    "action": (),
}


def procedure(state: GdState) -> ProcedurePoint:
    """GD-TURN-1: turn, phase, step, who acts, and every command awaited now."""
    in_main = state.phase == "main_action"
    return ProcedurePoint(
        turn=state.turn,
        phase=state.phase,
        step=state.step if in_main else None,
        acting=state.acting,
        awaiting=tuple(legal_commands(state)),
    )


@last_answer
def legal_commands(state: GdState) -> list[LegalCommand]:
    """Every command legal now, and who may issue it."""
    if state.phase == "over":
        return []
    table = [_gm(c) for c in _awaited("any_time")]
    if state.phase in ("setup", "initiative"):
        return [*(_gm(c) for c in _awaited("initiative")), *table]
    acting = state.acting
    if acting is None:
        return table
    combatant = state.combatants[acting]
    if state.step == "reaction" and state.pending is not None:
        situation = [_gm(c) for c in _awaited("situation")]
        return [*_reactions(state, state.pending), *situation, *table]
    if state.step == "cleanup":
        later = _past_an_empty_cleanup(state, combatant)
        return [*_start_of_phase(state, combatant), *later, *table]
    if state.pending_loan is not None:  # GD-MAIN-5 C: the borrower's consent is awaited
        borrower = state.pending_loan.borrower
        return [*(_by(c, borrower) for c in _awaited("loan")), *table]
    steps = _steps(acting, state.step)
    spent = acting in state.actions_spent
    return [*steps, *_skills(combatant, state.step, spent=spent), *_actions(acting, spent), *table]


@functools.lru_cache(maxsize=4096)
def _actions(acting: str, spent: bool) -> tuple[LegalCommand, ...]:
    """GD-MAIN-5 A–F (a step accepts the commands of later steps of the same phase); the
    same nine entries for a combatant all fight long, so built once."""
    if spent:
        return tuple(_by(c, acting) for c in _awaited("action_spent"))
    other = (_gm_for(c, acting) for c in _awaited("other_action"))
    return (*(_by(c, acting) for c in _awaited("action")), *other)


def _steps(acting: str, step: str) -> list[LegalCommand]:
    return [_by(c, acting) for s in _FROM_STEP[step] for c in _awaited(s)]


def _skills(combatant: GdCombatant, step: str, *, spent: bool) -> list[LegalCommand]:
    """GD-MAIN-4 B / GD-MAIN-5 B: skills at their own timing only (uses checked on use)."""
    legal = []
    if step in ("weapon_swap", "move") and combatant.has_skill("movement"):
        legal += [_by(c, combatant.id) for c in _awaited("movement_skill")]
    if combatant.has_skill("active") and not spent:
        legal += [_by(c, combatant.id) for c in _awaited("active_skill")]
    return legal


def nothing_to_clean_up(combatant: GdCombatant) -> bool:
    """GD-MAIN-2 has nothing to do: no status to end or check, no faint to recover from."""
    return combatant.can_react and not combatant.statuses


def _past_an_empty_cleanup(state: GdState, combatant: GdCombatant) -> list[LegalCommand]:
    """Issue 19: a cleanup with nothing to clean up is no one's choice, so the next step's
    commands are legal at once and the cleanup runs by itself before them (ruleset.decide);
    waiting and delaying (GD-MAIN-1, GD-INIT-3) stay open until the character goes on."""
    if not nothing_to_clean_up(combatant):
        return []
    acting = combatant.id
    steps = _steps(acting, "weapon_swap")
    spent = acting in state.actions_spent
    skills = _skills(combatant, "weapon_swap", spent=spent)
    return [*steps, *skills, *_actions(acting, spent)]


def _start_of_phase(state: GdState, combatant: GdCombatant) -> list[LegalCommand]:
    # GD-INJ-1: a fainted character acts in no phase; only its cleanup check remains, which
    # runs by itself (turn.fainted_cleanups_by_themselves): a stream recorded before that
    # may still rest here, so the explicit command stays legal.
    cleanup = [_by(c, combatant.id) for c in _awaited("cleanup")]
    if not combatant.can_react:
        return cleanup
    delay = []
    if state.acting_index < len(state.order) - 1:  # GD-INIT-3: only later
        delay = [_by(c, combatant.id) for c in _awaited("delay")]
    return [*(_by(c, combatant.id) for c in _awaited("start_of_phase")), *delay, *cleanup]


def _reactions(state: GdState, attack: PendingAttack) -> list[LegalCommand]:
    legal: list[LegalCommand] = []
    for defender_id in attack.defenders:
        defender = state.combatants[defender_id]
        steps: list[Step] = ["reaction"]
        if _can_guard(defender):
            steps.append("guard")
        if defender.has_skill("counter"):
            steps.append("counter")
        if any(i.timing == "reaction" for i in defender.items):  # GD-MAIN-8
            steps.append("reaction_item")
        legal += [_by(c, defender_id) for s in steps for c in _awaited(s)]
    legal += [_by(c, i) for i in interceptors(state, attack) for c in _awaited("intercept")]
    return legal


def _can_guard(combatant: GdCombatant) -> bool:
    weapon = combatant.weapon(combatant.main_weapon)
    return weapon is not None and weapon.cut is not None


def interceptors(state: GdState, attack: PendingAttack) -> list[str]:
    """GD-REACT-3: characters an attack on one target passes across (not for areas)."""
    if attack.area or attack.point is not None:
        return []
    origin = state.combatants[attack.attacker].position
    found = []
    for candidate in state.combatants.values():
        if candidate.id == attack.attacker or candidate.id in attack.defenders:
            continue
        if not candidate.can_react:
            continue
        if any(
            lies_across(
                origin,
                state.combatants[d].position,
                candidate.position,
                options=state.options,
            )
            for d in attack.defenders
        ):
            found.append(candidate.id)
    return found


# Built once per command (and combatant): every command asks which commands are legal, and a
# LegalCommand is frozen, so one instance serves every answer (a validation saved each time).
@functools.lru_cache(maxsize=64)
def _gm(command: type[Command]) -> LegalCommand:
    return LegalCommand(command=command.command_type, issuer="gm")


@functools.lru_cache(maxsize=4096)
def _by(command: type[Command], combatant: str) -> LegalCommand:
    return LegalCommand(command=command.command_type, issuer="controller", combatant=combatant)


@functools.lru_cache(maxsize=4096)
def _gm_for(command: type[Command], combatant: str) -> LegalCommand:
    return LegalCommand(command=command.command_type, issuer="gm", combatant=combatant)


# GD-INJ: the rule that keeps an injured character out of action, and what it means now.
_OUT: dict[str, tuple[str, str]] = {
    "faint": ("GD-INJ-1", "has fainted and acts in no phase; its cleanup check runs by itself"),
    "shutdown": ("GD-INJ-1", "has shut down (an Assault Core's faint) and acts no more"),
    "critical": ("GD-INJ-2", "is in critical condition: out of action until the scenario ends"),
    "incapacitated": ("GD-INJ-3", "is incapacitated: out of action until the scenario ends"),
    "dead": ("GD-INJ-4", "is dead (lost for good) and acts no more"),
}
# The same, in the seed's words (気絶, 機能停止, 重体, 再起不能, 死亡・ロスト).
_OUT_JA: dict[str, str] = {
    "faint": "気絶しており、"
    "どのフェイズでも行動できません（クリーンナップステップで判定を自動で行います）",
    "shutdown": "機能停止しており（アサルトコアの気絶）、もう行動できません",
    "critical": "重体です：シナリオ終了まで行動できません",
    "incapacitated": "再起不能です：シナリオ終了まで行動できません",
    "dead": "死亡し（ロスト）、もう行動できません",
}


def refusal(state: GdState, command: Command) -> RuleViolation | None:
    """GD-INJ-1..4: an injured combatant's command is refused by its injury's rule."""
    combatant = state.combatants.get(command.combatant or "")
    if combatant is None or combatant.injury not in _OUT:
        return None
    rule_id, why = _OUT[combatant.injury]
    return RuleViolation(
        rule_id,
        f"{combatant.name} ({combatant.id}) {why}: {command.command_type} is refused",
        ja=f"{combatant.name}（{combatant.id}）は{_OUT_JA[combatant.injury]}：{cmd.DECLARED.named_ja(command.command_type)}は行えません",
    )
