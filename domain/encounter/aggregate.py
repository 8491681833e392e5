"""The Encounter aggregate: generic over rulesets; it checks turn and issuer, the ruleset decides.

`decide` refuses a command that is not legal at this point of the procedure (RuleViolation
citing the ruleset's procedure rule) or that its issuer may not issue (NotPermitted), then
builds the `Dice` and hands the command to the ruleset. Nothing changes on a refusal: the
state is frozen and events are only returned. One exception, by design (issue 33 §1): a
refusal after a die from the seed was drawn is itself the outcome, the dice drawn then
`CommandRefusedAfterDice`, so that no answer depends on a die that is not on the record.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeAlias

from pydantic import BaseModel

from domain.aggregate import AggregateKind, Decided
from domain.campaign.bounds import check_texts
from domain.dice import (
    DiceEntryError,
    DiceSyntaxError,
    RollResult,
    Verification,
    verify,
    verify_commitment,
)
from domain.encounter.awaited import (
    AwaitedRollWithdrawn,
    Awaiting,
    EnterDie,
    PendingCommand,
    RollAwaited,
    WithdrawAwaitedRoll,
    awaited_die,
)
from domain.encounter.commands import COMMANDS, JoinCombatant, OpenEncounter, RevealSeed
from domain.encounter.errors import CommandRefused, NotPermitted, WrongState
from domain.encounter.events import CombatantJoined, EncounterOpened, EncounterSeedRevealed
from domain.encounter.guards import (
    check_dice_before_rulings,
    require_gm,
    require_legal,
    require_open,
    require_running,
)
from domain.encounter.owners import Entry, die_for, hand_gate
from domain.encounter.rulesets import ruleset_for
from domain.encounter.snapshot import SNAPSHOTS
from domain.encounter.state import Encounter, evolve, reached
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.records import Dice, DiceSource, DieAwaited, EncounterDiceRolled
from domain.rules.ruleset import Command, CommandContext, LegalCommand, ProcedurePoint

# What a ruleset or a die entry may refuse a command with (each a 4xx to the caller).
REFUSALS = (RuleViolation, CommandRefused, DiceEntryError, DiceSyntaxError)

_REVEALED = "the server seed is revealed, so server dice would be predictable; enter them by hand"

__all__ = [
    "KIND",
    "Encounter",
    "audit",
    "command_class",
    "decide",
    "decided",
    "decision",
    "events_of",
    "evolve",
    "legal_commands",
    "parse_command",
    "procedure",
    "rolls_of",
    "settled",
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
    known = _known_commands(state.ruleset.commands if state.opened else ())
    found = known.get(command_type)
    if found is None:
        raise WrongState(
            f"unknown command {command_type!r}; known: {sorted(known)}",
            ja=f"不明なコマンド {command_type!r} です。既知のコマンド：{sorted(known)}",
        )
    return found


@functools.lru_cache(maxsize=16)
def _known_commands(ruleset_commands: tuple[type[Command], ...]) -> Mapping[str, type[Command]]:
    """By name: the Encounter's own commands, then the ruleset's (built once per ruleset,
    not on every command; nobody changes the dictionary handed out)."""
    known = {c.command_type: c for c in COMMANDS}
    return known | {c.command_type: c for c in ruleset_commands}


def procedure(state: Encounter) -> ProcedurePoint:
    """Where the fight stands and what it awaits (the ruleset's answer; while a hand die is
    awaited, that die and nothing else)."""
    require_open(state)
    point = state.ruleset.procedure(state.rules)
    if state.awaiting is None:
        return point
    return point.model_copy(update={"awaiting": awaited_commands(state.awaiting)})


def legal_commands(state: Encounter) -> list[LegalCommand]:
    """Commands legal now, with who may issue them; none once the fight has ended."""
    if not state.opened or state.ended:
        return []
    if state.awaiting is not None:
        return list(awaited_commands(state.awaiting))
    return state.ruleset.legal_commands(state.rules)


def awaited_commands(awaiting: Awaiting) -> tuple[LegalCommand, ...]:
    """While a die is awaited: its entry (by whom it is for, or the GM) or the GM's withdrawal."""
    die = awaiting.die
    issuer = "gm" if die.for_member == "gm" else "controller"
    return (
        LegalCommand(command=EnterDie.command_type, issuer=issuer, combatant=die.combatant),
        LegalCommand(command=WithdrawAwaitedRoll.command_type, issuer="gm"),
    )


