"""Turning a libpq URL into the eventsourcing library's PostgreSQL datastore."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from eventsourcing.postgres import PostgresDatastore
from psycopg.conninfo import conninfo_to_dict

from infra.store.names import SCHEMA

_PASSED_BY_LIBRARY = frozenset({"dbname", "host", "port", "user", "password"})


def datastore_for(url: str, *, pool_size: int = 4, lock_timeout_s: int = 10) -> PostgresDatastore:
    """A pooled datastore in schema `senki`, its pool already open.

    The library opens the pool lazily on every call, and two threads doing so at once trip
    psycopg_pool's assertions; opening it here, once, avoids that race.
    """
    params = conninfo_to_dict(url)
    datastore = PostgresDatastore(
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
    datastore.pool.open(wait=True, timeout=10.0)
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
