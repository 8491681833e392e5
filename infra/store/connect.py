"""Turning a libpq URL into the eventsourcing library's PostgreSQL datastore."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import psycopg
import psycopg_pool
from eventsourcing import persistence
from eventsourcing.persistence import InterfaceError, OperationalError, PersistenceError
from eventsourcing.postgres import PostgresDatastore
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import DictRow

from infra.store.names import SCHEMA

_PASSED_BY_LIBRARY = frozenset({"dbname", "host", "port", "user", "password"})


# After a shard's cluster failed to give a connection, its requests fail at once for this long
# (each answers 503 + Retry-After) instead of each waiting out the pool's timeout again.
SHARD_DOWN_S = 2.0
SUSPECT_WAIT_S = 1.0  # longest wait for a connection to a cluster that was just down
PROBE_WAIT_S = 0.5  # /readyz: a kubelet's probe times out after 1 s by default
_ALONE_CONNECT_S = 2  # libpq's shortest connect_timeout (it reads a smaller one as 2)


class ShardUnavailable(OperationalError):
    """The PostgreSQL cluster of one or more shards does not answer (HTTP 503, Retry-After).

    An OperationalError, so every retry and "database unavailable" path treats it as before;
    it also says which shards, so the other shards' campaigns are not blamed."""

    def __init__(self, shards: tuple[int, ...], detail: str) -> None:
        names = ", ".join(str(s) for s in shards)
        super().__init__(
            f"shard {names} (its PostgreSQL cluster) is unavailable: {detail}; campaigns on "
            "other shards are served; retry shortly"
        )
        self.shards = shards


