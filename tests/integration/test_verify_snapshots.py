"""Snapshots are provably derived from the chain (issue 15 §3).

Given an encounter with a snapshot, when someone with the service role (or a superuser)
writes a snapshot of their own, then no load serves it — the state is rebuilt from the events,
the refusal is logged and counted — and `senki verify` names the snapshot by stream and version.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from prometheus_client import CollectorRegistry, generate_latest

from domain.encounter import aggregate as encounter
from infra.services.executor import snapshot_topic
from infra.services.runtime import Runtime
from infra.store.migrate import SCHEMA_VERSION, migrate
from infra.store.snapshot_seal import REFUSED, Refusal, RefusedSnapshotsCollector
from tests.integration.test_encounter_service import GM, opened_fight
from tests.support.databases import APP_ROLE, shard_count
from tests.support.runtime import start_runtime
from tests.support.tampering import event_at, forge_snapshot, senki_verify, superuser

pytestmark = pytest.mark.postgres

TOPIC = snapshot_topic(encounter.KIND)


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


def snapshotted_fight(runtime: Runtime) -> tuple[uuid.UUID, int]:
    """A fight with a genuine snapshot at its latest version, taken as the executor takes it."""
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    state, version = runtime.encounters.state(fight)
    snapshots = encounter.KIND.snapshot
    assert snapshots is not None
    runtime.ledger.save_snapshot(fight, version, TOPIC, snapshots.dump(state))
    return fight, version


def forged_state(runtime: Runtime, fight: uuid.UUID) -> dict[str, Any]:
    """The fight's state with the enemy renamed and the fight over: what a cheat would serve."""
    state, _ = runtime.encounters.state(fight)
    snapshots = encounter.KIND.snapshot
    assert snapshots is not None
    data = json.loads(json.dumps(snapshots.dump(state)))
    data["encounter"]["ended"] = True
    data["encounter"]["combatants"][1]["name"] = "forged"
    return data


def restarted(runtime: Runtime, app_url: str, owner_url: str) -> Runtime:
    """A new process: no cached state, every load goes through the snapshots table."""
    runtime.close()
    return start_runtime(app_url, owner_url)


def test_a_sealed_snapshot_is_used_by_a_cold_load(runtime: Runtime) -> None:
    fight, version = snapshotted_fight(runtime)

    found = runtime.ledger.latest_snapshot(fight, TOPIC)

    assert found is not None
    assert found[0] == version


