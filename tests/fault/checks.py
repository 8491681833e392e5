"""After the faults: the database against what the clients were told.

* Every stream's versions run 1..n without a gap (the primary key rules out duplicates).
* Every acknowledged command is in its stream exactly once, at the version it was answered
  with, as the events it was answered with; a stream ends at its last acknowledged version,
  so nothing was appended that no client was told about (a retry applied twice would be).
* Every command's idempotency key (sent as its `client_seed`) is recorded once in the log.
* Every read model is caught up with every shard and equals a rebuild from position 0.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

from domain.catalog import registry
from domain.encounter.record import CommandIssued
from domain.roll_log import DiceRolled, RollLogOpened
from infra.projector.admin import request_rebuild, status
from infra.projector.runner import Projector, ProjectorOptions
from infra.store.ledger import Ledger, open_ledger
from infra.store.mapper import Recorded
from infra.store.names import SCHEMA, ShardTables
from projections.catalog import PROJECTIONS
from tests.fault.client import Ack, Acks
from tests.fault.load import Played
from tests.support.readside import Snapshot, live_generation, snapshot

Streams = dict[UUID, list[Recorded]]


@contextmanager
def event_log(app_url: str, shards: int) -> Iterator[Ledger]:
    ledger = open_ledger(app_url, registry=registry, shards=shards)
    try:
        yield ledger
    finally:
        ledger.close()


def every_stream(ledger: Ledger) -> Streams:
    """Every event of every shard, by stream, in version order."""
    streams: Streams = {}
    for shard in range(len(ledger.shards)):
        after = 0
        while batch := ledger.read_log(shard=shard, after=after, limit=2000):
            for recorded in batch:
                streams.setdefault(recorded.stream_id, []).append(recorded)
            after = batch[-1].position or after
    for events in streams.values():
        events.sort(key=lambda r: r.version)
    return streams


def assert_exactly_once(
    streams: Streams,
    played: Played,
    acks: Acks,
    stored: dict[str, list[dict[str, Any]]],
    commands: int,
) -> int:
    """Every check of the write side; returns how many answers came from the idempotency
    record after a lost answer (the case the retries are there for: there must be some)."""
    opened = sum(1 for ack in acks.acks.values() if ack.path == "/v1/campaigns")
    assert acks.acknowledged == opened + commands
    assert_versions_contiguous(streams)
    assert_each_ack_applied_once(streams, played)
    assert_each_key_recorded_once(streams, acks)
    assert_answers_stored_once(stored, acks)
    replays = replayed(streams, acks)
    assert replays, "no retry was answered from the idempotency record"
    return replays


def assert_versions_contiguous(streams: Streams) -> None:
    for stream_id, events in streams.items():
        versions = [r.version for r in events]
        assert versions == list(range(1, len(versions) + 1)), f"gap in {stream_id}: {versions}"


def assert_each_ack_applied_once(streams: Streams, played: Played) -> None:
    for stream, acks in played.streams.items():
        events = streams.get(UUID(stream), [])
        assert events, f"stream {stream} was acknowledged but holds no events"
        before = 0
        for ack in acks:
            after = _version(ack)
            assert after > before, f"{ack.path}: answered version {after} after {before}"
            assert after <= len(events), (
                f"{ack.path} {ack.key}: acknowledged at version {after}, but stream {stream} "
                f"ends at {len(events)}: an acknowledged command was lost"
            )
            _assert_matches(ack, events[before:after])
            before = after
        assert len(events) == before, (
            f"stream {stream} holds {len(events)} events, the clients were told of {before}: "
            f"{[type(r.event).__name__ for r in events[before:]]} applied unacknowledged"
        )


def _version(ack: Ack) -> int:
    answer = ack.answer
    return int(answer["roll_log"]["version"] if "roll_log" in answer else answer["version"])


def _assert_matches(ack: Ack, events: list[Recorded]) -> None:
    types = [r.event.event_type for r in events]
    if "events" in ack.answer and not ack.path.endswith("/encounters"):
        # An encounter command or reveal: the events it was answered with, command first.
        assert types == ack.answer["events"], f"{ack.key}: {types} != {ack.answer['events']}"
        first = events[0].event
        assert isinstance(first, CommandIssued), f"{ack.key}: {types}"
        assert first.client_seed == ack.body.get("client_seed"), ack.key
    elif ack.path.endswith("/encounters"):
        assert types[0] == "EncounterOpened", f"{ack.key}: {types}"
    elif ack.path.endswith("/rolls"):
        rolled = events[-1].event
        assert isinstance(rolled, DiceRolled), f"{ack.key}: {types}"
        assert rolled.result.client_seed == ack.key, ack.key
        # A roll that opened the table log answers 201; its retry, finding the log open,
        # answers the same body with 200 (the opening is still its own, before its roll).
        opening = isinstance(events[0].event, RollLogOpened)
        assert len(events) == 1 + opening, f"{ack.key}: {types}"
        assert ack.status != 201 or opening, f"{ack.key}: 201 without an opening: {types}"
    else:
        assert types == ["DiceSeedRevealed"], f"{ack.path}: {types}"


def assert_each_key_recorded_once(streams: Streams, acks: Acks) -> None:
    seeds = Counter(_client_seed(r.event) for events in streams.values() for r in events)
    sent = {key for key, ack in acks.acks.items() if "client_seed" in ack.body}
    twice = {key: n for key, n in seeds.items() if key in sent and n != 1}
    assert not twice, f"recorded more than once: {twice}"
    assert sent <= set(seeds), f"acknowledged but never recorded: {sent - set(seeds)}"


def stored_answers(owner_url: str, shards: int) -> dict[str, list[dict[str, Any]]]:
    """Every answer kept for retries, on every shard, by the client's key (the part after
    the caller's scope; a roll written beside an opening has its own `<key>:roll`)."""
    found: dict[str, list[dict[str, Any]]] = {}
    with psycopg.connect(owner_url) as conn:
        for shard in range(shards):
            table = sql.Identifier(SCHEMA, ShardTables(shard).idempotency)
            for key, response in conn.execute(
                sql.SQL("SELECT key, response FROM {}").format(table)
            ):
                answer = response if isinstance(response, dict) else json.loads(response)
                found.setdefault(str(key).split(":", 1)[1], []).append(answer)
    return found


