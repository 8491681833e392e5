"""The tamper matrix (issue 15 §3): every tampering is found by `senki verify`.

Given a revealed fight (server and hand dice), an idempotency-keyed last write, a sealed
snapshot and read models caught up, and the receipt (head) a player kept; when one tampering
is done with the access its attacker has; then `senki verify` alone exits 1 naming the first
bad place — or, for a cut the database cannot witness, exits 0 saying plainly that only a kept
receipt can prove it — and `senki verify --expect-head RECEIPT` exits 1 naming it.
`senki verify --bundle` rejects each edited bundle field.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from domain.encounter import aggregate as encounter
from infra.projector.runner import Projector
from infra.services.executor import Idempotency, snapshot_topic
from infra.services.runtime import Runtime
from infra.store.bundle import export_bundle
from infra.store.verify import ONLY_A_RECEIPT
from tests.integration.test_audit import GM, small_fight
from tests.support.runtime import start_runtime
from tests.support.tampering import (
    Verdict,
    forge_snapshot,
    rechain,
    senki_verify,
    superuser,
)

pytestmark = pytest.mark.postgres


@dataclass(frozen=True)
class Table:
    """The fight as the players left it, and what they kept."""

    app_url: str
    owner_url: str
    fight: uuid.UUID
    shard: int
    positions: dict[int, int]  # version → log position
    topics: dict[int, str]  # version → topic
    receipt: str
    head: int
    genuine: dict[str, Any]  # the encounter's state, dumped as its snapshots are

    @classmethod
    def kept(
        cls, runtime: Runtime, app_url: str, owner_url: str, fight: uuid.UUID, genuine: Any
    ) -> Table:
        """The fight as it stands in `runtime`'s log now, with its shard head as the receipt."""
        shard = runtime.ledger.shard_of(fight)
        rows = export_bundle(runtime.ledger, fight)["events"]
        head = runtime.ledger.head(shard=shard)
        return cls(
            app_url,
            owner_url,
            fight,
            shard,
            {e["version"]: e["position"] for e in rows},
            {e["version"]: e["topic"] for e in rows},
            f"{head.shard}:{head.position}:{head.chain_hash}",
            head.position,
            genuine,
        )

    @property
    def events(self) -> str:
        return f"senki.events_{self.shard}"

    def version_of(self, topic: str, nth: int = 0) -> int:
        return [v for v, t in sorted(self.topics.items()) if t == topic][nth]

    def sql(self, *statements: str, args: tuple[object, ...] = ()) -> None:
        with superuser(self.owner_url) as conn:
            for statement in statements:
                conn.execute(statement, args)  # type: ignore[arg-type]

    def edit_state(self, version: int, old: str, new: str) -> None:
        self.sql(
            f"UPDATE {self.events} SET state = convert_to(replace(convert_from(state, 'UTF8'), "
            "%s, %s), 'UTF8') WHERE notification_id = %s",
            args=(old, new, self.positions[version]),
        )


@pytest.fixture
def table(app_url: str, owner_url: str) -> Table:
    runtime = start_runtime(app_url, owner_url)
    try:
        fight = small_fight(runtime, reveal=False)
        runtime.encounters.reveal(fight, GM, idempotency=Idempotency("reveal-key", "fp"))
        state, version = runtime.encounters.state(fight)
        snapshots = encounter.KIND.snapshot
        assert snapshots is not None
        genuine = json.loads(json.dumps(snapshots.dump(state)))
        runtime.ledger.save_snapshot(fight, version, snapshot_topic(encounter.KIND), genuine)
        Projector(app_url, runtime.ledger).run(threading.Event(), until_caught_up=True)
        return Table.kept(runtime, app_url, owner_url, fight, genuine)
    finally:
        runtime.close()


# --- the tamperings -------------------------------------------------------------------------


def edit(t: Table) -> str:
    version = t.version_of("CombatantJoined.v1")
    t.edit_state(version, '"name":"ace"', '"name":"brute"')
    return f"position {t.positions[version]}"


def delete(t: Table) -> str:
    version = t.version_of("CombatantJoined.v1", 1)
    t.sql(f"DELETE FROM {t.events} WHERE notification_id = %s", args=(t.positions[version],))
    return f"position {t.positions[version]}"


def insert(t: Table) -> str:
    """A forged row between two events, copying a real row's contents and link."""
    after = t.positions[3]
    t.sql(
        f"UPDATE {t.events} SET notification_id = notification_id + 1000 "
        "WHERE notification_id > %s",
        args=(after,),
    )
    t.sql(
        f"INSERT INTO {t.events} (originator_id, originator_version, topic, state, "
        "notification_id, chain_prev, chain_hash) SELECT gen_random_uuid(), 1, topic, state, "
        f"%s, chain_prev, chain_hash FROM {t.events} WHERE notification_id = %s",
        args=(after + 1, after),
    )
    return f"position {after + 1}"


