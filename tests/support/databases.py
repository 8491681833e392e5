"""Real PostgreSQL servers for tests: the embedded default, and an external one when given.

Each test gets a fresh database cloned from a migrated template, so tests never see each
other's events and the migration runs once per server per session.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

from infra.store.connect import with_database, with_user
from infra.store.migrate import migrate

APP_ROLE = "senki_app"
# One template per test process: two test runs against one server must not drop each other's.
TEMPLATE = f"senki_test_template_{os.getpid()}"


def shard_count() -> int:
    """How many shards the tests' log has: SENKI_TEST_SHARDS (1 by default).

    CI runs the PostgreSQL-backed suites once more with several shards, so every route and
    service is exercised with campaigns spread over more than one events table.
    """
    return int(os.environ.get("SENKI_TEST_SHARDS", "1"))


@dataclass
class TestServer:
    """A PostgreSQL server the tests may create databases on (superuser access)."""

    kind: str
    superuser_url: str
    templates: set[int] = field(default_factory=set)

    def url(self, database: str, user: str | None = None) -> str:
        url = with_database(self.superuser_url, database)
        return with_user(url, user) if user else url

    def _admin(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self.url("postgres"), autocommit=True)

    def _template(self, shards: int) -> str:
        """A migrated template database for this shard count, made once per process."""
        name = f"{TEMPLATE}_s{shards}"
        if shards not in self.templates:
            with self._admin() as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            migrate(self.url(name), app_role=APP_ROLE, shards=shards)
            self.templates.add(shards)
        return name

    def drop_template(self) -> None:
        with self._admin() as conn:
            for shards in sorted(self.templates):
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                        sql.Identifier(f"{TEMPLATE}_s{shards}")
                    )
                )
        self.templates.clear()

    @contextmanager
    def fresh_database(self, shards: int | None = None) -> Iterator[str]:
        """A migrated database for one test; yields its name and drops it afterwards."""
        template = self._template(shard_count() if shards is None else shards)
        name = f"senki_t_{uuid.uuid4().hex[:12]}"
        with self._admin() as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(template)
                )
            )
        try:
            yield name
        finally:
            with self._admin() as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )


def external_url() -> str | None:
    return os.environ.get("SENKI_TEST_DATABASE_URL") or None


def embedded_data_dir() -> Path:
    return Path(os.environ.get("SENKI_TEST_DATA_DIR", ".senki-test")).absolute()