def assert_answers_stored_once(stored: dict[str, list[dict[str, Any]]], acks: Acks) -> None:
    """Each acknowledged command's answer is kept once (on one shard), and it is the answer
    the client got: a retry was never decided and stored a second time."""
    twice = {key: len(answers) for key, answers in stored.items() if len(answers) > 1}
    assert not twice, f"answers stored more than once: {twice}"
    for key, ack in acks.acks.items():
        name = f"{key}:roll" if ack.path.endswith("/rolls") else key
        assert name in stored, f"{ack.path} {key}: acknowledged, but no answer is kept"
        if ack.path.endswith("/commands"):
            kept = stored[name][0]
            assert (kept["version"], kept["events"]) == (
                ack.answer["version"],
                ack.answer["events"],
            )


def replayed(streams: Streams, acks: Acks) -> int:
    """Acks answered from the idempotency record: the command was applied by an earlier
    attempt whose answer was lost (its event is older than the attempt that got the answer)."""
    applied = {
        seed: r.event.at
        for events in streams.values()
        for r in events
        if (seed := _client_seed(r.event)) is not None
    }
    return sum(
        1 for key, ack in acks.acks.items() if key in applied and applied[key] < ack.answered_from
    )


def _client_seed(event: Any) -> str | None:
    if isinstance(event, CommandIssued):
        return event.client_seed
    if isinstance(event, DiceRolled):
        return event.result.client_seed
    return None


def encounter_log_gaps(live: dict[str, Snapshot], streams: Streams, played: Played) -> str:
    """'' when the encounter log has one line per event of every encounter, else how not."""
    encounters = [s for s, acks in played.streams.items() if acks[0].path.endswith("/encounters")]
    events = sum(len(streams[UUID(s)]) for s in encounters)
    lines = len(live["encounter_log"]["encounter_log"])
    return "" if lines == events else f"encounter_log has {lines} lines for {events} events"


def lagging(app_url: str, ledger: Ledger) -> list[str]:
    """Live generations not yet at the head of some shard (empty: all caught up)."""
    rows = status(app_url, ledger, PROJECTIONS)
    live = [r for r in rows if r.role == "live"]
    found = {(r.projection, r.shard) for r in live}
    missing = [
        f"{p.name}@{s}: no live generation"
        for p in PROJECTIONS
        for s in range(len(ledger.shards))
        if (p.name, s) not in found
    ]
    return missing + [f"{r.projection}@{r.shard}: lag {r.lag}" for r in live if r.lag]


def live_read_models(app_url: str) -> dict[str, Snapshot]:
    return {p.name: snapshot(app_url, p) for p in PROJECTIONS}


def rebuilt_read_models(app_url: str, ledger: Ledger) -> dict[str, Snapshot]:
    """A new generation of every read model, projected from position 0 of every shard."""
    generations = {}
    for projection in PROJECTIONS:
        generations[projection.name] = request_rebuild(app_url, projection, len(ledger.shards))
    projector = Projector(app_url, ledger, PROJECTIONS, ProjectorOptions(batch_size=1000))
    projector.run(threading.Event(), until_caught_up=True)
    for name, generation in generations.items():
        assert live_generation(app_url, name) == generation, f"{name} was not rebuilt"
    return live_read_models(app_url)


def differences(live: dict[str, Snapshot], rebuilt: dict[str, Snapshot]) -> dict[str, str]:
    """Table → the rows only one side has (a few of each), for every table that differs."""
    found = {}
    for name, tables in live.items():
        for table, rows in tables.items():
            theirs = rebuilt[name][table]
            only_live = sorted(set(rows) - set(theirs))
            only_rebuilt = sorted(set(theirs) - set(rows))
            if only_live or only_rebuilt:
                lines = [f"{len(rows)} live rows, {len(theirs)} rebuilt"]
                lines += [f"  live only: {row}" for row in only_live[:3]]
                lines += [f"  rebuilt only: {row}" for row in only_rebuilt[:3]]
                found[table] = "\n".join(lines)
    return found
