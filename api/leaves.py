"""Each event's leaf in its shard's Merkle tree, as every reader is given it (issue 37).

A reader gets `log: {shard, position, leaf_index, chain_hash}` with every event: on `/events`
and the live stream (api/routes/encounter_stream.py), in a command's answer, and with each
roll of a roll log. It is given only with what the route already lets the reader read (the
event itself, or the roll), and says nothing of what the event holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from uuid import UUID

from infra.services import CommandAnswer, EventLog, LogEntry, RollPublic, Runtime


def entries(
    runtime: Runtime, stream_id: UUID, positions: Iterable[int | None]
) -> dict[int, LogEntry]:
    """Where each of these events of the stream stands in its shard's tree (by position);
    none while the tree disagrees with the log."""
    shard = runtime.ledger.shard_of(stream_id)
    return runtime.log_trees.entries(shard, [p for p in positions if p is not None])


def event_log(entry: LogEntry | None) -> EventLog | None:
    return None if entry is None else EventLog(**asdict(entry))


def command_leaves(runtime: Runtime, encounter_id: UUID, answer: CommandAnswer) -> CommandAnswer:
    """A command's answer with each fact's leaf (the service gave their positions)."""
    found = entries(runtime, encounter_id, [fact.position for fact in answer.facts])
    if not found:
        return answer
    facts = [
        fact.model_copy(update={"log": event_log(found.get(fact.position or 0))})
        for fact in answer.facts
    ]
    return answer.model_copy(update={"facts": facts})


def roll_leaves(
    runtime: Runtime, log_id: UUID, rolls: list[RollPublic], positions: dict[int, int]
) -> list[RollPublic]:
    """Each roll with the position and leaf of the event that recorded it (`positions`: by
    roll sequence). A roll withheld from the reader gets neither: only its number is shown
    until the reveal (docs/visibility.md), and its leaf is a hash of all of it."""
    shown = {
        r.roll_seq: positions[r.roll_seq]
        for r in rolls
        if not r.withheld and r.roll_seq in positions
    }
    found = entries(runtime, log_id, shown.values())
    return [
        roll.model_copy(
            update={
                "position": (at := shown.get(roll.roll_seq)),
                "log": event_log(found.get(at or 0)),
            }
        )
        for roll in rolls
    ]
