"""Audit bundles: exported from real PostgreSQL, verified with no database (issue 6).

An untouched bundle holds after the runtime is closed and every connection refused; an edited
event, a removed event, a swapped pair, an edited die and a wrong seed each fail, naming the
position of the event concerned.
"""

from __future__ import annotations

import copy
import json
import socket
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from infra.cli.audit import export, run_verify_bundle
from infra.cli.audit import verify_bundle as verify_bundle_command
from infra.services.runtime import Runtime
from infra.store.bundle import FORMAT, export_bundle, verify_bundle
from infra.store.chain import ChainRow, link
from tests.integration.test_audit import small_fight
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY, start_runtime

pytestmark = pytest.mark.postgres


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


@pytest.fixture
def bundle(runtime: Runtime) -> dict[str, Any]:
    return export_bundle(runtime.ledger, small_fight(runtime))


def positions(report_problems: list[Any]) -> set[int | None]:
    return {p.position for p in report_problems}


def first(bundle: dict[str, Any], topic: str) -> int:
    return next(i for i, e in enumerate(bundle["events"]) if e["topic"] == topic)


def test_an_untouched_bundle_verifies_with_no_database(
    app_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = start_runtime(app_url, owner_url)
    fight = small_fight(runtime)
    exported = json.loads(json.dumps(export_bundle(runtime.ledger, fight)))  # as read from a file
    runtime.close()

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("verifying a bundle must not connect anywhere")

    monkeypatch.setattr(psycopg.Connection, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    report = verify_bundle(exported)

    assert report.ok, [str(p) for p in report.problems]
    assert exported["format"] == FORMAT
    assert report.events == len(exported["events"]) == exported["events"][-1]["version"]
    assert (report.dice, report.dice_recomputed, report.dice_by_hand) == (4, 2, 2)
    assert report.seed_revealed


def test_the_bundle_carries_what_a_player_needs(runtime: Runtime, bundle: dict[str, Any]) -> None:
    assert bundle["ruleset_id"] == "glorious_drive"
    assert bundle["options"]["faint_rule"] == "example"
    assert bundle["revealed_seed"] is not None
    assert bundle["events"][0]["chain_prev"] == 0  # the first event of a fresh shard
    head = runtime.ledger.head(shard=bundle["shard"])
    assert bundle["head"] == {"position": head.position, "chain_hash": head.chain_hash}
    assert bundle["events"][-1]["chain_hash"] == head.chain_hash


def test_the_bundle_carries_each_events_salt_and_its_links_recompute_with_them(
    runtime: Runtime, owner_url: str, bundle: dict[str, Any]
) -> None:
    """The operator's bundle holds the secret the API never serves: each event's chain salt,
    so its links recompute offline (schema 13)."""
    with psycopg.connect(owner_url) as conn:
        query = f"SELECT notification_id, chain_salt FROM senki.events_{bundle['shard']}"
        held = {str(p): bytes(s).hex() for p, s in conn.execute(query).fetchall()}
    assert [e["chain_salt"] for e in bundle["events"]] == [
        held[str(e["position"])] for e in bundle["events"]
    ]
    assert all(len(e["chain_salt"]) == 32 for e in bundle["events"])
    assert verify_bundle(json.loads(json.dumps(bundle))).ok


@pytest.mark.parametrize(
    "altered",
    [
        pytest.param(lambda salt: "00" * 16, id="zeroed"),
        pytest.param(lambda salt: salt[:-1] + ("0" if salt[-1] != "0" else "1"), id="one digit"),
        pytest.param(lambda salt: None, id="removed"),
    ],
)
def test_a_bundle_whose_salt_was_altered_names_the_event(
    bundle: dict[str, Any], altered: Callable[[str], str | None]
) -> None:
    edited = copy.deepcopy(bundle)
    joined = edited["events"][first(edited, "CombatantJoined.v1")]
    joined["chain_salt"] = altered(joined["chain_salt"])

    report = verify_bundle(edited)

    assert positions(report.problems) == {joined["position"]}
    assert "altered" in str(report.problems[0])


def test_an_edited_event_is_named_by_its_position(bundle: dict[str, Any]) -> None:
    edited = copy.deepcopy(bundle)
    joined = edited["events"][first(edited, "CombatantJoined.v1")]
    joined["state"] = joined["state"].replace('"name":"ace"', '"name":"brute"')
    assert "brute" in joined["state"]

    report = verify_bundle(edited)

    assert not report.ok
    assert positions(report.problems) == {joined["position"]}
    assert "altered" in str(report.problems[0])


def test_an_edit_whose_link_was_recomputed_is_caught_by_the_next_event(
    bundle: dict[str, Any],
) -> None:
    edited = copy.deepcopy(bundle)
    index = first(edited, "CombatantJoined.v1")
    joined = edited["events"][index]
    joined["state"] = joined["state"].replace('"name":"ace"', '"name":"brute"')
    row = ChainRow(
        joined["position"],
        uuid.UUID(edited["encounter_id"]),
        joined["version"],
        joined["topic"],
        joined["state"].encode(),
        joined["chain_prev"],
        None,
        bytes.fromhex(joined["chain_salt"]),  # the forger holds the bundle, salts and all
    )
    joined["chain_hash"] = link(bytes.fromhex(joined["prev_hash"]), row).hex()

    report = verify_bundle(edited)

    assert positions(report.problems) == {edited["events"][index + 1]["position"]}
    assert "previous link" in report.problems[0].reason


def test_a_removed_event_is_named(bundle: dict[str, Any]) -> None:
    edited = copy.deepcopy(bundle)
    index = first(edited, "CombatantJoined.v1")
    removed = edited["events"].pop(index)

    report = verify_bundle(edited)

    after = edited["events"][index]
    assert not report.ok
    assert positions(report.problems) == {after["position"]}
    assert f"version(s) {removed['version']} are missing" in str(report.problems[0])


def test_a_swapped_pair_is_named(bundle: dict[str, Any]) -> None:
    edited = copy.deepcopy(bundle)
    events = edited["events"]
    index = first(edited, "CommandIssued.v1")
    events[index], events[index + 1] = events[index + 1], events[index]

    report = verify_bundle(edited)

    assert not report.ok
    named = positions(report.problems)
    assert events[index]["position"] in named
    assert events[index + 1]["position"] in named
    assert any("reordered" in p.reason for p in report.problems)


def test_an_edited_die_is_named(bundle: dict[str, Any]) -> None:
    edited = copy.deepcopy(bundle)
    rolled = edited["events"][first(edited, "EncounterDiceRolled.v2")]
    state = json.loads(rolled["state"])
    assert state["result"]["source"] == "server"
    face = state["result"]["rands"][0]["value"]
    state["result"]["rands"][0]["value"] = face % 6 + 1
    rolled["state"] = json.dumps(state, ensure_ascii=False, separators=(",", ":"))

    report = verify_bundle(edited)

    assert positions(report.problems) == {rolled["position"]}
    reasons = " ".join(p.reason for p in report.problems)
    assert "altered" in reasons
    assert f"recorded {face % 6 + 1} on a d6, recomputed {face}" in reasons


def test_a_wrong_seed_is_named_at_the_reveal(bundle: dict[str, Any]) -> None:
    edited = copy.deepcopy(bundle)
    edited["revealed_seed"] = "00" * 32

    report = verify_bundle(edited)

    reveal = edited["events"][first(edited, "EncounterSeedRevealed.v1")]
    assert positions(report.problems) == {reveal["position"]}
    assert "revealed seed" in str(report.problems[0])


def test_a_wrong_seed_in_the_reveal_event_itself_is_named(bundle: dict[str, Any]) -> None:
    edited = copy.deepcopy(bundle)
    reveal = edited["events"][first(edited, "EncounterSeedRevealed.v1")]
    reveal["state"] = reveal["state"].replace(edited["revealed_seed"], "00" * 32)
    edited["revealed_seed"] = "00" * 32

    report = verify_bundle(edited)

    assert positions(report.problems) == {reveal["position"]}
    assert any("commitment" in p.reason for p in report.problems)


def test_export_then_verify_bundle_from_the_command_line(
    runtime: Runtime,
    app_url: str,
    owner_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fight = small_fight(runtime)
    for name, value in {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_SHARDS": str(shard_count()),
    }.items():
        monkeypatch.setenv(name, value)
    app = typer.Typer()
    app.command()(export)
    app.command("verify-bundle")(verify_bundle_command)
    receipt = tmp_path / "receipt.json"

    exported = CliRunner().invoke(app, ["export", str(fight), "-o", str(receipt)])
    checked = CliRunner().invoke(app, ["verify-bundle", str(receipt)])

    assert exported.exit_code == 0, exported.output
    assert checked.exit_code == 0, checked.output
    assert "holds" in checked.output
    tampered = json.loads(receipt.read_text(encoding="utf-8"))
    tampered["revealed_seed"] = "00" * 32
    receipt.write_text(json.dumps(tampered), encoding="utf-8")
    assert run_verify_bundle(receipt, Console()) == 1


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """An edit of one field: "head.chain_hash", "events.1.chain_prev", "shard"…"""

    def edit(bundle: dict[str, Any]) -> None:
        *parents, name = path.split(".")
        target: Any = bundle
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(name) if name.isdigit() else name] = value(bundle) if callable(value) else value

    return edit


def _last(field: str) -> Callable[[dict[str, Any]], object]:
    return lambda bundle: bundle["events"][-1][field]


# Issue 15 §3: each of these edits passed `verify --bundle` before (a non-hex head hash too).
HEADER_EDITS = {
    "head hash not hex": (_set("head.chain_hash", "not-a-hash"), "64-digit hex"),
    "head hash of another link": (_set("head.chain_hash", "ab" * 32), "not its link"),
    "head hash upper-case": (
        _set("head.chain_hash", lambda b: b["head"]["chain_hash"].upper()),
        "64-digit hex",
    ),
    "head before the last event": (
        _set("head.position", lambda b: b["events"][-1]["position"] - 1),
        "stands before the bundle's last event",
    ),
    "head moved past its own link": (
        _set("head.position", lambda b: b["events"][-1]["position"] + 5),
        "carries the link of position",
    ),
    "head position as text": (
        _set("head.position", lambda b: str(b["head"]["position"])),
        "no integer position",
    ),
    "genesis of another shard": (
        _set("chain_genesis", "senki/chain/v1/events_7"),
        "is not shard",
    ),
    "shard edited": (_set("shard", 3), "is not shard 3's"),
    "shard and genesis edited together": (
        lambda b: (_set("shard", 3)(b), _set("chain_genesis", "senki/chain/v1/events_3")(b)),
        "does not start from the shard's genesis",
    ),
    "shard as text": (_set("shard", "0"), "is not a shard number"),
    "first chain_prev moved off genesis": (
        _set("events.0.chain_prev", 1),
        "chain_prev must be 0",
    ),
    "chain_prev after its own position": (
        _set("events.1.chain_prev", lambda b: b["events"][1]["position"]),
        "does not stand before position",
    ),
    "chain_prev off its previous link": (
        _set("events.1.chain_prev", lambda b: b["events"][1]["chain_prev"] + 1000),
        "does not stand before position",
    ),
    "chain_prev before the previous event": (
        _set("events.2.chain_prev", lambda b: b["events"][0]["position"]),
        "stands before the bundle's previous event",
    ),
    "chain_prev as text": (
        _set("events.1.chain_prev", lambda b: str(b["events"][1]["chain_prev"])),
        "chain_prev is not an integer",
    ),
    "prev_hash with spaces": (
        _set("events.1.prev_hash", lambda b: " ".join(b["events"][1]["prev_hash"])),
        "prev_hash is not a 64-digit lowercase hex link",
    ),
    "encounter id spelled otherwise": (
        _set("encounter_id", lambda b: b["encounter_id"].upper()),
        "not written as exported",
    ),
}


def test_an_edited_head_genesis_shard_or_chain_prev_is_rejected(bundle: dict[str, Any]) -> None:
    """Every edit of HEADER_EDITS, each on a fresh copy of one exported bundle."""
    missed = {}
    for name, (edit, expected) in HEADER_EDITS.items():
        edited = copy.deepcopy(bundle)
        edit(edited)
        assert edited != bundle, name
        problems = [str(p) for p in verify_bundle(edited).problems]
        if not any(expected in p for p in problems):
            missed[name] = problems

    assert missed == {}


def test_chain_prev_moved_to_a_neighbour_in_the_bundle_is_named(bundle: dict[str, Any]) -> None:
    """Events 1 and 2 of a fresh fight are adjacent in the log: 2 was chained after 1."""
    edited = copy.deepcopy(bundle)
    second = edited["events"][1]
    assert second["chain_prev"] == edited["events"][0]["position"]
    second["chain_prev"] -= 1 if second["chain_prev"] > 1 else -1

    report = verify_bundle(edited)

    assert positions(report.problems) == {second["position"]}
