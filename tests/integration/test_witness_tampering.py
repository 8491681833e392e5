"""Every player a witness (issue 37): a superuser who rewrites the log is caught by a witness
that kept an earlier checkpoint.

Given a fight, and a witness (`senki witness`, its state in a file) that kept each shard's
checkpoint; when a superuser edits (and relinks), deletes, inserts or reorders an event, or
cuts the tail — whether or not they also wipe the stored checkpoints, and whether the service
is restarted or still running — then the witness's next run exits 1 with the evidence: the log
refuses to sign (503, the first disagreeing leaf), cannot prove consistency, or shrank. An edit
that leaves the chain broken keeps every chain hash, so the tree cannot see it: that is
`senki verify`'s (tests/integration/test_tamper_matrix.py), and the table page's bundle check.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from infra import bootstrap
from infra.cli.main import app as cli
from infra.cli.witness import FAILED, OK, UNREACHABLE, run_witness
from infra.services.runtime import Runtime
from infra.store.bundle import export_bundle, verify_bundle
from infra.store.bundle_proofs import with_proofs
from infra.store.chain import ChainRow, link
from infra.store.log_tree import ShardTree
from infra.store.migrate import migrate
from infra.store.note import derive_signer
from tests.integration.test_audit import small_fight
from tests.integration.test_tamper_matrix import (
    Table,
    cut_tail,
    cut_tail_unwitnessed,
    delete,
    edit_rechained,
    edited_die,
    insert,
    reorder,
    resalted_rechained,
)
from tests.support import databases
from tests.support import transparency as independent
from tests.support.runtime import settings_for, start_runtime
from tests.support.tampering import senki_verify, superuser

pytestmark = pytest.mark.postgres


@dataclass
class Witnessed:
    """The fight, and the file in which a witness kept its checkpoints."""

    table: Table
    state: Path
    app_url: str
    owner_url: str

    def run(self, runtime: Runtime | None = None, **settings: Any) -> tuple[int, str]:
        """One witness run against the service as it now starts (or `runtime`)."""
        started = runtime or bootstrap.start(
            settings_for(self.app_url, self.owner_url).model_copy(update=settings)
        )
        lines: list[str] = []
        try:
            with TestClient(create_app(lambda: started, lambda _: None)) as client:
                code = run_witness(client, self.state, None, lines.append, delay=0.01)
        finally:
            if runtime is None:
                started.close()
        return code, "\n".join(lines)


@pytest.fixture
def witnessed(app_url: str, owner_url: str, tmp_path: Path) -> Witnessed:
    runtime = start_runtime(app_url, owner_url)
    try:
        table = Table.kept(runtime, app_url, owner_url, small_fight(runtime, reveal=False), {})
    finally:
        runtime.close()
    kept = Witnessed(table, tmp_path / "witness.json", app_url, owner_url)
    code, output = kept.run()
    assert code == OK, output
    return kept


def wipe_checkpoints(t: Table) -> None:
    """What a superuser covering their tracks also does: forget every checkpoint signed."""
    t.sql(f"DELETE FROM senki.checkpoints_{t.shard}")


TAMPERINGS: dict[str, Callable[[Table], str]] = {
    "edit, chain recomputed": edit_rechained,
    "edited die, chain recomputed": edited_die,
    "salt replaced, chain recomputed": resalted_rechained,
    "delete": delete,
    "insert": insert,
    "reorder": reorder,
    "cut tail": cut_tail,
}


@pytest.mark.parametrize("wiped", [False, True], ids=["checkpoints kept", "checkpoints wiped"])
@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_a_witness_holding_an_earlier_checkpoint_catches_the_rewrite(
    witnessed: Witnessed, name: str, wiped: bool
) -> None:
    assert witnessed.run()[0] == OK  # untouched, the log still extends what was kept
    TAMPERINGS[name](witnessed.table)
    if wiped:
        wipe_checkpoints(witnessed.table)
    code, evidence = witnessed.run()
    assert code == FAILED, evidence
    if wiped:  # the log signs its new history, which no proof joins to the kept one
        assert "the consistency proof" in evidence or "shrank" in evidence, evidence
        assert "--- kept ---" in evidence
    else:  # the log itself sees the stored checkpoints disagree, and refuses
        assert "log-tree-disagrees" in evidence
        assert "first disagreeing leaf" in evidence


RESTARTED = [
    "edit, chain recomputed",
    "salt replaced, chain recomputed",
    "delete",
    "insert",
    "reorder",
    "cut tail",
]


@pytest.mark.parametrize("name", RESTARTED)
def test_after_a_restart_the_503_names_exactly_the_first_leaf_that_changed(
    witnessed: Witnessed, name: str
) -> None:
    """The process that signed is gone: the tree is rebuilt from the tampered events, and the
    leaves kept with each checkpoint say exactly where the log parts from what was signed."""
    t = witnessed.table
    with superuser(t.owner_url) as conn:
        signed = [r[0] for r in conn.execute(f"SELECT notification_id FROM {t.events} ORDER BY 1")]
    said = TAMPERINGS[name](t)  # "position P": the first row changed ("… after P …": cut)
    if name.endswith(", chain recomputed"):
        said = f"position {t.positions[t.version_of('CombatantJoined.v1')]}"
    at = int(said.split("position ")[1].split()[0])
    first = sum(p <= at for p in signed) if name == "cut tail" else sum(p < at for p in signed)
    runtime = start_runtime(t.app_url, t.owner_url)  # a new process on the same database
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            refused = client.get(f"/v1/log/{t.shard}/checkpoint")
    finally:
        runtime.close()
    assert refused.status_code == 503, refused.text
    found = refused.json()["evidence"]
    assert found["leaf_index"] == first, found
    assert f"the first disagreeing leaf is leaf {first}" in found["detail"], found
    if name not in {"cut tail", "delete"}:  # else another event, or none, stands there
        assert found["position"] == at, found


def test_leaves_a_superuser_changed_in_the_checkpoints_point_nowhere_but_the_range(
    witnessed: Witnessed,
) -> None:
    """The stored leaves are believed only as far as a signed root vouches for them: forged
    to blame another leaf, they are set aside and the evidence is the range again."""
    t = witnessed.table
    edit_rechained(t)
    checkpoints = f"senki.checkpoints_{t.shard}"
    t.sql(
        f"ALTER TABLE {checkpoints} DISABLE TRIGGER append_only_rows",
        f"UPDATE {checkpoints} SET leaves = overlay(leaves placing '\\x00'::bytea from 1)",
        f"ALTER TABLE {checkpoints} ENABLE TRIGGER append_only_rows",
    )
    runtime = start_runtime(t.app_url, t.owner_url)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            refused = client.get(f"/v1/log/{t.shard}/checkpoint")
    finally:
        runtime.close()
    assert refused.status_code == 503, refused.text
    found = refused.json()["evidence"]
    assert "the first disagreeing leaf is between leaf 0" in found["detail"], found
    assert found["leaf_index"] == 0, found


def test_a_schema_11_log_migrated_again_keeps_leaves_from_its_next_checkpoint_on(
    witnessed: Witnessed,
) -> None:
    """Checkpoints signed before schema 12 kept no leaves: migrated again, the table gets the
    columns, the old rows stay as they were, and the next checkpoint keeps the leaves from
    the last old one on (a restart's evidence is exact past it, the range before it)."""
    t = witnessed.table
    checkpoints = f"senki.checkpoints_{t.shard}"
    t.sql(
        f"ALTER TABLE {checkpoints} DROP COLUMN leaves_from, DROP COLUMN leaves",
        "DELETE FROM senki.schema_migrations WHERE version > 11",
    )
    migrate(t.owner_url, app_role=databases.APP_ROLE, shards=databases.shard_count())
    runtime = start_runtime(t.app_url, t.owner_url)
    try:
        _grow(runtime, t.shard)
        runtime.log_trees.tree(t.shard).checkpoint()
    finally:
        runtime.close()
    with superuser(t.owner_url) as conn:
        rows = conn.execute(
            f"SELECT tree_size, leaves_from, length(leaves) FROM {checkpoints} ORDER BY 1"
        ).fetchall()
    assert len(rows) == 2, rows
    (old, *before), (new, *after) = rows
    assert before == [None, None], rows  # signed before schema 12: nothing added to it
    assert after == [old, (new - old) * 32], rows


def _grow(runtime: Runtime, shard: int) -> None:
    """Append to `shard`'s log (with several shards, a new fight may land on another)."""
    for _ in range(50):
        log = UUID(runtime.roll_logs.open("grow", by="gm").id)
        if runtime.ledger.shard_of(log) == shard:
            runtime.roll_logs.roll(log, "1D6", by="gm")
            return
    raise AssertionError(f"no roll log landed on shard {shard} in 50 tries")


def test_the_running_service_refuses_to_sign_once_its_tree_and_log_part(
    witnessed: Witnessed,
) -> None:
    t = witnessed.table
    runtime = start_runtime(t.app_url, t.owner_url)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            assert client.get(f"/v1/log/{t.shard}/checkpoint").status_code == 200
            edit_rechained(t)
            _grow(runtime, t.shard)  # the edited shard's log grows: a checkpoint is due
            refused = client.get(f"/v1/log/{t.shard}/checkpoint")
            proof = client.get(f"/v1/log/{t.shard}/consistency", params={"first": 1, "second": 2})
        code, evidence = witnessed.run(runtime)
    finally:
        runtime.close()
    assert refused.status_code == 503, refused.text
    found = refused.json()["evidence"]
    edited = t.positions[t.version_of("CombatantJoined.v1")]
    assert found["position"] == edited, found
    assert "rewritten" in found["detail"]
    assert proof.status_code == 503
    assert code == FAILED, evidence


@pytest.mark.parametrize(
    ("tamper", "nth"),
    [(edit_rechained, 0), (delete, 1)],
    ids=["rewritten and relinked", "removed"],
)
def test_leaves_added_for_a_reader_are_checked_before_the_next_checkpoint_is_signed(
    witnessed: Witnessed, tamper: Callable[[Table], str], nth: int
) -> None:
    """A command's answer (or any read) extends the tree past its last leaf without the check
    of the leaves held; an event rewritten, or removed, after that is still found before
    anything is signed. Under the tree's lock only the leaves added since the last whole-log
    check are counted: the whole-log count, made without the lock before each checkpoint,
    is what finds an event removed from among the leaves checked before."""
    t = witnessed.table
    runtime = start_runtime(t.app_url, t.owner_url)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            assert client.get(f"/v1/log/{t.shard}/checkpoint").status_code == 200
            _grow(runtime, t.shard)
            head = runtime.ledger.head(shard=t.shard).position
            assert runtime.log_trees.entries(t.shard, [head])  # as a reader's answer asks
            changed = t.positions[t.version_of("CombatantJoined.v1", nth)]
            tamper(t)
            refused = client.get(f"/v1/log/{t.shard}/checkpoint")
    finally:
        runtime.close()
    assert refused.status_code == 503, refused.text
    assert refused.json()["evidence"]["position"] == changed


def test_a_whole_log_check_under_way_holds_no_commands_leaves_back(
    witnessed: Witnessed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given a checkpoint whose count of the whole log is under way (held here), when a command
    appends and its answer asks for its leaves, then they come at once: the count takes time
    in proportion to the log, and a metrics scrape or a witness's poll must not stop play."""
    t = witnessed.table
    counting, release = threading.Event(), threading.Event()
    real = ShardTree._still_kept

    def held(tree: ShardTree, *args: Any, **kwargs: Any) -> bool:
        if kwargs.get("after") == 0:  # the whole-log count
            counting.set()
            assert release.wait(30)
        return real(tree, *args, **kwargs)

    monkeypatch.setattr(ShardTree, "_still_kept", held)
    runtime = start_runtime(t.app_url, t.owner_url)
    try:
        tree = runtime.log_trees.tree(t.shard)
        assert tree.tree_size() > 0  # built (a build reads and checks the log under the lock)
        _grow(runtime, t.shard)
        signing = threading.Thread(target=tree.checkpoint)
        signing.start()
        assert counting.wait(30), "the checkpoint did not count the log"
        _grow(runtime, t.shard)
        head = runtime.ledger.head(shard=t.shard).position
        asked = time.monotonic()
        found = runtime.log_trees.entries(t.shard, [head])
        waited = time.monotonic() - asked
        release.set()
        signing.join(30)
    finally:
        release.set()
        runtime.close()
    assert head in found
    assert waited < 5, f"the leaves waited {waited:.1f} s for the count"


@pytest.fixture
def three_shards(
    pg_server: databases.TestServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, str]]:
    """A log of three shards, none holding an event yet, whatever the run's shard count."""
    monkeypatch.setenv("SENKI_TEST_SHARDS", "3")
    with pg_server.fresh_database(shards=3) as name:
        yield pg_server.url(name, user=databases.APP_ROLE), pg_server.url(name)


def test_a_witness_of_shards_still_empty_keeps_their_empty_checkpoints_then_their_growth(
    three_shards: tuple[str, str], tmp_path: Path
) -> None:
    """A deployment whose shards hold no event yet: each is signed as the tree of 0 leaves
    under its own origin, and its first events are proved an extension of that."""
    app_url, owner_url = three_shards
    state = tmp_path / "witness.json"
    runtime = start_runtime(app_url, owner_url)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            origins = client.get("/v1/log/key").json()["origins"]
            lines: list[str] = []
            first = run_witness(client, state, None, lines.append, delay=0.01)
            empty = json.loads(state.read_text())["checkpoints"]
            for shard in range(3):
                _grow(runtime, shard)
            second = run_witness(client, state, None, lines.append, delay=0.01)
            grown = json.loads(state.read_text())["checkpoints"]
    finally:
        runtime.close()
    assert (first, second) == (OK, OK), lines
    assert [empty[str(i)].split("\n")[:2] for i in range(3)] == [[o, "0"] for o in origins]
    assert all(int(grown[str(i)].split("\n")[1]) >= 2 for i in range(3)), grown


def test_a_checkpoint_signed_with_another_key_is_refused(witnessed: Witnessed) -> None:
    """The host swaps the log's key (a forged checkpoint): the witness kept the real vkey."""
    code, evidence = witnessed.run(log_key_names=["forged.example"])
    assert code == FAILED, evidence
    assert "does not verify" in evidence


def test_a_witness_of_the_old_key_follows_the_log_through_a_key_rotation(
    witnessed: Witnessed,
) -> None:
    """A rotation appends a key name: checkpoints are signed by every listed key, so the
    witness that trusted the old one still verifies them, and the new vkey is published."""
    rotated = {"log_key_names": ["127.0.0.1:8000", "senki.example/2027"]}
    settings = settings_for(witnessed.app_url, witnessed.owner_url).model_copy(update=rotated)
    runtime = bootstrap.start(settings)
    try:
        _grow(runtime, witnessed.table.shard)  # the next checkpoint is signed anew
        code, output = witnessed.run(runtime)
    finally:
        runtime.close()
    assert code == OK, output
    kept = json.loads(witnessed.state.read_text())
    note = kept["checkpoints"][str(witnessed.table.shard)]
    assert "\u2014 127.0.0.1:8000 " in note
    assert "\u2014 senki.example/2027 " in note


class StaleLog:
    """A host that keeps serving the checkpoint the witness already has of one shard while
    that shard's log grows (the other shards answered as they are: serving this note for
    them too would be a checkpoint of another origin, which the witness rightly refuses)."""

    def __init__(self, client: TestClient, shard: int, note: str) -> None:
        self.client, self.shard, self.note = client, shard, note

    def get(self, path: str) -> httpx.Response:
        if path == f"/v1/log/{self.shard}/checkpoint":
            return httpx.Response(200, text=self.note)
        return self.client.get(path)


def test_a_log_whose_checkpoint_lags_its_head_past_the_signing_delay_is_reported(
    witnessed: Witnessed,
) -> None:
    t = witnessed.table
    runtime = start_runtime(t.app_url, t.owner_url)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            old = client.get(f"/v1/log/{t.shard}/checkpoint").text
            _grow(runtime, t.shard)
            lines: list[str] = []
            code = run_witness(
                StaleLog(client, t.shard, old),  # type: ignore[arg-type]
                witnessed.state,
                None,
                lines.append,
                delay=0.01,
            )
    finally:
        runtime.close()
    assert code == FAILED
    failed = [line for line in lines if line.startswith("FAIL")]
    assert len(failed) == 1, lines  # the stale shard alone: the others are answered honestly
    assert f"shard {t.shard}: " in failed[0], lines
    assert "stopped signing" in failed[0], lines


def test_an_unreachable_service_is_exit_3_from_the_command_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["witness", "http://127.0.0.1:9", "--state", str(tmp_path / "w.json")]
    )
    assert result.exit_code == UNREACHABLE, result.output
    assert "UNREACHABLE" in result.output


