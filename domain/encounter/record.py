"""The command itself, recorded before what it led to: the raw input a replay re-runs.

`issue` is what the application service calls: it parses the command, decides it, and puts
a `CommandIssued` in front of the events, so the log holds every declaration as given
(payload, client seed, dice entered by hand) and not only its outcome.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from domain.aggregate import Decided
from domain.encounter.aggregate import decision, events_of, parse_command, settled
from domain.encounter.state import Encounter
from domain.events import DomainEvent, JsonObject, registry
from domain.rules.records import Dice
from domain.rules.ruleset import Command, CommandContext


class CommandIssued(DomainEvent):
    """A command as its issuer gave it; the events after it, up to the next one, are its effects."""

    event_type = "CommandIssued"
    command_type: str
    payload: dict[str, JsonValue]
    is_gm: bool
    client_seed: str | None = None
    hand_faces: tuple[int, ...] | None = None


registry.register(CommandIssued)

# Opening is the replay's starting point (with other options), not a command to re-run.
NOT_RECORDED = frozenset({"OpenEncounter"})


def issue(
    state: Encounter,
    command_type: str,
    payload: JsonObject,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
    hand: bool | None = None,
) -> list[DomainEvent]:
    """Decide a command given by name; record it first unless it changes nothing."""
    command = parse_command(state, command_type, payload)
    return issued(
        state, command, ctx, server_seed=server_seed, hand_faces=hand_faces, dice=dice, hand=hand
    ).events


def issued(
    state: Encounter,
    command: Command,
    ctx: CommandContext,
    *,
    server_seed: bytes | None = None,
    hand_faces: Sequence[int] | None = None,
    dice: Dice | None = None,
    hand: bool | None = None,
) -> Decided[Encounter]:
    """`issue` for a command already read (the API validated its body), with the Encounter
    its events lead to, so the caller need not evolve them again. `hand`: the command's own
    choice of dice in a `per_roll` encounter."""
    outcome = decision(
        state, command, ctx, server_seed=server_seed, hand_faces=hand_faces, dice=dice, hand=hand
    )
    if not events_of(outcome) or command.command_type in NOT_RECORDED:
        return settled(state, outcome)
    record = CommandIssued(
        command_type=command.command_type,
        payload=command.model_dump(mode="json"),
        is_gm=ctx.is_gm,
        client_seed=ctx.client_seed,
        hand_faces=tuple(hand_faces) if hand_faces is not None else None,
        at=ctx.at,
        by=ctx.by,
    )
    return settled(state, outcome, first=record)


def split_by_command(
    events: Sequence[DomainEvent],
) -> list[tuple[CommandIssued, list[DomainEvent]]]:
    """Each recorded command with the events it led to (events before the first are skipped)."""
    groups: list[tuple[CommandIssued, list[DomainEvent]]] = []
    for event in events:
        if isinstance(event, CommandIssued):
            groups.append((event, []))
        elif groups:
            groups[-1][1].append(event)
    return groups
