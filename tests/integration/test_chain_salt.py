"""Salted links (schema 13, issue 37): each new event's link hashes a secret 16-byte salt the
trigger draws, so a chain hash served to a reader cannot test guesses of a hidden value; rows
stored before schema 13 keep the unsalted formula and their chains still verify.

Given a migrated shard, when rows are inserted as the service role inserts them (the
`chain_link` trigger computes every link), then each has a fresh salt and `link()` in Python
gives the trigger's hash; given rows a schema-12 trigger stored, migrated again, then both kinds
stand in one chain that `senki verify` walks clean.
"""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from infra.store.chain import SALT_BYTES, ChainRow, genesis_hash, link
from infra.store.migrate import SCHEMA_VERSION, migrate, schema_version
from infra.store.names import ShardTables
from tests.support import databases
from tests.support.chain_v12 import schema_12_chain_link
from tests.support.tampering import senki_verify

pytestmark = pytest.mark.postgres

SHARD = ShardTables(0)
EVENTS = f"senki.{SHARD.events}"

TOPIC = "CombatantJoined.v1"
STATE = b'{"combatant_id":"grunt","sheet":{"hp":321}}'


def insert(app_url: str, *, stream: uuid.UUID | None = None, state: bytes = STATE) -> None:
    """One event, inserted as the service role does: the trigger links it."""
    with psycopg.connect(app_url, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {EVENTS} (originator_id, originator_version, topic, state) "
            "VALUES (%s, 1, %s, %s)",
            (stream or uuid.uuid4(), TOPIC, state),
        )


def stored(owner_url: str) -> list[dict[str, Any]]:
    with psycopg.connect(owner_url) as conn, conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        cur.execute(
            "SELECT notification_id, originator_id, originator_version, topic, state, "
            f"chain_prev, chain_hash, chain_salt FROM {EVENTS} ORDER BY notification_id"
        )
        return cur.fetchall()


def chain_row(row: dict[str, Any], *, salt: bytes | None) -> ChainRow:
    return ChainRow(
        int(row["notification_id"]),
        row["originator_id"],
        int(row["originator_version"]),
        row["topic"],
        bytes(row["state"]),
        row["chain_prev"],
        bytes(row["chain_hash"]),
        salt,
    )


def recomputed(rows: list[dict[str, Any]], *, salted: bool = True) -> list[bytes]:
    """Every link as `link()` computes it from the stored rows (with or without their salts)."""
    previous, links = genesis_hash(SHARD.chain_genesis), []
    for row in rows:
        salt = bytes(row["chain_salt"]) if salted and row["chain_salt"] is not None else None
        links.append(link(previous, chain_row(row, salt=salt)))
        previous = bytes(row["chain_hash"])
    return links


def test_each_new_row_has_its_own_16_byte_salt_and_python_computes_the_triggers_link(
    app_url: str, owner_url: str
) -> None:
    for _ in range(3):
        insert(app_url)  # identical topic and state

    rows = stored(owner_url)

    salts = [bytes(row["chain_salt"]) for row in rows]
    assert [len(salt) for salt in salts] == [SALT_BYTES] * 3
    assert len(set(salts)) == 3, "identical contents, yet each row drew its own salt"
    assert recomputed(rows) == [bytes(row["chain_hash"]) for row in rows]
    unsalted = recomputed(rows, salted=False)
    assert all(u != bytes(row["chain_hash"]) for u, row in zip(unsalted, rows, strict=True))


def test_two_rows_alike_but_for_their_salt_have_different_links(
    app_url: str, owner_url: str
) -> None:
    """The same stream, version, topic and state at the same place after the same link: only
    the salt differs, and so does the hash (without their salts, the two link alike)."""
    stream = uuid.uuid4()
    insert(app_url, stream=stream)
    first = stored(owner_url)[0]
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute(f"DELETE FROM {EVENTS}")
        conn.execute(f"SELECT setval('senki.{SHARD.sequence}', 1, false)")
    insert(app_url, stream=stream)
    again = stored(owner_url)[0]

    same = ("notification_id", "originator_id", "state", "topic", "chain_prev")
    assert all(first[name] == again[name] for name in same)
    assert first["chain_salt"] != again["chain_salt"]
    assert first["chain_hash"] != again["chain_hash"]
    assert recomputed([first], salted=False) == recomputed([again], salted=False)


def test_a_trigger_given_a_salt_draws_its_own(app_url: str, owner_url: str) -> None:
    """The writer does not choose the salt: the trigger overwrites whatever it is given."""
    with psycopg.connect(app_url, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {EVENTS} (originator_id, originator_version, topic, state, chain_salt) "
            "VALUES (%s, 1, %s, %s, %s)",
            (uuid.uuid4(), TOPIC, STATE, bytes(SALT_BYTES)),
        )
    assert bytes(stored(owner_url)[0]["chain_salt"]) != bytes(SALT_BYTES)


def test_rows_stored_before_schema_13_keep_their_unsalted_links_in_one_verified_chain(
    app_url: str, owner_url: str
) -> None:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(schema_12_chain_link(SHARD))  # given a shard as schema 12 left it
        conn.execute("DELETE FROM senki.schema_migrations WHERE version > 12")
    insert(app_url)
    insert(app_url)
    before = stored(owner_url)

    shards = databases.shard_count()
    assert migrate(owner_url, app_role=databases.APP_ROLE, shards=shards) == SCHEMA_VERSION == 13
    assert migrate(owner_url, app_role=databases.APP_ROLE, shards=shards) == 13  # idempotent
    insert(app_url)
    rows = stored(owner_url)

    assert schema_version(owner_url) == 13
    assert rows[:2] == before, "migrating changed no stored row"
    assert [row["chain_salt"] is None for row in rows] == [True, True, False]
    assert recomputed(rows) == [bytes(row["chain_hash"]) for row in rows]
    verdict = senki_verify(app_url, owner_url)
    assert verdict.code == 0, verdict.output
