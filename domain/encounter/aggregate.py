"""The Encounter aggregate: generic over rulesets; it checks turn and issuer, the ruleset decides.

`decide` refuses a command that is not legal at this point of the procedure (RuleViolation
citing the ruleset's procedure rule) or that its issuer may not issue (NotPermitted), then
builds the `Dice` and hands the command to the ruleset. Nothing changes on a refusal: the
state is frozen and events are only returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from domain.aggregate import AggregateKind, Decided
from domain.dice import RollResult, Verification, verify, verify_commitment
from domain.encounter.commands import COMMANDS, JoinCombatant, OpenEncounter, RevealSeed
from domain.encounter.errors import NotPermitted, WrongState
from domain.encounter.events import CombatantJoined, EncounterOpened, EncounterSeedRevealed
from domain.encounter.guards import (
    check_dice_before_rulings,
    require_gm,
    require_legal,
    require_open,
    require_running,
)
from domain.encounter.rulesets import ruleset_for
from domain.encounter.snapshot import SNAPSHOTS
from domain.encounter.state import Encounter, evolve, reached
from domain.events import DomainEvent, JsonObject
from domain.rules.records import Dice, DiceSource, EncounterDiceRolled
from domain.rules.ruleset import Command, CommandContext, LegalCommand, ProcedurePoint

_REVEALED = "the server seed is revealed, so server dice would be predictable; enter them by hand"

__all__ = [
    "KIND",
    "Encounter",
    "audit",
    "command_class",
    "decide",
    "decided",
    "evolve",
    "legal_commands",
    "parse_command",
    "procedure",
    "rolls_of",
]

KIND = AggregateKind[Encounter](
    "encounter", lambda i: Encounter(id=i), evolve, lambda s: s.opened, SNAPSHOTS
)


def parse_command(state: Encounter, command_type: str, payload: JsonObject) -> Command:
    """Read a command by name (as the API receives it): the Encounter's or its ruleset's."""
    return command_class(state, command_type).model_validate(payload)


def command_class(state: Encounter, command_type: str) -> type[Command]:
    """The class of the command of that name this encounter takes (its own or its ruleset's:
    rulesets reuse names with other fields)."""
    known = {c.command_type: c for c in COMMANDS}
    if state.opened:
        known |= {c.command_type: c for c in state.ruleset.commands}
    found = known.get(command_type)
    if found is None:
        raise WrongState(f"unknown command {command_type!r}; known: {sorted(known)}")
    return found


def procedure(state: Encounter) -> ProcedurePoint:
    """Where the fight stands and what it awaits (the ruleset's answer)."""
    require_open(state)
    return state.ruleset.procedure(state.rules)


def legal_commands(state: Encounter) -> list[LegalCommand]:
    """Commands legal now, with who may issue them; none once the fight has ended."""
    if not state.opened or state.ended:
        return []
    return state.ruleset.legal_commands(state.rules)


def decide(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
) -> list[DomainEvent]:
    """The events a command leads to, or a refusal that changes nothing.

    `dice` replaces the encounter's own dice (a replay supplies the original faces)."""
    return decided(
        state, command, ctx, server_seed=server_seed, hand_faces=hand_faces, dice=dice
    ).events


def decided(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
) -> Decided[Encounter]:
    """`decide`, with the Encounter its events lead to: the ruleset's state as the ruleset
    reached it while deciding, so no event is evolved twice."""
    events = _decide(state, command, ctx, server_seed=server_seed, hand_faces=hand_faces, dice=dice)
    if isinstance(events, Decided):
        return Decided(events.events, reached(state, events.events, events.state))
    after = state
    for event in events:
        after = evolve(after, event)
    return Decided(events, after)


def _decide(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None,
    hand_faces: Sequence[int] | None,
    dice: Dice | None,
) -> Decided[BaseModel] | list[DomainEvent]:
    meta = {"at": ctx.at, "by": ctx.by}
    match command:
        case OpenEncounter():
            return _open(state, command, ctx)
        case JoinCombatant():
            require_gm(ctx, "bring in a combatant")
            require_running(state)
            if state.controller_of(command.combatant_id) is not None:
                raise WrongState(f"combatant {command.combatant_id!r} has joined already")
            sheet = state.ruleset.sheet_model.model_validate(command.sheet)
            data = command.model_dump() | {"sheet": sheet.model_dump(mode="json")}
            return [CombatantJoined(**data, **meta)]
        case RevealSeed():
            return _reveal(state, command, ctx)
    require_running(state, command)
    require_legal(state, command, ctx)
    if hand_faces is not None and not ctx.is_gm:
        raise NotPermitted("only the GM enters dice rolled by hand")
    if server_seed is not None and not verify_commitment(server_seed, state.commitment):
        raise WrongState("the server seed does not match this encounter's commitment")
    if dice is None:
        dice = Dice(_dice_source(state, ctx, server_seed, hand_faces), by=ctx.by, at=ctx.at)
    outcome = state.ruleset.decide(state.rules, command, dice, ctx)
    dice.check_settled()
    check_dice_before_rulings(state, outcome.events if isinstance(outcome, Decided) else outcome)
    return outcome


def audit(state: Encounter, rolls: Sequence[RollResult]) -> list[Verification]:
    """Recompute every die from the revealed seed (checked against the commitment).

    The rolls come from the encounter's `EncounterDiceRolled` events (`rolls_of`); the state
    keeps only their count, so it does not grow with every die of a long fight.
    """
    if state.revealed_seed is None:
        raise WrongState("the seed is not revealed yet: reveal it before verifying")
    if len(rolls) != state.roll_count:
        raise WrongState(f"{len(rolls)} rolls given, but the encounter recorded {state.roll_count}")
    seed = bytes.fromhex(state.revealed_seed)
    return [
        verify(r, server_seed=seed, stream_id=state.id, commitment=state.commitment) for r in rolls
    ]


def rolls_of(events: Iterable[DomainEvent]) -> list[RollResult]:
    """The recorded rolls among an encounter's events, in roll order."""
    return [e.result for e in events if isinstance(e, EncounterDiceRolled)]


def _dice_source(
    state: Encounter,
    ctx: CommandContext,
    server_seed: bytes | None,
    hand_faces: Sequence[int] | None,
) -> DiceSource:
    faces = tuple(hand_faces) if hand_faces is not None else None
    common = {"stream_id": state.id, "next_roll_seq": state.roll_count, "hand_faces": faces}
    if state.revealed_seed is not None:  # a known seed makes every later server die known
        return DiceSource(**common, why_no_server_dice=_REVEALED)
    return DiceSource(**common, server_seed=server_seed, client_seed=ctx.client_seed)


def _open(state: Encounter, command: OpenEncounter, ctx: CommandContext) -> list[DomainEvent]:
    require_gm(ctx, "open an encounter")
    if state.opened:
        raise WrongState("this encounter is open already")
    ruleset = ruleset_for(command.ruleset_id)
    options = ruleset.options_model.model_validate(command.options).model_dump(mode="json")
    battle_map = ruleset.map_model.model_validate(command.battle_map).model_dump(mode="json")
    return [
        EncounterOpened(
            ruleset_id=ruleset.id,
            ruleset_version=ruleset.version,
            options=options,
            battle_map=battle_map,
            commitment=command.commitment,
            campaign_id=command.campaign_id,
            scenario_id=command.scenario_id,
            at=ctx.at,
            by=ctx.by,
        )
    ]


def _reveal(state: Encounter, command: RevealSeed, ctx: CommandContext) -> list[DomainEvent]:
    require_gm(ctx, "reveal the seed")
    require_open(state)
    if state.revealed_seed is not None:
        return []  # revealing twice changes nothing
    if not verify_commitment(bytes.fromhex(command.server_seed), state.commitment):
        raise WrongState("that seed does not match the commitment published at opening")
    return [EncounterSeedRevealed(server_seed=command.server_seed, at=ctx.at, by=ctx.by)]