def test_the_witness_keeps_each_shards_checkpoint_and_the_trusted_key(
    witnessed: Witnessed,
) -> None:
    kept = json.loads(witnessed.state.read_text())
    assert kept["vkey"].count("+") >= 2
    note = kept["checkpoints"][str(witnessed.table.shard)]
    assert len(base64.b64decode(note.split("\n")[2])) == 32  # the root the checkpoint carries


# --- the audit bundle, pinned to the signed log ---------------------------------------------


def pinned_bundle(app_url: str, owner_url: str) -> tuple[dict[str, Any], str]:
    runtime = start_runtime(app_url, owner_url)
    try:
        fight = small_fight(runtime, reveal=False)
        bundle = with_proofs(export_bundle(runtime.ledger, fight), runtime.log_trees)
        vkey = runtime.log_trees.vkeys[-1]
    finally:
        runtime.close()
    return json.loads(json.dumps(bundle)), vkey


def test_a_bundle_carries_a_checkpoint_and_every_events_inclusion_proof(
    app_url: str, owner_url: str
) -> None:
    bundle, vkey = pinned_bundle(app_url, owner_url)
    report = verify_bundle(bundle, vkey)
    assert report.ok, [str(p) for p in report.problems]
    assert f"signed by {vkey}" in report.pinned
    assert "NOT checked" in verify_bundle(bundle).pinned
    for event in bundle["events"]:
        proof = event["inclusion"]
        leaf = bytes.fromhex(event["chain_hash"])
        hashes = [base64.b64decode(h) for h in proof["hashes"]]
        signed = independent.open_checkpoint(bundle["checkpoint"], independent.parse_vkey(vkey))
        assert independent.root_from_inclusion(
            proof["leaf_index"], proof["tree_size"], leaf, hashes
        ) == (signed.root)


