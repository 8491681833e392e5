"""The eventsourcing library's own recorder test cases, run against Senki's event store.

Each case runs on a shard migrated exactly as in production, as the service role, on every
backend (embedded, and external when SENKI_TEST_DATABASE_URL is set), with one shard and with
several (see shard_setup.py). Where Senki deliberately differs from the library, the case is a
strict xfail with the reason, and an explicit test says what Senki does instead
(test_differences.py), so neither can change silently.
"""

from __future__ import annotations

from typing import ClassVar

import pytest
from eventsourcing.persistence import AggregateRecorder, IntegrityError
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.tests import persistence as library

from infra.store.recorder import SenkiRecorder
from tests.contract.shard_setup import OnSenkiShard, each_setup

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


class ApplicationRecorder(OnSenkiShard, library.ApplicationRecorderTestCase[SenkiRecorder]):
    """Senki's recorder as the library's application recorder: append, select, notifications,
    contiguous ids, concurrent writers and readers, throughput, subscriptions."""

    __test__ = False

    def create_recorder(self) -> SenkiRecorder:
        return SenkiRecorder(self.datastore, tables=self.tables)

    def test_insert_subscribe(self) -> None:
        # The library runs this "optional" case for its PostgreSQL recorder (LISTEN/NOTIFY).
        self.optional_test_insert_subscribe()


class NonInterleavingNotificationIds(OnSenkiShard, library.NonInterleavingNotificationIDsBaseCase):
    """Two racing appends of 1000 events each get two unbroken runs of positions: the write
    lock (on Senki's sidecar table) still serialises appends as the library's does."""

    __test__ = False

    def create_recorder(self) -> SenkiRecorder:
        return SenkiRecorder(self.datastore, tables=self.tables)


class SnapshotsThroughTheLibrarysRecorder(OnSenkiShard, library.AggregateRecorderTestCase):
    """The library's aggregate recorder on the shard's snapshots table, as Senki used it
    before snapshots were sealed (#15)."""

    __test__ = False
    differences: ClassVar[str] = (
        "snapshots are sealed: every row must carry the chain position and hash of the event "
        "it was taken at and a MAC under a key the database never holds, so the table's check "
        "constraint refuses the library's unsealed rows; the Ledger writes and checks them "
        "(test_postgres_behaviours.py, tests/integration/test_verify_snapshots.py)"
    )

    def create_recorder(self) -> AggregateRecorder:
        return PostgresAggregateRecorder(self.datastore, events_table_name=self.tables.snapshots)

    @pytest.mark.xfail(strict=True, raises=IntegrityError, reason=differences)
    def test_insert_and_select(self) -> None:
        super().test_insert_and_select()

    @pytest.mark.xfail(strict=True, raises=IntegrityError, reason=differences)
    def test_performance(self) -> None:
        super().test_performance()


class EventsAsAggregateRecorder(OnSenkiShard, library.AggregateRecorderTestCase):
    """The aggregate recorder's cases on Senki's application recorder."""

    __test__ = False
    differences: ClassVar[str] = (
        "an application recorder returns the new positions where an aggregate recorder "
        "returns None (the library's PostgresApplicationRecorder does too), and Senki's "
        "returns [] for an append of no events (test_differences.py asserts both)"
    )

    def create_recorder(self) -> SenkiRecorder:
        return SenkiRecorder(self.datastore, tables=self.tables)

    @pytest.mark.xfail(strict=True, reason=differences)
    def test_insert_and_select(self) -> None:
        super().test_insert_and_select()


globals().update(each_setup(ApplicationRecorder))
globals().update(each_setup(NonInterleavingNotificationIds))
globals().update(each_setup(SnapshotsThroughTheLibrarysRecorder))
globals().update(each_setup(EventsAsAggregateRecorder))