def decide(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
    hand: bool | None = None,
) -> list[DomainEvent]:
    """The events a command leads to, or a refusal that changes nothing.

    `dice` replaces the encounter's own dice (a replay supplies the original faces); `hand`
    is a command's own choice of dice in a `per_roll` encounter (None: the encounter's)."""
    return decided(
        state, command, ctx, server_seed=server_seed, hand_faces=hand_faces, dice=dice, hand=hand
    ).events


def decided(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
    hand: bool | None = None,
) -> Decided[Encounter]:
    """`decide`, with the Encounter its events lead to: the ruleset's state as the ruleset
    reached it while deciding, so no event is evolved twice."""
    outcome = decision(
        state, command, ctx, server_seed=server_seed, hand_faces=hand_faces, dice=dice, hand=hand
    )
    return settled(state, outcome)


Outcome: TypeAlias = Decided[BaseModel] | list[DomainEvent]
"""What deciding gives before the Encounter is brought up to date: the events, with the
ruleset's state when the ruleset reached it while deciding them."""


def events_of(outcome: Outcome) -> list[DomainEvent]:
    return outcome.events if isinstance(outcome, Decided) else outcome


def settled(
    state: Encounter, outcome: Outcome, *, first: DomainEvent | None = None
) -> Decided[Encounter]:
    """The outcome's events and the Encounter they lead to, in one pass. `first`: a fact
    recorded in front of them (the command itself, domain/encounter/record.py), which no
    ruleset evolves on, so it joins the same pass instead of a second one."""
    events = events_of(outcome)
    if first is not None:
        events = [first, *events]
    if isinstance(outcome, Decided):
        return Decided(events, reached(state, events, outcome.state))
    after = state
    for event in events:
        after = evolve(after, event)
    return Decided(events, after)


def decision(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
    hand: bool | None = None,
    entry: Entry | None = None,
) -> Outcome:
    """The command's outcome, not yet applied to the Encounter (`settled` applies it).
    `entry`: who entered the hand faces (default: the command's sender, all of them)."""
    check_texts(command)  # the edge checked a body already; a command built otherwise is too
    meta = {"at": ctx.at, "by": ctx.by}
    match command:
        case OpenEncounter():
            return _open(state, command, ctx)
        case EnterDie():
            return _enter(state, command, ctx, server_seed=server_seed, dice=dice)
        case WithdrawAwaitedRoll():
            return _withdraw(state, command, ctx)
    if state.awaiting is not None:
        die = state.awaiting.die
        raise WrongState(
            f"the encounter awaits {die.text_en} (entered by {die.for_member} or the GM): "
            "enter it (EnterDie), or the GM withdraws the command (WithdrawAwaitedRoll)",
            ja=f"この戦闘は{die.text_ja}を待っています（{die.for_member} かGMが入力）。"
            "入力する（EnterDie）か、GMがコマンドを取り下げて（WithdrawAwaitedRoll）ください",
        )
    match command:
        case JoinCombatant():
            require_gm(ctx, "bring in a combatant", "参加者を加える")
            require_running(state)
            if state.controller_of(command.combatant_id) is not None:
                raise WrongState(
                    f"combatant {command.combatant_id!r} has joined already",
                    ja=f"参加者 {command.combatant_id!r} はすでに参加しています",
                )
            sheet = state.ruleset.sheet_model.model_validate(command.sheet)
            data = command.model_dump() | {"sheet": sheet.model_dump(mode="json")}
            return [CombatantJoined(**data, **meta)]
        case RevealSeed():
            return _reveal(state, command, ctx)
    require_running(state, command)
    require_legal(state, command, ctx)
    by_hand = _by_hand(state, hand)
    if hand_faces is not None and not ctx.is_gm and not by_hand:
        raise NotPermitted(
            "only the GM enters dice rolled by hand (in an encounter with hand dice, the "
            "issuer enters them too)",
            ja="手で振ったダイスを入力できるのはGMだけです（手振りダイスの戦闘では、コマンドを出した人も入力できます）",
        )
    if server_seed is not None and not _keeps_commitment(server_seed, state.commitment):
        raise WrongState(
            "the server seed does not match this encounter's commitment",
            ja="サーバーのシードがこの戦闘のコミットメントと一致しません",
        )
    if dice is None:
        own = len(hand_faces or ()) if entry is None else 0  # a rerun's: answers to waits
        entry = entry or Entry.sent(ctx, hand_faces)
        hand_dice = {
            "hand_faces": tuple(hand_faces) if hand_faces is not None else None,
            "entered_by": entry.by,
            "own_faces": own,
            "await_hand": by_hand,
        }
        source = _dice_source(state, ctx, server_seed, hand_dice)
        dice = Dice(source, by=ctx.by, at=ctx.at, gate=hand_gate(state, command, entry))
    return _ruled(state, command, dice, ctx)


