"""The append watch on real PostgreSQL: given a listening watch, when its connection is lost or
falls silent, then it gives out no ticket (caches go to the database) until it listens again."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from domain.campaign.campaign import Campaign
from infra.services.append_watch import AppendWatch, WatchOptions
from infra.services.watched_states import WatchedStates

pytestmark = pytest.mark.postgres

WAIT_S = 10.0  # generous: only a broken watch ever waits this long


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def watch(app_url: str, clock: Clock) -> Iterator[AppendWatch]:
    # Heartbeats far apart, so that only the test moves the clock past the trust window.
    options = WatchOptions(heartbeat_s=60.0, trust_s=2.0, retry_s=0.05)
    found = AppendWatch(app_url, shards=1, options=options, clock=clock)
    assert found.wait_listening(WAIT_S)
    yield found
    found.stop()


def kept(watch: AppendWatch) -> tuple[WatchedStates[Campaign], uuid.UUID]:
    """A cache holding one campaign state under the watch's current ticket."""
    states: WatchedStates[Campaign] = WatchedStates(watch)
    campaign = Campaign(id=uuid.uuid4())
    states.put(watch.ticket(), campaign.id, campaign, 1)
    assert states.get(campaign.id) == (campaign, 1)
    return states, campaign.id


def heard_first_as_the_echo(
    watch: AppendWatch, app_url: str
) -> tuple[WatchedStates[Campaign], uuid.UUID]:
    """Given a kept campaign state this process is about to append to, when another process's
    append to it is heard first (it committed first: NOTIFYs come in commit order)."""
    from infra.store.ledger import StreamWrite, open_ledger
    from tests.contract.test_event_store import REGISTRY, opened

    states, campaign_id = kept(watch)
    watch.expecting([campaign_id])
    ticket = watch.ticket()
    assert ticket is not None
    elsewhere = open_ledger(app_url, registry=REGISTRY)
    try:
        elsewhere.append([StreamWrite(campaign_id, 0, [opened()])])
        other = uuid.uuid4()
        elsewhere.append([StreamWrite(other, 0, [opened()])])
        assert watch.wait_past(ticket, WAIT_S)  # the second heard: the first was, before it
    finally:
        elsewhere.close()
    return states, campaign_id


def test_a_watch_not_heard_from_within_its_trust_window_vouches_for_nothing(
    watch: AppendWatch, clock: Clock
) -> None:
    states, campaign_id = kept(watch)

    clock.now += 2.5  # a connection that hangs without failing sends nothing either

    assert watch.ticket() is None
    assert states.get(campaign_id) is None


def test_a_lost_connection_voids_every_ticket_and_the_watch_listens_again(
    watch: AppendWatch, owner_url: str
) -> None:
    states, campaign_id = kept(watch)
    ticket = watch.ticket()
    assert ticket is not None

    with psycopg.connect(owner_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'senki-append-watch' AND datname = current_database()"
        )

    assert watch.wait_past(ticket, WAIT_S)
    assert states.get(campaign_id) is None
    assert watch.wait_listening(WAIT_S)
    assert watch.ticket() not in (None, ticket)


def test_a_stopped_watch_gives_no_tickets(watch: AppendWatch) -> None:
    states, campaign_id = kept(watch)

    watch.stop()

    assert watch.ticket() is None
    assert states.get(campaign_id) is None


def test_an_append_voids_only_the_states_of_the_streams_it_names(
    watch: AppendWatch, app_url: str
) -> None:
    """Given two campaigns held in memory, when another process appends to one of them, then
    the other is still served from memory: play in one campaign does not slow another's
    token checks and sheet reads."""
    from domain.events import DomainEvent
    from infra.store.ledger import StreamWrite, open_ledger
    from tests.contract.test_event_store import REGISTRY, opened

    states, quiet = kept(watch)
    busy = Campaign(id=uuid.uuid4())
    states.put(watch.ticket(), busy.id, busy, 1)
    ticket = watch.ticket()
    assert ticket is not None
    elsewhere = open_ledger(app_url, registry=REGISTRY)
    try:
        event: DomainEvent = opened()
        elsewhere.append([StreamWrite(busy.id, 0, [event])])
    finally:
        elsewhere.close()

    assert watch.wait_past(ticket, WAIT_S)
    assert states.get(busy.id) is None
    assert states.get(quiet) is not None


def test_a_notify_that_names_no_stream_voids_every_state(
    watch: AppendWatch, owner_url: str
) -> None:
    states, campaign_id = kept(watch)
    ticket = watch.ticket()
    assert ticket is not None

    with psycopg.connect(owner_url, autocommit=True) as admin:
        admin.execute("NOTIFY events_0")  # as an append of more streams than a payload holds

    assert watch.wait_past(ticket, WAIT_S)
    assert states.get(campaign_id) is None


