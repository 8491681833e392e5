"""A leased connection (the append's, `ShardDatastore.lease`) fails as `get_connection` does:
the library's errors for a statement, ShardUnavailable and the breaker for a cluster that is
not there. Against a real server, and a port where none listens."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import psycopg
import pytest
from eventsourcing import persistence

from infra.store.connect import (
    SUSPECT_WAIT_S,
    ShardDatastore,
    ShardUnavailable,
    datastore_for,
    probe_clusters,
)


def _closed_port() -> int:
    """A local port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def nowhere() -> Iterator[ShardDatastore]:
    """The datastore of shard 2 on a cluster that is down (as at start-up: not waited for)."""
    store = datastore_for(
        f"postgresql://postgres@127.0.0.1:{_closed_port()}/postgres", shards=(2,), wait=False
    )
    store.pool.timeout = 0.3
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def reached(app_url: str) -> Iterator[ShardDatastore]:
    """Shard 0's datastore on a real server (each backend in turn)."""
    store = datastore_for(app_url, shards=(0,))
    try:
        yield store
    finally:
        store.close()


def test_a_lease_on_a_cluster_that_is_down_names_its_shard_and_opens_the_breaker(
    nowhere: ShardDatastore,
) -> None:
    with pytest.raises(ShardUnavailable, match="shard 2") as first:
        nowhere.lease()
    assert isinstance(first.value, persistence.OperationalError)  # retried and mapped as before
    started = time.monotonic()
    with pytest.raises(ShardUnavailable, match="did not answer moments ago"):
        nowhere.lease()  # the breaker: at once, not after another pool timeout
    assert time.monotonic() - started < 0.1
    assert nowhere.pool.timeout == SUSPECT_WAIT_S


def test_a_statement_refused_on_a_lease_is_the_librarys_error_with_its_diag(
    reached: ShardDatastore,
) -> None:
    conn = reached.lease()
    try:
        with pytest.raises(psycopg.errors.UniqueViolation) as refused:
            conn.execute("CREATE TEMP TABLE t (k int PRIMARY KEY); INSERT INTO t VALUES (1), (1)")
        error = reached.failed(refused.value)
    finally:
        reached.release(conn)
    assert type(error) is persistence.IntegrityError
    assert error.__cause__ is refused.value
    assert refused.value.diag.constraint_name == "t_pkey"
    assert reached.pool.timeout != SUSPECT_WAIT_S  # a refused statement is not an outage


def test_a_leased_connection_lost_with_its_server_makes_the_cluster_suspect(
    reached: ShardDatastore, owner_url: str
) -> None:
    conn = reached.lease()
    pid = conn.info.backend_pid
    with psycopg.connect(owner_url, autocommit=True) as killer:
        killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
    try:
        with pytest.raises(psycopg.OperationalError) as lost:
            conn.execute("SELECT 1")
        error = reached.failed(lost.value)
    finally:
        reached.release(conn)  # the pool discards it
    assert isinstance(error, ShardUnavailable)
    assert error.__cause__ is lost.value
    assert reached.pool.timeout == SUSPECT_WAIT_S  # waits less for a new connection…
    reached.release(reached.lease())  # …until the cluster gives one again
    assert reached.pool.timeout != SUSPECT_WAIT_S


@pytest.fixture
def small(app_url: str) -> Iterator[ShardDatastore]:
    """Shard 0's datastore with a pool of two connections at most, on a real server."""
    store = datastore_for(app_url, pool_size=1, shards=(0,))
    try:
        yield store
    finally:
        store.close()


def test_a_probe_that_finds_every_pooled_connection_busy_asks_the_cluster_and_opens_no_breaker(
    small: ShardDatastore,
) -> None:
    # Given a pool whose every connection is in use by requests (a home cluster under load)
    held = [small.lease(), small.lease()]
    try:
        # When /readyz probes it
        answered = small.probe(timeout=0.2)
    finally:
        for conn in held:
            small.release(conn)
    # Then the cluster answered on a connection of its own: it is busy, not down,
    assert answered
    # and its requests are not refused by a breaker (nor kept to the suspect's short wait)
    small.release(small.lease())
    assert small.pool.timeout != SUSPECT_WAIT_S


def test_a_probe_of_a_cluster_that_is_down_opens_the_breaker(nowhere: ShardDatastore) -> None:
    started = time.monotonic()
    assert not nowhere.probe(timeout=0.2)
    with pytest.raises(ShardUnavailable, match="did not answer moments ago"):
        nowhere.lease()
    assert time.monotonic() - started < 3  # no connect of its own waits past libpq's 2 s


@pytest.fixture
def silent() -> Iterator[list[ShardDatastore]]:
    """The datastores of shards 3 and 4, each on a cluster that takes connections and never
    answers (as a host that hangs does): a listening socket that accepts nothing."""
    listeners, stores = [], []
    for shard in (3, 4):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        listeners.append(listener)
        port = listener.getsockname()[1]
        store = datastore_for(
            f"postgresql://postgres@127.0.0.1:{port}/postgres", shards=(shard,), wait=False
        )
        store.pool.timeout = 0.3
        stores.append(store)
    try:
        yield stores
    finally:
        for listener in listeners:  # first: the pools' pending connects then fail at once
            listener.close()
        for store in stores:
            store.close()


def test_readyz_probes_its_clusters_together_so_hung_ones_stay_within_the_kubelets_timeout(
    silent: list[ShardDatastore], reached: ShardDatastore
) -> None:
    # Given two clusters that hang (each probe waits the pool, then libpq's 2 s connect) and
    # one that answers, holding two shards
    stores = [reached, *silent, reached, object()]  # and a store that is not a cluster's
    # When /readyz probes them all
    started = time.monotonic()
    answers = probe_clusters(stores)
    took = time.monotonic() - started
    # Then each shard gets its cluster's answer, in order,
    assert answers == [True, False, False, True, True]
    # in about one hung cluster's time, not two: under the kubelet's 3 s (k8s/base/api.yaml)
    assert took < 3.0, f"probing took {took:.1f} s"