def test_a_forged_bundle_whose_links_were_recomputed_fails_its_inclusion_proof(
    app_url: str, owner_url: str
) -> None:
    """The last event edited and its link recomputed, the head with it: the chain checks of
    the bundle hold, only the signed checkpoint can tell."""
    bundle, vkey = pinned_bundle(app_url, owner_url)
    last = bundle["events"][-1]
    edited = last["state"].replace('"by":"gm"', '"by":"p1"', 1)
    assert edited != last["state"], last["state"]
    last["state"] = edited
    row = ChainRow(
        last["position"],
        UUID(bundle["encounter_id"]),
        last["version"],
        last["topic"],
        last["state"].encode(),
        last["chain_prev"],
        None,
        bytes.fromhex(last["chain_salt"]),  # the forger holds the bundle, salts and all
    )
    last["chain_hash"] = last["log"]["chain_hash"] = link(
        bytes.fromhex(last["prev_hash"]), row
    ).hex()
    if bundle["head"]["position"] == last["position"]:
        bundle["head"]["chain_hash"] = last["chain_hash"]
    problems = [str(p) for p in verify_bundle(bundle, vkey).problems]
    assert problems == [
        f"position {last['position']}, version {last['version']}: the event's chain hash is not "
        f"leaf {last['inclusion']['leaf_index']} of the signed checkpoint: the bundle is not "
        "what the log holds"
    ]