def _ruled(state: Encounter, command: Command, dice: Dice, ctx: CommandContext) -> Outcome:
    """The ruleset's decision with these dice: its events, a wait for a hand die, or (after a
    die from the seed was drawn) its refusal recorded with those dice."""
    try:
        outcome = state.ruleset.decide(state.rules, command, dice, ctx)
        dice.check_settled()
    except DieAwaited as awaited:
        # Nothing the command decided so far is kept: it is decided again, from the start,
        # with this die's face (deciding is deterministic).
        return [_awaited(state, command, ctx, awaited)]
    except REFUSALS as refused:
        if not dice.drew_server_dice:
            raise  # refused before any die from the seed: nothing to record, as ever
        # Issue 33 §1: the dice drawn may have decided this refusal (and which one), so they
        # are recorded with it, their sequences used up; the next command draws the next.
        rule_id = refused.rule_id if isinstance(refused, RuleViolation) else None
        return dice.refused_after_dice(command.command_type, rule_id)
    check_dice_before_rulings(state, events_of(outcome))
    return outcome


@functools.lru_cache(maxsize=1024)
def _keeps_commitment(server_seed: bytes, commitment: str) -> bool:
    """`verify_commitment`, once per encounter's seed rather than on every command."""
    return verify_commitment(server_seed, commitment)


def audit(state: Encounter, rolls: Sequence[RollResult]) -> list[Verification]:
    """Recompute every die from the revealed seed (checked against the commitment).

    The rolls come from the encounter's `EncounterDiceRolled` events (`rolls_of`); the state
    keeps only their count, so it does not grow with every die of a long fight.
    """
    if state.revealed_seed is None:
        raise WrongState(
            "the seed is not revealed yet: reveal it before verifying",
            ja="シードはまだ公開されていません。検証の前に公開してください",
        )
    if len(rolls) != state.roll_count:
        raise WrongState(
            f"{len(rolls)} rolls given, but the encounter recorded {state.roll_count}",
            ja=f"ダイスが {len(rolls)} 個渡されましたが、"
            f"この戦闘の記録は {state.roll_count} 個です",
        )
    seed = bytes.fromhex(state.revealed_seed)
    return [
        verify(r, server_seed=seed, stream_id=state.id, commitment=state.commitment) for r in rolls
    ]


def rolls_of(events: Iterable[DomainEvent]) -> list[RollResult]:
    """The recorded rolls among an encounter's events, in roll order (a refused command's
    dice among them: they are `EncounterDiceRolled` like every other)."""
    return [e.result for e in events if isinstance(e, EncounterDiceRolled)]


def _dice_source(
    state: Encounter,
    ctx: CommandContext,
    server_seed: bytes | None,
    hand_dice: Mapping[str, object],
) -> DiceSource:
    """`hand_dice`: the faces entered, by whom, how many are the command's own, and whether
    more are awaited (DiceSource says what each means)."""
    common = {"stream_id": state.id, "next_roll_seq": state.roll_count, **hand_dice}
    if state.revealed_seed is not None:  # a known seed makes every later server die known
        return DiceSource(**common, why_no_server_dice=_REVEALED)
    return DiceSource(**common, server_seed=server_seed, client_seed=ctx.client_seed)


def _by_hand(state: Encounter, hand: bool | None) -> bool:
    """Whether this command's dice are asked of the table one at a time (issue 19)."""
    if state.dice_mode == "per_roll":
        return bool(hand)
    if hand is not None and state.dice_mode != ("hand" if hand else "server"):
        raise WrongState(
            f"this encounter rolls {state.dice_mode} dice; a command chooses its dice only "
            "in an encounter opened with dice 'per_roll'",
            ja=f"この戦闘のダイスは {state.dice_mode} です。"
            "コマンドがダイスを選べるのは dice 'per_roll' で開いた戦闘だけです",
        )
    return state.dice_mode == "hand"


