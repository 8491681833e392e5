"""Real PostgreSQL servers for tests: the embedded default, and an external one when given.

Each test gets a fresh database cloned from a migrated template, so tests never see each
other's events and the migration runs once per server per session.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from infra.store.connect import with_database, with_user
from infra.store.migrate import migrate

APP_ROLE = "senki_app"
# One template per test process: two test runs against one server must not drop each other's.
TEMPLATE = f"senki_test_template_{os.getpid()}"


@dataclass
class TestServer:
    """A PostgreSQL server the tests may create databases on (superuser access)."""

    kind: str
    superuser_url: str
    template_ready: bool = False

    def url(self, database: str, user: str | None = None) -> str:
        url = with_database(self.superuser_url, database)
        return with_user(url, user) if user else url

    def _admin(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self.url("postgres"), autocommit=True)

    def _ensure_template(self, shards: int) -> None:
        if self.template_ready:
            return
        with self._admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(TEMPLATE)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEMPLATE)))
        migrate(self.url(TEMPLATE), app_role=APP_ROLE, shards=shards)
        self.template_ready = True

    def drop_template(self) -> None:
        if not self.template_ready:
            return
        with self._admin() as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(TEMPLATE))
            )
        self.template_ready = False

    @contextmanager
    def fresh_database(self, shards: int = 1) -> Iterator[str]:
        """A migrated database for one test; yields its name and drops it afterwards."""
        if shards == 1:
            self._ensure_template(shards)
        name = f"senki_t_{uuid.uuid4().hex[:12]}"
        with self._admin() as conn:
            if shards == 1:
                conn.execute(
                    sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                        sql.Identifier(name), sql.Identifier(TEMPLATE)
                    )
                )
            else:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        if shards != 1:
            migrate(self.url(name), app_role=APP_ROLE, shards=shards)
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
