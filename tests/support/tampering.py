"""What an attacker does to the database, and `senki verify` run as a user runs it (issue 15).

Each tampering helper acts with the access its attacker has: `app_url` is the service role
(INSERT/SELECT on the log and its sidecars), `owner_url` a superuser, who can switch off the
triggers (`session_replication_role = replica`) and edit or delete rows.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
from typer.testing import CliRunner

from infra.cli.main import app
from infra.store.chain import ChainRow, genesis_hash, link
from infra.store.names import ShardTables
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY


@dataclass(frozen=True)
class Verdict:
    """`senki verify` as a user sees it: the exit code and everything it printed."""

    code: int
    output: str

    def document(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.output)
        return parsed


def senki_verify(app_url: str, owner_url: str, *args: str, columns: int = 80) -> Verdict:
    """Run `senki verify ARGS` through the real command line, against the test database."""
    env = {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_SHARDS": str(shard_count()),
        "COLUMNS": str(columns),
    }
    result = CliRunner().invoke(app, ["verify", *args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Verdict(result.exit_code, result.output)


def superuser(owner_url: str) -> psycopg.Connection[tuple[Any, ...]]:
    """A superuser session with every trigger off, as someone who means to hide an edit."""
    conn = psycopg.connect(owner_url, autocommit=True)
    conn.execute("SET session_replication_role = replica")
    return conn


def event_at(
    conn: psycopg.Connection[tuple[Any, ...]], stream: UUID, version: int, shard: int = 0
) -> tuple[int, bytes]:
    """The position and chain hash of a stream's event at a version."""
    row = conn.execute(
        f"SELECT notification_id, chain_hash FROM senki.events_{shard} "
        "WHERE originator_id = %s AND originator_version = %s",
        (stream, version),
    ).fetchone()
    assert row is not None, f"no event {stream} v{version}"
    return int(str(row[0])), bytes(row[1])  # type: ignore[arg-type]


def forge_snapshot(
    app_url: str, stream: UUID, version: int, topic: str, data: dict[str, Any], *, shard: int = 0
) -> None:
    """Insert a snapshot as the service role, filling in a seal if the table asks for one (the
    real chain position and hash, and a MAC the service role cannot compute)."""
    with psycopg.connect(app_url, autocommit=True) as conn:
        columns = {
            str(row[0])
            for row in conn.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = 'senki' AND table_name = %s",
                (f"snapshots_{shard}",),
            )
        }
        row: dict[str, Any] = {
            "originator_id": stream,
            "originator_version": version,
            "topic": topic,
            "state": json.dumps(data).encode(),
        }
        if "mac" in columns:
            position, chain_hash = event_at(conn, stream, version, shard)
            row |= {"chain_position": position, "chain_hash": chain_hash, "mac": os.urandom(32)}
        names = ", ".join(row)
        marks = ", ".join(["%s"] * len(row))
        conn.execute(
            f"INSERT INTO senki.snapshots_{shard} ({names}) VALUES ({marks})",  # type: ignore[arg-type]
            list(row.values()),
        )


def rechain(conn: psycopg.Connection[tuple[Any, ...]], shard: int = 0) -> None:
    """Recompute every link of a shard, as a superuser covering an edit would."""
    rows = conn.execute(
        f"SELECT notification_id, originator_id, originator_version, topic, state, chain_salt "
        f"FROM senki.events_{shard} ORDER BY notification_id"
    ).fetchall()
    previous_position, previous = 0, genesis_hash(ShardTables(shard).chain_genesis)
    for position, stream, version, topic, state, salt in rows:
        row = ChainRow(
            int(str(position)),
            stream,  # type: ignore[arg-type]
            int(str(version)),
            str(topic),
            bytes(state),  # type: ignore[arg-type]
            None,
            None,
            None if salt is None else bytes(salt),  # type: ignore[arg-type]
        )
        previous = link(previous, row)
        conn.execute(
            f"UPDATE senki.events_{shard} SET chain_prev = %s, chain_hash = %s "
            "WHERE notification_id = %s",
            (previous_position, previous, row.position),
        )
        previous_position = row.position
