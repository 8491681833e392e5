"""A campaign's list of roll logs (domain/roll_logs.py): given what was listed, when a log is
opened, then it is listed once; the table log's id comes from the campaign alone; one member
cannot list past their share."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from domain.events import DomainEvent
from domain.roll_logs import (
    KIND,
    MAX_NAMED,
    MAX_OPENED_BY_ONE,
    RollLogListed,
    RollLogs,
    TooManyLogs,
    list_opened,
    list_table_log,
    stream_of,
    table_log_of,
)

AT = datetime(2026, 12, 7, 20, 0, tzinfo=UTC)
CAMPAIGN = uuid.UUID("00000000-0000-4000-8000-000000000035")


def given(*events: DomainEvent) -> RollLogs:
    return KIND.rebuild(stream_of(CAMPAIGN), events)


def opened(name: str, by: str = "aoi", *, secret: bool = False) -> RollLogListed:
    [event] = list_opened(given(), CAMPAIGN, uuid.uuid4(), name, secret=secret, at=AT, by=by)
    assert isinstance(event, RollLogListed)
    return event


def test_the_table_log_is_named_by_the_campaign_and_its_generation() -> None:
    assert table_log_of(CAMPAIGN) == table_log_of(CAMPAIGN, 0)
    assert table_log_of(CAMPAIGN, 1) != table_log_of(CAMPAIGN, 0)
    assert table_log_of(uuid.uuid4()) != table_log_of(CAMPAIGN)


def test_listing_the_table_log_twice_lists_it_once() -> None:
    [first] = list_table_log(given(), CAMPAIGN, 0, at=AT, by="gm")
    assert list_table_log(given(first), CAMPAIGN, 0, at=AT, by="aoi") == []
    state = given(first)
    assert state.table_log is not None
    assert state.table_log.log_id == table_log_of(CAMPAIGN)


def test_the_latest_generation_is_the_table_log() -> None:
    [first] = list_table_log(given(), CAMPAIGN, 0, at=AT, by="gm")
    [second] = list_table_log(given(first), CAMPAIGN, 1, at=AT, by="gm")
    later = given(first, opened("探索"), second)
    assert later.table_log is not None
    assert later.table_log.generation == 1


def test_a_retried_opening_lists_its_log_once() -> None:
    log = uuid.uuid4()
    [event] = list_opened(given(), CAMPAIGN, log, "GM秘匿", secret=True, at=AT, by="gm")
    assert isinstance(event, RollLogListed)
    assert event.kind == "secret"
    assert list_opened(given(event), CAMPAIGN, log, "GM秘匿", secret=True, at=AT, by="gm") == []


def test_one_member_opens_at_most_their_share_of_logs() -> None:
    [table] = list_table_log(given(), CAMPAIGN, 0, at=AT, by="aoi")
    full = given(table, *(opened(f"log {n}") for n in range(MAX_OPENED_BY_ONE)))
    with pytest.raises(TooManyLogs, match="roll in one of them"):
        list_opened(full, CAMPAIGN, uuid.uuid4(), "more", secret=False, at=AT, by="aoi")
    assert list_opened(full, CAMPAIGN, uuid.uuid4(), "GMの", secret=False, at=AT, by="gm")


def test_the_campaign_lists_at_most_its_bound_of_named_logs() -> None:
    members = MAX_NAMED // MAX_OPENED_BY_ONE
    full = given(
        *(opened(f"{m}-{n}", by=f"p{m}") for m in range(members) for n in range(MAX_OPENED_BY_ONE))
    )
    with pytest.raises(TooManyLogs, match=f"lists {MAX_NAMED}"):
        list_opened(full, CAMPAIGN, uuid.uuid4(), "more", secret=False, at=AT, by="gm")