def reorder(t: Table) -> str:
    first, second = t.positions[2], t.positions[3]
    t.sql(
        f"UPDATE {t.events} SET notification_id = -1 WHERE notification_id = {first}",
        f"UPDATE {t.events} SET notification_id = {first} WHERE notification_id = {second}",
        f"UPDATE {t.events} SET notification_id = {second} WHERE notification_id = -1",
    )
    return f"position {first}"


def edited_die(t: Table) -> str:
    """A server die's face changed and every link after it recomputed: the chain holds."""
    version = t.version_of("EncounterDiceRolled.v2")
    with superuser(t.owner_url) as conn:
        row = conn.execute(
            f"SELECT convert_from(state, 'UTF8') FROM {t.events} WHERE notification_id = %s",
            (t.positions[version],),
        ).fetchone()
        assert row is not None
        state = json.loads(str(row[0]))
        assert state["result"]["source"] == "server"
        face = state["result"]["rands"][0]["value"]
        state["result"]["rands"][0]["value"] = face % 6 + 1
        conn.execute(
            f"UPDATE {t.events} SET state = %s WHERE notification_id = %s",
            (json.dumps(state, separators=(",", ":")).encode(), t.positions[version]),
        )
        rechain(conn, t.shard)
    return f"position {t.positions[version]}: encounter {t.fight}: version {version}, roll #0"


def edited_seed(t: Table) -> str:
    version = t.version_of("EncounterSeedRevealed.v1")
    with superuser(t.owner_url) as conn:
        row = conn.execute(
            f"SELECT convert_from(state, 'UTF8') FROM {t.events} WHERE notification_id = %s",
            (t.positions[version],),
        ).fetchone()
        assert row is not None
        state = json.loads(str(row[0]))
        state["server_seed"] = "00" * 32
        conn.execute(
            f"UPDATE {t.events} SET state = %s WHERE notification_id = %s",
            (json.dumps(state, separators=(",", ":")).encode(), t.positions[version]),
        )
        rechain(conn, t.shard)
    return (
        f"position {t.positions[version]}: encounter {t.fight}: "
        "the revealed seed does not match the commitment"
    )


def edit_rechained(t: Table) -> str:
    """An edit with every later link recomputed: the chain holds, the sealed snapshot not."""
    edit(t)
    with superuser(t.owner_url) as conn:
        rechain(conn, t.shard)
    return "the log at or before it was rewritten"


def resalted(t: Table) -> str:
    """A row's secret salt replaced (as by someone re-salting an old event)."""
    version = t.version_of("CombatantJoined.v1")
    t.sql(
        f"UPDATE {t.events} SET chain_salt = uuid_send(gen_random_uuid()) "
        "WHERE notification_id = %s",
        args=(t.positions[version],),
    )
    return f"position {t.positions[version]}"


def unsalted(t: Table) -> str:
    """A row's salt removed, so its link would read as stored before schema 13."""
    version = t.version_of("CombatantJoined.v1")
    t.sql(
        f"UPDATE {t.events} SET chain_salt = NULL WHERE notification_id = %s",
        args=(t.positions[version],),
    )
    return f"position {t.positions[version]}"


def swapped_salts(t: Table) -> str:
    first, second = t.positions[2], t.positions[3]
    t.sql(
        f"UPDATE {t.events} e SET chain_salt = o.chain_salt FROM {t.events} o "
        "WHERE (e.notification_id, o.notification_id) IN ((%s, %s), (%s, %s))",
        args=(first, second, second, first),
    )
    return f"position {first}"


def resalted_rechained(t: Table) -> str:
    """A salt replaced and every later link recomputed: the chain holds, the sealed snapshot
    (and any witness's checkpoint) not."""
    resalted(t)
    with superuser(t.owner_url) as conn:
        rechain(conn, t.shard)
    return "the log at or before it was rewritten"


def forged_snapshot(t: Table) -> str:
    version = max(t.positions) - 1  # the genuine snapshot stands at the last version
    forge_snapshot(
        t.app_url,
        t.fight,
        version,
        snapshot_topic(encounter.KIND),
        t.genuine | {"encounter": t.genuine["encounter"] | {"ended": True}},
        shard=t.shard,
    )
    return f"snapshot of stream {t.fight} at version {version} does not carry a valid MAC"