class ShardDatastore(PostgresDatastore):
    """The library's datastore for the cluster of `shards`: a failure to reach it names them.

    Failing to get a connection opens a short breaker (SHARD_DOWN_S) and, until the cluster
    answers again, waits for a connection at most SUSPECT_WAIT_S rather than the pool's
    timeout: requests for a cluster that is down answer 503 at once (or within a second)
    instead of each holding a worker for 10 s, and the pool keeps reconnecting meanwhile."""

    shards: tuple[int, ...] = ()
    _down_until: float = 0.0
    _usual_wait: float | None = None  # the pool's own timeout while the cluster is suspect

    @contextmanager
    def get_connection(self) -> Iterator[psycopg.Connection[DictRow]]:
        self._refuse_while_down()
        reached = False
        try:
            with super().get_connection() as conn:
                reached = True
                if self._usual_wait is not None:
                    self.reachable()
                yield conn
        except (OperationalError, InterfaceError) as error:
            unavailable = self._unavailable(error, reached=reached)
            if unavailable is None:
                raise
            raise unavailable from error.__cause__

    def lease(self) -> psycopg.Connection[DictRow]:
        """A pooled connection for statements in autocommit mode, taken straight from the pool:
        the library's checkout (`get_connection`: three nested context managers, a commit of
        nothing and a type-adapter check per call) cost an append about 60 µs of CPU under
        load, this about 28 (of an append's ~190). Hand it back with `release`, and a psycopg
        error met on it through `failed`, which raises what `get_connection` would have."""
        self._refuse_while_down()
        try:
            conn = self.pool.getconn()  # a PoolTimeout is a psycopg OperationalError
        except psycopg.Error as error:
            raise self.failed(error, reached=False) from error
        if self._usual_wait is not None:
            self.reachable()
        return conn

    def release(self, conn: psycopg.Connection[DictRow]) -> None:
        """Back to the pool, which rolls back or discards a connection left in a transaction,
        failed or lost."""
        self.pool.putconn(conn)

    def failed(self, error: psycopg.Error, *, reached: bool = True) -> PersistenceError:
        """The error to raise for a psycopg error on a leased connection: the library's own
        (as `get_connection` wraps it), or ShardUnavailable when the cluster is not there."""
        wrapped = as_the_library_raises(error)
        if isinstance(wrapped, (OperationalError, InterfaceError)):
            unavailable = self._unavailable(wrapped, reached=reached)
            if unavailable is not None:
                unavailable.__cause__ = error
                return unavailable
        return wrapped

    def _refuse_while_down(self) -> None:
        if self.shards and time.monotonic() < self._down_until:
            raise ShardUnavailable(self.shards, "it did not answer moments ago") from (
                psycopg_pool.PoolTimeout("shard breaker open")  # not retried (infra/store/retry)
            )

    def _unavailable(self, error: PersistenceError, *, reached: bool) -> ShardUnavailable | None:
        """ShardUnavailable if `error` (the library's) means no cluster to talk to; the
        breaker moved accordingly. None: a statement failed, not the cluster."""
        if not self.shards or not _unreachable(error):
            return None
        if reached:  # a pooled connection died with its server: retried first (retry.py),
            self.suspect()  # but no longer waiting the pool's full timeout for a new one
        else:  # no connection at all
            self.unreachable()
        return ShardUnavailable(self.shards, _first_line(error))

    def probe(self, timeout: float = PROBE_WAIT_S) -> bool:
        """Whether the cluster answers (/readyz): a pooled connection's `SELECT 1` within
        `timeout`, or, when every pooled connection is busy, one of its own. False at once
        while the breaker is open, so a probe never waits on a known outage.

        A busy pool is not an outage: the pool is shared with the requests (on the home
        cluster, with every read of the directory too), and under load it may have nothing
        free for half a second. Taking that for a cluster that is down opened the breaker,
        and every campaign of a healthy cluster answered 503 for SHARD_DOWN_S."""
        if time.monotonic() < self._down_until:
            return False
        try:
            with self.pool.connection(timeout=timeout) as conn:
                conn.execute("SELECT 1")
        except psycopg_pool.PoolTimeout:
            if self.answers_alone():
                return True  # busy, not down: the breaker stays as it is
            self.unreachable()
            return False
        except psycopg.Error:
            self.unreachable()
            return False
        self.reachable()
        return True

    def answers_alone(self) -> bool:
        """Whether the cluster answers `SELECT 1` on a connection of its own, outside the
        pool (waiting libpq's shortest connect timeout, 2 s, for a connection)."""
        kwargs = dict(self.pool.kwargs) if isinstance(self.pool.kwargs, dict) else {}
        kwargs |= {"connect_timeout": _ALONE_CONNECT_S, "autocommit": True}
        conninfo = self.pool.conninfo if isinstance(self.pool.conninfo, str) else ""
        try:
            with psycopg.connect(conninfo, **kwargs) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def unreachable(self) -> None:
        self._down_until = time.monotonic() + SHARD_DOWN_S
        self.suspect()

    def suspect(self) -> None:
        """Wait at most SUSPECT_WAIT_S for a connection until the cluster answers again."""
        if self._usual_wait is None:
            self._usual_wait = self.pool.timeout
            self.pool.timeout = SUSPECT_WAIT_S

    def reachable(self) -> None:
        """The cluster answered: close the breaker, wait the pool's usual timeout again."""
        self._down_until = 0.0
        usual, self._usual_wait = self._usual_wait, None
        if usual is not None:
            self.pool.timeout = usual


# The library's datastore turns psycopg's errors into its own, the cause kept (in this order,
# as eventsourcing.postgres.PostgresDatastore.get_connection does). A leased connection's
# errors and a refusal reported by the batch function are turned the same way, so a caller
# cannot tell them from what the library raises.
_AS_THE_LIBRARY_RAISES: tuple[tuple[type[psycopg.Error], type[PersistenceError]], ...] = (
    (psycopg.InterfaceError, persistence.InterfaceError),
    (psycopg.OperationalError, persistence.OperationalError),
    (psycopg.DataError, persistence.DataError),
    (psycopg.IntegrityError, persistence.IntegrityError),
    (psycopg.InternalError, persistence.InternalError),
    (psycopg.ProgrammingError, persistence.ProgrammingError),
    (psycopg.NotSupportedError, persistence.NotSupportedError),
    (psycopg.DatabaseError, persistence.DatabaseError),
)


def probe_clusters(stores: Sequence[object]) -> list[bool]:
    """`probe` of each store's cluster (True for a store that is not a ShardDatastore), in
    order; each cluster once however many shards it holds, all at the same time.

    One at a time, a cluster that drops packets costs the probe its pool wait and then libpq's
    2 s connect timeout (`answers_alone`), so two such clusters took /readyz past the kubelet's
    3 s (k8s/base/api.yaml) and an outage of shards made the pod unready, which it must not
    be. Together, /readyz takes as long as its slowest cluster."""
    clusters = {id(store): store for store in stores if isinstance(store, ShardDatastore)}
    if len(clusters) <= 1:
        answers = {key: store.probe() for key, store in clusters.items()}
    else:
        with ThreadPoolExecutor(len(clusters), thread_name_prefix="readyz") as pool:
            asked = {key: pool.submit(store.probe) for key, store in clusters.items()}
            answers = {key: future.result() for key, future in asked.items()}
    return [answers.get(id(store), True) for store in stores]


