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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from infra.bootstrap import Runtime
from infra.bundle import FORMAT, export_bundle, verify_bundle
from infra.cli_audit import export, run_verify_bundle
from infra.cli_audit import verify_bundle as verify_bundle_command
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
    rolled = edited["events"][first(edited, "EncounterDiceRolled.v1")]
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