def _awaited(
    state: Encounter, command: Command, ctx: CommandContext, signal: DieAwaited
) -> RollAwaited:
    """The pending command and the die it waits for (whose it is: owners.die_for)."""
    combatant, member = die_for(state, command, signal.purpose)
    pending = PendingCommand(
        command_type=command.command_type,
        payload=command.model_dump(mode="json"),
        by=ctx.by,
        is_gm=ctx.is_gm,
        client_seed=ctx.client_seed,
        faces=signal.entered,
        entered_by=signal.entered_by,
    )
    die = awaited_die(signal.sides, signal.purpose, combatant, member)
    return RollAwaited(pending=pending, die=die, at=ctx.at, by=ctx.by)


def _enter(
    state: Encounter,
    command: EnterDie,
    ctx: CommandContext,
    *,
    server_seed: bytes | None,
    dice: Dice | None,
) -> Outcome:
    """The awaited die is entered: the pending command is decided again with every face
    entered for it so far; it asks for the next die, or resolves."""
    require_running(state)
    awaiting = state.awaiting
    if awaiting is None:
        raise WrongState(
            "no die is awaited: give the faces with the command that needs them",
            ja="待っているダイスはありません。出目はそれを必要とするコマンドと一緒に渡してください",
        )
    die = awaiting.die
    if not ctx.is_gm and ctx.by != die.for_member:
        raise NotPermitted(
            f"{die.text_en} is entered by {die.for_member} or the GM",
            ja=f"{die.text_ja}を入力するのは {die.for_member} かGMです",
        )
    if not all(1 <= face <= die.sides for face in command.faces[:1]):
        raise RuleViolation(
            die.rule_id,
            f"a face of {die.notation} is 1..{die.sides}",
            ja=f"{die.notation} の出目は1～{die.sides}です",
        )
    pending = awaiting.pending
    original = command_class(state, pending.command_type).model_validate(pending.payload)
    issuer = CommandContext(
        at=ctx.at, by=pending.by, is_gm=pending.is_gm, client_seed=pending.client_seed
    )
    earlier = len(pending.faces)
    enterers = (*pending.entered_by, *(None,) * earlier)[:earlier]  # v1: not recorded
    outcome = decision(
        state.model_copy(update={"awaiting": None}),
        original,
        issuer,
        server_seed=server_seed,
        hand_faces=(*pending.faces, *command.faces),
        dice=dice,
        hand=True if state.dice_mode == "per_roll" else None,
        entry=Entry((*enterers, *(ctx.by,) * len(command.faces)), sender=ctx, new_from=earlier),
    )
    events = events_of(outcome)
    if not events:  # decided nothing after all: the wait ends all the same
        reason = "the command decided nothing"
        kind = pending.command_type
        return [AwaitedRollWithdrawn(command_type=kind, reason=reason, at=ctx.at, by=ctx.by)]
    return outcome


def _withdraw(
    state: Encounter, command: WithdrawAwaitedRoll, ctx: CommandContext
) -> list[DomainEvent]:
    require_gm(ctx, "withdraw a command that waits for a die", "ダイスを待つコマンドを取り下げる")
    if state.awaiting is None:
        raise WrongState(
            "no die is awaited: there is no pending command to withdraw",
            ja="待っているダイスはありません。取り下げるコマンドはありません",
        )
    kind = state.awaiting.pending.command_type
    return [AwaitedRollWithdrawn(command_type=kind, reason=command.reason, at=ctx.at, by=ctx.by)]


def _open(state: Encounter, command: OpenEncounter, ctx: CommandContext) -> list[DomainEvent]:
    require_gm(ctx, "open an encounter", "戦闘を開く")
    if state.opened:
        raise WrongState("this encounter is open already", ja="この戦闘はすでに開かれています")
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
            dice=command.dice,
            at=ctx.at,
            by=ctx.by,
        )
    ]


def _reveal(state: Encounter, command: RevealSeed, ctx: CommandContext) -> list[DomainEvent]:
    require_gm(ctx, "reveal the seed", "シードを公開する")
    require_open(state)
    if state.revealed_seed is not None:
        return []  # revealing twice changes nothing
    if not verify_commitment(bytes.fromhex(command.server_seed), state.commitment):
        raise WrongState(
            "that seed does not match the commitment published at opening",
            ja="そのシードは開始時に公開したコミットメントと一致しません",
        )
    return [EncounterSeedRevealed(server_seed=command.server_seed, at=ctx.at, by=ctx.by)]