def test_a_forged_snapshot_inserted_as_the_service_role_is_not_served_after_a_restart(
    runtime: Runtime, app_url: str, owner_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    genuine, version = runtime.encounters.state(fight)
    shard = runtime.ledger.shard_of(fight)
    forge_snapshot(app_url, fight, version, TOPIC, forged_state(runtime, fight), shard=shard)
    refused = REFUSED.get(Refusal.forged)

    later = restarted(runtime, app_url, owner_url)
    try:
        with caplog.at_level(logging.WARNING, logger="senki.store.snapshots"):
            served, served_version = later.encounters.state(fight)
    finally:
        later.close()

    assert served == genuine
    assert served_version == version
    assert not served.ended
    assert served.combatants[1].name == "grunt"
    assert REFUSED.get(Refusal.forged) == refused + 1
    assert f"snapshot of stream {fight} at version {version}" in caplog.text
    verdict = senki_verify(app_url, owner_url)
    assert verdict.code == 1, verdict.output
    assert f"snapshot of stream {fight} at version {version} does not carry a valid MAC" in (
        verdict.output
    )
    assert "forged" in verdict.output


def test_a_genuine_snapshot_copied_to_another_stream_is_refused(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    fight, version = snapshotted_fight(runtime)
    other = opened_fight(runtime)
    runtime.encounters.command(other, GM, "RollInitiative", {})
    shard = runtime.ledger.shard_of(fight)
    with superuser(owner_url) as conn:  # the seal as stored, moved to the other fight
        conn.execute(
            f"INSERT INTO senki.snapshots_{shard} (originator_id, originator_version, topic, "
            "state, chain_position, chain_hash, mac) SELECT %s, originator_version, topic, state, "
            f"chain_position, chain_hash, mac FROM senki.snapshots_{shard} "
            "WHERE originator_id = %s",
            (other, fight),
        )

    assert runtime.ledger.latest_snapshot(other, TOPIC) is None
    assert runtime.ledger.latest_snapshot(fight, TOPIC) is not None
    document = senki_verify(app_url, owner_url, "--json").document()
    bad = [b for s in document["shards"] for b in s["snapshots"]["bad"]]
    assert [(b["stream_id"], b["version"], b["reason"]) for b in bad] == [
        (str(other), version, "forged")
    ]


def test_a_snapshot_whose_event_was_rewritten_is_refused(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    fight, version = snapshotted_fight(runtime)
    shard = runtime.ledger.shard_of(fight)
    with superuser(owner_url) as conn:
        position, _ = event_at(conn, fight, version, shard)
        conn.execute(
            f"UPDATE senki.events_{shard} SET chain_hash = sha256(chain_hash) "
            "WHERE notification_id = %s",
            (position,),
        )

    assert runtime.ledger.latest_snapshot(fight, TOPIC) is None
    verdict = senki_verify(app_url, owner_url)
    assert verdict.code == 1
    assert f"FAIL shard {shard}, position {position}" in verdict.output
    assert "the log at or before it was rewritten" in verdict.output


def test_a_snapshot_sealed_with_the_key_but_not_derived_from_the_events_fails_verify(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    """Even a holder of the key cannot pass `senki verify`: it rebuilds every snapshot."""
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    _, version = runtime.encounters.state(fight)
    runtime.ledger.save_snapshot(fight, version, TOPIC, forged_state(runtime, fight))

    document = senki_verify(app_url, owner_url, "--json").document()

    bad = [b for s in document["shards"] for b in s["snapshots"]["bad"]]
    assert [(b["stream_id"], b["version"], b["reason"]) for b in bad] == [
        (str(fight), version, "not_rebuilt")
    ]


def test_the_service_role_cannot_insert_an_unsealed_snapshot(
    runtime: Runtime, app_url: str
) -> None:
    fight, version = snapshotted_fight(runtime)
    shard = runtime.ledger.shard_of(fight)
    with (
        psycopg.connect(app_url, autocommit=True) as conn,
        pytest.raises(psycopg.errors.CheckViolation),
    ):
        conn.execute(
            f"INSERT INTO senki.snapshots_{shard} "
            "(originator_id, originator_version, topic, state) VALUES (%s, %s, %s, '{}')",
            (fight, version + 1, TOPIC),
        )


def test_snapshots_from_before_schema_5_are_ignored_after_the_upgrade(
    app_url: str, owner_url: str
) -> None:
    """Given a schema-4 snapshots table with a snapshot in it, when the database is migrated,
    then the old snapshot stays but is never used (the encounter is rebuilt from its events),
    and `senki verify` passes, counting it as unsealed."""
    runtime = start_runtime(app_url, owner_url)
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    genuine, version = runtime.encounters.state(fight)
    shard = runtime.ledger.shard_of(fight)
    runtime.close()
    tables = [f"senki.snapshots_{index}" for index in range(shard_count())]
    with psycopg.connect(owner_url, autocommit=True) as conn:
        for table in tables:  # back to the schema-4 shape
            name = table.split(".")[1]
            conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}_sealed")
            conn.execute(
                f"ALTER TABLE {table} DROP COLUMN chain_position, DROP COLUMN chain_hash, "
                "DROP COLUMN mac"
            )
        conn.execute("DELETE FROM senki.schema_migrations WHERE version >= 6")
        conn.execute(
            f"INSERT INTO senki.snapshots_{shard} "
            "(originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
            (fight, version, TOPIC, json.dumps(forged_state_of(genuine)).encode()),
        )

    assert migrate(owner_url, app_role=APP_ROLE, shards=shard_count()) == SCHEMA_VERSION
    # safe to re-run
    assert migrate(owner_url, app_role=APP_ROLE, shards=shard_count()) == SCHEMA_VERSION
    later = start_runtime(app_url, owner_url)
    unsealed = REFUSED.get(Refusal.unsealed)
    try:
        served, _ = later.encounters.state(fight)
    finally:
        later.close()

    assert served == genuine
    assert REFUSED.get(Refusal.unsealed) == unsealed + 1
    verdict = senki_verify(app_url, owner_url)
    assert verdict.code == 0, verdict.output
    assert "1 unsealed snapshot(s), taken before schema 6" in verdict.output


def forged_state_of(state: encounter.Encounter) -> dict[str, Any]:
    snapshots = encounter.KIND.snapshot
    assert snapshots is not None
    data = json.loads(json.dumps(snapshots.dump(state)))
    data["encounter"]["ended"] = True
    return data


def test_refused_snapshots_are_counted_for_prometheus() -> None:
    registry = CollectorRegistry()
    registry.register(RefusedSnapshotsCollector())
    before = registry.get_sample_value("senki_snapshots_refused_total", {"reason": "forged"})

    REFUSED.add(Refusal.forged)

    after = registry.get_sample_value("senki_snapshots_refused_total", {"reason": "forged"})
    assert before is not None
    assert after == before + 1
    assert "senki_snapshots_refused_total" in generate_latest(registry).decode()