def test_a_bundle_with_a_checkpoint_of_another_key_is_refused(app_url: str, owner_url: str) -> None:
    bundle, _ = pinned_bundle(app_url, owner_url)
    other = derive_signer(bytes(32), "forged.example").verifier.vkey
    problems = [str(p) for p in verify_bundle(bundle, other).problems]
    assert any("the checkpoint does not verify" in p for p in problems), problems


def test_senki_verify_proves_a_cut_tail_by_a_checkpoint_larger_than_the_log(
    witnessed: Witnessed,
) -> None:
    """Every other cross-reference removed too: the signed checkpoint still says how far the
    log went."""
    t = witnessed.table
    assert senki_verify(t.app_url, t.owner_url).code == 0
    cut_tail_unwitnessed(t)
    verdict = senki_verify(t.app_url, t.owner_url, columns=300)
    assert verdict.code == 1, verdict.output
    assert f"FAIL shard {t.shard}: its Merkle tree: a checkpoint of" in verdict.output
    assert "events were removed from its tail" in verdict.output


def test_a_bundles_events_name_their_leaf_as_readers_get_it(app_url: str, owner_url: str) -> None:
    bundle, vkey = pinned_bundle(app_url, owner_url)
    first = bundle["events"][0]
    assert first["log"] == {
        "shard": bundle["shard"],
        "position": first["position"],
        "leaf_index": first["inclusion"]["leaf_index"],
        "chain_hash": first["chain_hash"],
    }
    first["log"]["leaf_index"] += 1
    problems = [str(p) for p in verify_bundle(bundle, vkey).problems]
    assert problems == [
        f"position {first['position']}, version 1: the event's log entry does not name the "
        "leaf its inclusion proof proves"
    ]