def as_the_library_raises(cause: psycopg.Error) -> PersistenceError:
    """A psycopg error as the library's datastore raises it: its class's counterpart, with
    the psycopg error (and its `diag`) as the cause."""
    wrapper: type[PersistenceError] = PersistenceError
    for raised, wrapped in _AS_THE_LIBRARY_RAISES:
        if isinstance(cause, raised):
            wrapper = wrapped
            break
    error = wrapper(str(cause))
    error.__cause__ = cause
    return error


def _unreachable(error: BaseException) -> bool:
    """No connection at all (pool timeout, refused, lost): not a statement that failed."""
    cause = error.__cause__
    if isinstance(cause, psycopg_pool.PoolTimeout):
        return True
    if isinstance(cause, psycopg.Error):
        state = cause.sqlstate
        return state is None or state.startswith("08") or state in {"57P01", "57P02", "57P03"}
    return False


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def datastore_for(
    url: str,
    *,
    pool_size: int = 4,
    lock_timeout_s: int = 10,
    shards: tuple[int, ...] = (),
    wait: bool = True,
) -> ShardDatastore:
    """A pooled datastore in schema `senki`, its pool already open (or opening, for a shard).

    The library opens the pool lazily on every call, and two threads doing so at once trip
    psycopg_pool's assertions; opening it here, once, avoids that race. `shards`: the shards
    on this cluster, named when it cannot be reached (none on the one-database default, whose
    outage is the whole service's). Without `wait` (a shard's own cluster) a cluster that is
    down at start-up leaves its campaigns at 503 while the others serve; its pool connects
    once it is up.
    """
    params = conninfo_to_dict(url)
    datastore = ShardDatastore(
        dbname=str(params.get("dbname", "postgres")),
        host=str(params.get("host", "127.0.0.1")),
        port=str(params.get("port", "5432")),
        user=str(params.get("user", "postgres")),
        password=str(params.get("password", "")),
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_open_timeout=None,  # else every call waits on the pool, racing across threads
        connect_timeout=10.0,
        lock_timeout=lock_timeout_s,
        schema=SCHEMA,
        # No ping on every checkout (a round trip per query): the library retries operations
        # that fail on a dead connection, and the pool drops connections that fail.
        pre_ping=False,
    )
    # The library passes only dbname/host/port/user/password on; keep every other libpq
    # parameter of the URL (sslmode, sslrootcert, application_name, options…), or a
    # `?sslmode=verify-full` would silently fall back to libpq's default `prefer`.
    extra = {k: v for k, v in params.items() if k not in _PASSED_BY_LIBRARY and v is not None}
    passed = datastore.pool.kwargs if isinstance(datastore.pool.kwargs, dict) else {}
    datastore.pool.kwargs = {**passed, **extra}
    datastore.shards = shards
    datastore.pool.open(wait=wait, timeout=10.0)
    return datastore


def with_user(url: str, user: str) -> str:
    """The same server and database, as another role (trust or peer auth setups)."""
    params = conninfo_to_dict(url)
    params["user"] = user
    params.pop("password", None)
    return to_url(params)


def with_database(url: str, database: str) -> str:
    """The same server and role, another database."""
    params = conninfo_to_dict(url)
    params["dbname"] = database
    return to_url(params)


def to_url(params: dict[str, Any]) -> str:
    """A postgresql:// URL from libpq parameters; a socket directory goes in the query string."""
    user = quote(str(params.get("user", "")), safe="")
    password = params.get("password")
    auth = f"{user}:{quote(str(password), safe='')}@" if password else (f"{user}@" if user else "")
    host = str(params.get("host", ""))
    query = ""
    if host.startswith("/"):
        query, host = "?host=" + quote(host, safe="/"), ""
    port = f":{params['port']}" if params.get("port") else ""
    database = quote(str(params.get("dbname", "")), safe="")
    return f"postgresql://{auth}{host}{port}/{database}{query}"
