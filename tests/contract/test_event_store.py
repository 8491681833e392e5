"""The event store contract, run once per persistence option (embedded and external).

Given a migrated database and the service's low-privilege role, the store must append and
reload, refuse a second writer of the same version, keep one copy per idempotency key, refuse
to change history, and detect any tampering by a superuser at the right position.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg
import pytest

from domain.events import DomainEvent, EventRegistry
from infra.store.ledger import (
    ConcurrencyConflict,
    DuplicateRequest,
    Ledger,
    StreamWrite,
    open_ledger,
)
from infra.store.recorder import IdempotencyRecord

pytestmark = pytest.mark.postgres

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class TallyOpened(DomainEvent):
    event_type = "test.TallyOpened"
    name: str


class TallyMarked(DomainEvent):
    event_type = "test.TallyMarked"
    marks: int


REGISTRY = EventRegistry()
REGISTRY.register(TallyOpened, TallyMarked)


def opened(name: str = "tally") -> TallyOpened:
    return TallyOpened(at=AT, by="gm", name=name)


def marked(marks: int) -> TallyMarked:
    return TallyMarked(at=AT, by="gm", marks=marks)


@pytest.fixture
def ledger(app_url: str) -> Iterator[Ledger]:
    ledger = open_ledger(app_url, registry=REGISTRY)
    yield ledger
    ledger.close()


def test_appended_events_reload_in_order_with_their_versions(ledger: Ledger) -> None:
    stream = uuid.uuid4()
    ledger.append([StreamWrite(stream, 0, [opened(), marked(1), marked(2)])])
    recorded = ledger.read(stream)
    assert [r.version for r in recorded] == [1, 2, 3]
    assert recorded[0].event == opened()
    assert [r.event for r in recorded[1:]] == [marked(1), marked(2)]


def test_read_can_stop_at_a_past_version(ledger: Ledger) -> None:
    stream = uuid.uuid4()
    ledger.append([StreamWrite(stream, 0, [opened(), marked(1), marked(2)])])
    assert [r.version for r in ledger.read(stream, upto=2)] == [1, 2]
    assert [r.version for r in ledger.read(stream, after=2)] == [3]


def test_one_save_spanning_two_streams_is_atomic(ledger: Ledger) -> None:
    first, second = uuid.uuid4(), uuid.uuid4()
    ledger.append([StreamWrite(second, 0, [opened("second")])])
    with pytest.raises(ConcurrencyConflict):
        ledger.append(
            [StreamWrite(first, 0, [opened("first")]), StreamWrite(second, 0, [opened("again")])]
        )
    assert ledger.read(first) == []


def test_two_writers_of_the_same_version_exactly_one_wins(ledger: Ledger) -> None:
    stream = uuid.uuid4()
    ledger.append([StreamWrite(stream, 0, [opened()])])
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def writer(marks: int) -> None:
        barrier.wait()
        try:
            ledger.append([StreamWrite(stream, 1, [marked(marks)])])
            outcomes.append("won")
        except ConcurrencyConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["won"]
    assert [r.version for r in ledger.read(stream)] == [1, 2]


def test_the_same_idempotency_key_twice_keeps_one_copy(ledger: Ledger) -> None:
    stream = uuid.uuid4()
    record = IdempotencyRecord("member-1:key-1", "fp", {"version": 1})
    ledger.append([StreamWrite(stream, 0, [opened()])], idempotency=record)
    with pytest.raises(DuplicateRequest):
        ledger.append([StreamWrite(uuid.uuid4(), 0, [opened()])], idempotency=record)
    answer = ledger.answer_for("member-1:key-1")
    assert answer is not None
    assert answer.response == {"version": 1}
    assert len(ledger.read_log()) == 1


def test_concurrent_requests_with_one_key_append_once(ledger: Ledger) -> None:
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def request() -> None:
        barrier.wait()
        try:
            ledger.append(
                [StreamWrite(uuid.uuid4(), 0, [opened()])],
                idempotency=IdempotencyRecord("k", "fp", {"ok": True}),
            )
            outcomes.append("appended")
        except DuplicateRequest:
            outcomes.append("duplicate")

    threads = [threading.Thread(target=request) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["appended"] + ["duplicate"] * 5
    assert len(ledger.read_log()) == 1


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE senki.events_0 SET topic = 'x'",
        "DELETE FROM senki.events_0",
        "TRUNCATE senki.events_0",
        "UPDATE senki.idempotency_0 SET response = '{}'",
        "DELETE FROM senki.idempotency_0",
    ],
)
def test_the_service_role_cannot_change_history(
    ledger: Ledger, app_url: str, statement: str
) -> None:
    ledger.append(
        [StreamWrite(uuid.uuid4(), 0, [opened()])],
        idempotency=IdempotencyRecord("k", "fp", {}),
    )
    with psycopg.connect(app_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert len(ledger.read_log()) == 1


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE senki.events_0 SET topic = 'x'",
        "DELETE FROM senki.events_0",
        "TRUNCATE senki.events_0",
    ],
)
def test_even_the_owner_is_refused_while_the_triggers_stand(
    ledger: Ledger, owner_url: str, statement: str
) -> None:
    ledger.append([StreamWrite(uuid.uuid4(), 0, [opened()])])
    with (
        psycopg.connect(owner_url) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege) as caught,
    ):
        conn.execute(statement)
    assert "append-only" in str(caught.value)


def test_an_untouched_log_verifies_and_its_head_matches(ledger: Ledger) -> None:
    for _ in range(3):
        ledger.append([StreamWrite(uuid.uuid4(), 0, [opened(), marked(1)])])
    report = ledger.verify()
    head = ledger.head()
    assert report.ok, report.breaks
    assert report.checked == 6
    assert (report.head_position, report.head_hash.hex()) == (head.position, head.chain_hash)


def test_the_database_and_python_compute_the_same_links(ledger: Ledger) -> None:
    ledger.append([StreamWrite(uuid.uuid4(), 0, [opened("日本語の名前"), marked(3)])])
    assert ledger.verify().ok


def _tamper(owner_url: str, *statements: str) -> None:
    """What a superuser who bypasses the protections could do."""
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")  # disables ordinary triggers
        for statement in statements:
            conn.execute(statement)


def _positions(ledger: Ledger) -> list[int]:
    return [r.position or 0 for r in ledger.read_log()]


@pytest.fixture
def five_events(ledger: Ledger) -> list[int]:
    for marks in range(5):
        ledger.append([StreamWrite(uuid.uuid4(), 0, [marked(marks)])])
    return _positions(ledger)


def test_an_edited_event_is_named_at_its_position(
    ledger: Ledger, owner_url: str, five_events: list[int]
) -> None:
    target = five_events[2]
    _tamper(
        owner_url,
        "UPDATE senki.events_0 SET state = convert_to(replace(convert_from(state, 'UTF8'), "
        f"'\"marks\":2', '\"marks\":20'), 'UTF8') WHERE notification_id = {target}",
    )
    report = ledger.verify()
    assert report.first_break is not None
    assert report.first_break.position == target
    assert "altered" in report.first_break.reason


def test_a_removed_event_is_named_at_the_missing_position(
    ledger: Ledger, owner_url: str, five_events: list[int]
) -> None:
    target = five_events[1]
    _tamper(owner_url, f"DELETE FROM senki.events_0 WHERE notification_id = {target}")
    report = ledger.verify()
    assert report.first_break is not None
    assert report.first_break.position == target
    assert "removed" in report.first_break.reason


def test_an_event_inserted_out_of_order_is_named(
    ledger: Ledger, owner_url: str, five_events: list[int]
) -> None:
    # Forge a row between two existing ones, copying a real row's contents and link.
    gap = five_events[3] - 1 if five_events[3] - 1 != five_events[2] else None
    if gap is None:
        _tamper(
            owner_url,
            f"UPDATE senki.events_0 SET notification_id = notification_id * 10 "
            f"WHERE notification_id >= {five_events[3]}",
        )
        gap = five_events[3] * 10 - 1
    _tamper(
        owner_url,
        "INSERT INTO senki.events_0 (originator_id, originator_version, topic, state, "
        "notification_id, chain_prev, chain_hash) SELECT gen_random_uuid(), 1, topic, state, "
        f"{gap}, chain_prev, chain_hash FROM senki.events_0 "
        f"WHERE notification_id = {five_events[2]}",
    )
    report = ledger.verify()
    assert report.first_break is not None
    assert report.first_break.position == gap


def test_a_swapped_pair_is_named_at_the_first_of_them(
    ledger: Ledger, owner_url: str, five_events: list[int]
) -> None:
    first, second = five_events[1], five_events[2]
    _tamper(
        owner_url,
        f"UPDATE senki.events_0 SET notification_id = -1 WHERE notification_id = {first}",
        f"UPDATE senki.events_0 SET notification_id = {first} WHERE notification_id = {second}",
        f"UPDATE senki.events_0 SET notification_id = {second} WHERE notification_id = -1",
    )
    report = ledger.verify()
    assert report.first_break is not None
    assert report.first_break.position == first


def test_a_row_without_a_link_is_named(
    ledger: Ledger, owner_url: str, five_events: list[int]
) -> None:
    _tamper(
        owner_url,
        "INSERT INTO senki.events_0 (originator_id, originator_version, topic, state) "
        "VALUES (gen_random_uuid(), 1, 'test.TallyMarked.v1', '{}')",
    )
    report = ledger.verify()
    assert report.first_break is not None
    assert report.first_break.position > five_events[-1]
    assert "no chain link" in report.first_break.reason