def cut_tail(t: Table) -> str:
    t.sql(f"DELETE FROM {t.events} WHERE notification_id > %s", args=(t.head - 2,))
    return f"events after position {t.head - 2} were removed"


def _cut_everything(t: Table, after: int) -> None:
    t.sql(
        f"DELETE FROM {t.events} WHERE notification_id > {after}",
        f"DELETE FROM senki.idempotency_{t.shard}",
        f"DELETE FROM senki.snapshots_{t.shard}",
        "DELETE FROM senki.placements",
        "DELETE FROM senki_read.tracking",
    )


def cut_tail_unwitnessed(t: Table) -> str:
    _cut_everything(t, t.head - 2)
    return f"events after position {t.head - 2} were removed"


def emptied_log(t: Table) -> str:
    t.sql(f"DELETE FROM {t.events}")
    return "events after position 0 were removed"


def emptied_log_unwitnessed(t: Table) -> str:
    _cut_everything(t, 0)
    return "events after position 0 were removed"


@dataclass(frozen=True)
class Case:
    tamper: Callable[[Table], str]  # does it; returns what names the first bad place
    alone_finds: bool = True  # False: only the receipt can, and verify must say so


CASES = {
    "edit": Case(edit),
    "delete": Case(delete),
    "insert": Case(insert),
    "reorder": Case(reorder),
    "edited die": Case(edited_die),
    "edited seed": Case(edited_seed),
    "edit, chain recomputed": Case(edit_rechained),
    "salt replaced": Case(resalted),
    "salt removed": Case(unsalted),
    "salts swapped": Case(swapped_salts),
    "salt replaced, chain recomputed": Case(resalted_rechained),
    "forged snapshot": Case(forged_snapshot),
    "cut tail": Case(cut_tail),
    "cut tail, witnesses removed": Case(cut_tail_unwitnessed, alone_finds=False),
    "emptied log": Case(emptied_log),
    "emptied log, witnesses removed": Case(emptied_log_unwitnessed, alone_finds=False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_every_tampering_is_found(table: Table, name: str) -> None:
    case = CASES[name]
    assert senki_verify(table.app_url, table.owner_url).code == 0  # untouched, it holds

    named = case.tamper(table)
    alone = senki_verify(table.app_url, table.owner_url)
    kept = senki_verify(table.app_url, table.owner_url, "--expect-head", table.receipt)

    if case.alone_finds:
        _assert_found(alone, named)
        _assert_found(kept, named)
    else:
        assert alone.code == 0, alone.output
        assert ONLY_A_RECEIPT in alone.output
        # Only the receipt disagrees: verify says so, and what it would mean if it is exact.
        _assert_found(kept, named, verdict_says="RECEIPT DOES NOT MATCH")


def _assert_found(verdict: Verdict, named: str, *, verdict_says: str = "TAMPERING FOUND") -> None:
    assert verdict.code == 1, verdict.output
    assert verdict_says in verdict.output
    assert named in verdict.output, verdict.output


# --- bundles ------------------------------------------------------------------------------


BUNDLE_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "head hash": lambda b: b["head"].update(chain_hash="not-hex"),
    "head position": lambda b: b["head"].update(position=b["events"][-1]["position"] - 1),
    "genesis": lambda b: b.update(chain_genesis="senki/chain/v1/events_9"),
    "shard": lambda b: b.update(shard=b["shard"] + 1),
    "chain_prev": lambda b: b["events"][0].update(chain_prev=b["events"][0]["chain_prev"] + 1),
    "salt": lambda b: b["events"][1].update(chain_salt="00" * 16),
    "salt removed": lambda b: b["events"][1].pop("chain_salt"),
    "salt short": lambda b: b["events"][1].update(chain_salt=b["events"][1]["chain_salt"][:-2]),
}


def test_every_edited_bundle_field_is_rejected(
    table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = start_runtime(table.app_url, table.owner_url)
    try:
        exported = export_bundle(runtime.ledger, table.fight)
    finally:
        runtime.close()
    untouched = tmp_path / "untouched.json"
    untouched.write_text(json.dumps(exported), encoding="utf-8")
    assert senki_verify(table.app_url, table.owner_url, "--bundle", str(untouched)).code == 0
    missed = []
    for name, edit_bundle in BUNDLE_EDITS.items():
        edited = json.loads(json.dumps(exported))
        edit_bundle(edited)
        path = tmp_path / f"{name.replace(' ', '-')}.json"
        path.write_text(json.dumps(edited), encoding="utf-8")
        if senki_verify(table.app_url, table.owner_url, "--bundle", str(path)).code != 1:
            missed.append(name)
    assert missed == []
