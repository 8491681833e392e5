"""The executor's state cache, over an in-memory log (a fake ledger, not a mock).

Given a stream this process has written, when the next command comes, then it is decided on
the state the last one reached, without reading the stream (issue #16: the stream is read
once, and on the happy path not at all). When someone else has appended meanwhile, the
append's version check refuses the stale decision and the command is decided again on the
log's state: the answer is never built on a stale state, and no write is lost.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import cast
from uuid import UUID

import pytest

from domain.aggregate import AggregateKind
from domain.events import DomainEvent
from infra.services.executor import Executor, StaleVersion
from infra.store.ledger import ConcurrencyConflict, Ledger, StreamWrite
from infra.store.mapper import Recorded
from infra.store.recorder import IdempotencyRecord

AT = datetime(2026, 12, 1, tzinfo=UTC)


class Added(DomainEvent):
    event_type = "test.Added"
    amount: int


def evolve(total: int, event: DomainEvent) -> int:
    assert isinstance(event, Added)
    return total + event.amount


COUNTER = AggregateKind[int]("counter", lambda _: 0, evolve, lambda total: total > 0)


class MemoryLog:
    """The parts of `Ledger` the executor uses, in memory, counting the reads."""

    def __init__(self) -> None:
        self.streams: dict[UUID, list[DomainEvent]] = {}
        self.reads = 0

    def shard_of(self, stream_id: UUID) -> int:
        return 0

    def read(
        self, stream_id: UUID, *, shard: int | None = None, after: int = 0, upto: int | None = None
    ) -> list[Recorded]:
        self.reads += 1
        events = self.streams.get(stream_id, [])
        return [
            Recorded(stream_id, version, event)
            for version, event in enumerate(events, start=1)
            if version > after and (upto is None or version <= upto)
        ]

    def append(
        self,
        writes: Sequence[StreamWrite],
        *,
        shard: int | None = None,
        idempotency: IdempotencyRecord | None = None,
    ) -> list[int]:
        for write in writes:
            stream = self.streams.setdefault(write.stream_id, [])
            if len(stream) != write.expected_version:
                raise ConcurrencyConflict(write.stream_id, write.expected_version)
            stream.extend(write.events)
        return []

    def answer_for(self, key: str, *, shard: int = 0) -> None:
        return None


def add(amount: int) -> list[DomainEvent]:
    return [Added(amount=amount, at=AT, by="gm")]


def total_and_version(total: int, version: int) -> dict[str, int]:
    return {"total": total, "version": version}


@pytest.fixture
def log() -> MemoryLog:
    return MemoryLog()


def run(executor: Executor, stream: UUID, amount: int, **guard: int) -> dict[str, int]:
    return cast(
        dict[str, int],
        executor.execute(
            COUNTER,
            stream,
            lambda _: add(amount),
            total_and_version,
            **guard,  # type: ignore[arg-type]
        ),
    )


def test_given_a_stream_this_process_wrote_the_next_commands_read_nothing(log: MemoryLog) -> None:
    executor = Executor(cast(Ledger, log))
    stream = uuid.uuid4()
    log.streams[stream] = add(1)
    run(executor, stream, 2)  # the first command reads the stream: nothing known yet
    reads = log.reads
    answers = [run(executor, stream, 3), run(executor, stream, 4, expected_version=3)]
    assert log.reads == reads
    assert answers == [{"total": 6, "version": 3}, {"total": 10, "version": 4}]


def test_a_known_state_another_writer_moved_on_is_decided_again_on_the_log(
    log: MemoryLog,
) -> None:
    here, there = Executor(cast(Ledger, log)), Executor(cast(Ledger, log))
    stream = uuid.uuid4()
    log.streams[stream] = add(1)
    run(here, stream, 1)  # here knows total 2 at version 2
    run(there, stream, 10)  # the log is at total 12, version 3
    assert run(here, stream, 100) == {"total": 112, "version": 4}
    assert COUNTER.rebuild(stream, log.streams[stream]) == 112  # nothing lost
    assert here.known(COUNTER, stream).version == 4


def test_a_stale_if_match_on_a_stale_known_state_is_a_412_naming_the_log_version(
    log: MemoryLog,
) -> None:
    here, there = Executor(cast(Ledger, log)), Executor(cast(Ledger, log))
    stream = uuid.uuid4()
    log.streams[stream] = add(1)
    run(here, stream, 1)
    run(there, stream, 10)
    with pytest.raises(StaleVersion) as refused:
        run(here, stream, 100, expected_version=2)
    assert (refused.value.expected, refused.value.current) == (2, 3)
    assert len(log.streams[stream]) == 3  # nothing appended


def test_a_refusal_on_a_stale_known_state_is_decided_again_on_the_log(log: MemoryLog) -> None:
    here, there = Executor(cast(Ledger, log)), Executor(cast(Ledger, log))
    stream = uuid.uuid4()
    log.streams[stream] = add(1)
    run(here, stream, 1)  # here knows total 2
    run(there, stream, 10)  # the log says 12

    def at_least_ten(total: int) -> list[DomainEvent]:
        if total < 10:
            raise ValueError("the total is under ten")  # a rule, refusing on a stale state
        return add(1)

    answer = here.execute(COUNTER, stream, at_least_ten, total_and_version)
    assert answer == {"total": 13, "version": 4}


def test_a_state_through_events_just_read_is_the_known_one_brought_forward_without_a_read(
    log: MemoryLog,
) -> None:
    """Given this process wrote a stream (it knows total 3 at version 2) and another writer
    appended since, when a live stream read those new events, then the state through them is
    the known one with them applied (what a load would give), read from nothing more."""
    here, there = Executor(cast(Ledger, log)), Executor(cast(Ledger, log))
    stream = uuid.uuid4()
    log.streams[stream] = add(1)
    run(here, stream, 2)
    run(there, stream, 10)
    read = log.read(stream, after=2)
    reads = log.reads

    through = here.through(COUNTER, stream, read)

    assert (through.state, through.version) == (13, 3)
    assert log.reads == reads
    assert here.through(COUNTER, stream, log.read(stream, after=1)).state == 13  # already past


def test_a_state_through_events_past_a_gap_is_loaded_from_the_log(log: MemoryLog) -> None:
    """Given this process knows version 2 only, when the events read start after version 3,
    then the known state cannot be brought forward to them: the stream is loaded."""
    here, there = Executor(cast(Ledger, log)), Executor(cast(Ledger, log))
    stream = uuid.uuid4()
    log.streams[stream] = add(1)
    run(here, stream, 2)
    run(there, stream, 10)
    run(there, stream, 100)
    reads = log.reads

    through = here.through(COUNTER, stream, log.read(stream, after=3))

    assert (through.state, through.version) == (113, 4)
    assert log.reads == reads + 2  # the events read, then the load