def test_an_append_of_this_process_wakes_its_listeners_once_not_again_when_heard_back(
    watch: AppendWatch, app_url: str
) -> None:
    """Given a ledger wired to the watch as a server's is, when it appends, then the watch
    tells its listeners once (at the commit), and drops the append's own NOTIFY when it comes
    back; another process's append, heard after it, is still told."""
    from domain.events import DomainEvent
    from infra.store.ledger import StreamWrite, open_ledger
    from tests.contract.test_event_store import REGISTRY, opened

    told: list[list[uuid.UUID] | None] = []
    watch.listeners.append(told.append)
    here, elsewhere = (
        open_ledger(app_url, registry=REGISTRY),
        open_ledger(app_url, registry=REGISTRY),
    )
    here.appending.append(watch.expecting)
    here.appended.append(lambda appended: watch.wrote(appended.streams))
    here.append_failed.append(watch.not_expected)
    ours, theirs = uuid.uuid4(), uuid.uuid4()
    try:
        event: DomainEvent = opened()
        here.append([StreamWrite(ours, 0, [event])])
        ticket = watch.ticket()
        assert ticket is not None
        # NOTIFYs arrive in commit order: once theirs is heard, our echo was heard before it.
        elsewhere.append([StreamWrite(theirs, 0, [opened()])])
        assert watch.wait_past(ticket, WAIT_S)
    finally:
        here.close()
        elsewhere.close()

    assert told == [[ours], [theirs]]


def test_a_notify_naming_a_stream_whose_append_failed_is_heard(
    watch: AppendWatch, app_url: str
) -> None:
    """Given this process meant to append to a stream and failed, when another process
    appends to it, then its NOTIFY voids the stream's states: it is no echo to drop."""
    from infra.store.ledger import StreamWrite, open_ledger
    from tests.contract.test_event_store import REGISTRY, opened

    states, campaign_id = kept(watch)
    watch.expecting([campaign_id])
    watch.not_expected([campaign_id])
    ticket = watch.ticket()
    assert ticket is not None
    elsewhere = open_ledger(app_url, registry=REGISTRY)
    try:
        elsewhere.append([StreamWrite(campaign_id, 0, [opened()])])
    finally:
        elsewhere.close()

    assert watch.wait_past(ticket, WAIT_S)
    assert states.get(campaign_id) is None


def test_an_append_of_another_process_heard_before_this_process_s_own_is_covered_by_its_wrote(
    watch: AppendWatch, app_url: str
) -> None:
    """Given this process is about to append to a stream, when another process's append to
    it is heard first (it committed first: NOTIFYs come in commit order), then it is dropped
    as the echo, and this process's own append, once committed, voids the stream's states;
    the echo of that append, no longer expected, voids them once more."""
    states, campaign_id = heard_first_as_the_echo(watch, app_url)
    assert states.get(campaign_id) is not None  # dropped as this process's echo...

    watch.wrote([campaign_id])  # ...which this process's commit then voids at once

    assert states.get(campaign_id) is None


def test_a_notify_taken_for_the_echo_of_an_append_that_then_failed_still_voids_the_stream(
    watch: AppendWatch, app_url: str
) -> None:
    """Given this process is about to append to a stream, when another process's append to it
    is heard first (dropped as the echo) and this process's append then fails (it lost the
    race to that very append), then the stream's states are void all the same: no `wrote`
    will come to cover the event that was dropped."""
    states, campaign_id = heard_first_as_the_echo(watch, app_url)
    assert states.get(campaign_id) is not None  # dropped as this process's echo

    watch.not_expected([campaign_id])  # this process's append to it failed

    assert states.get(campaign_id) is None


def test_this_processs_own_append_is_vouched_for_when_nothing_else_was_heard_since(
    watch: AppendWatch,
) -> None:
    """Given a ticket taken before this process appends to a stream and nothing heard since,
    when its append commits, then the watch vouches for a state built from that append: the
    live streams take its events without reading them (api/live_reads.py)."""
    stream = uuid.uuid4()
    since = watch.ticket()
    assert since is not None

    vouched = watch.voided([stream], since=since)

    assert vouched is not None
    assert vouched > since
    assert watch.still(vouched, stream)
    assert not watch.still(since, stream)  # the append itself voided the older tickets


def test_this_processs_own_append_is_not_vouched_for_once_another_was_heard_since(
    watch: AppendWatch, app_url: str
) -> None:
    """Given a ticket taken before this process appends to a stream, when another process's
    append to it is heard before this one's commit is told (it may have come after it), then
    the watch vouches for nothing built from this append alone: the streams read instead."""
    from domain.events import DomainEvent
    from infra.store.ledger import StreamWrite, open_ledger
    from tests.contract.test_event_store import REGISTRY, opened

    stream = uuid.uuid4()
    since = watch.ticket()
    assert since is not None
    elsewhere = open_ledger(app_url, registry=REGISTRY)
    try:
        event: DomainEvent = opened()
        elsewhere.append([StreamWrite(stream, 0, [event])])
    finally:
        elsewhere.close()
    assert watch.wait_past(since, WAIT_S)

    assert watch.voided([stream], since=since) is None
    assert watch.voided([stream], since=None) is None  # no ticket from before: nothing


def test_a_watch_that_voided_every_ticket_vouches_for_no_append_from_before(
    watch: AppendWatch,
) -> None:
    stream = uuid.uuid4()
    since = watch.ticket()
    assert since is not None
    watch.bump()  # as a lost connection or a NOTIFY naming no stream

    assert watch.voided([stream], since=since) is None
