"""The receipt a user is told to keep prints exactly (issue 15 §3).

Given a log whose head is at position 100, when `senki verify` runs in a 40-column terminal,
then the receipt `SHARD:100:HASH` is printed whole on a line of its own — not turned into an
emoji by rich (`:100:` is 💯), not wrapped or cut at the terminal's width — and the same
receipt, given back with --expect-head, holds; `--json` is plain, parseable JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from infra.cli.main import app
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY, start_runtime

pytestmark = pytest.mark.postgres

SENKI = str(Path(sys.executable).with_name("senki"))


def narrow_senki(app_url: str, owner_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env = clean | {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_SHARDS": str(shard_count()),
        "COLUMNS": "40",
        "TERM": "xterm-256color",
    }
    return subprocess.run(
        [SENKI, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def head_at_100(app_url: str, owner_url: str) -> str:
    """Roll dice into one log until its shard's head is position 100; its receipt."""
    runtime = start_runtime(app_url, owner_url)
    try:
        log = uuid.UUID(runtime.roll_logs.open("receipts", by="gm").id)
        shard = runtime.ledger.shard_of(log)
        while runtime.ledger.head(shard=shard).position < 100:
            runtime.roll_logs.roll(log, "1D6", by="gm")
        head = runtime.ledger.head(shard=shard)
    finally:
        runtime.close()
    assert head.position == 100
    return f"{head.shard}:{head.position}:{head.chain_hash}"


def test_the_receipt_prints_exactly_in_a_narrow_terminal(app_url: str, owner_url: str) -> None:
    receipt = head_at_100(app_url, owner_url)

    shown = narrow_senki(app_url, owner_url, "verify")
    checked = narrow_senki(app_url, owner_url, "verify", "--expect-head", receipt)
    document = narrow_senki(app_url, owner_url, "verify", "--json")

    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert receipt in shown.stdout.splitlines()
    assert "💯" not in shown.stdout + checked.stdout
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"ok   receipt {receipt}: holds" in checked.stdout.splitlines()
    assert document.returncode == 0, document.stderr
    parsed = json.loads(document.stdout)
    assert receipt in [shard["receipt"] for shard in parsed["shards"]]


@pytest.mark.parametrize(
    "receipt", ["0:12", "zero:12:" + "ab" * 32, "0:12:" + "ab" * 31, "0:12:" + "xy" * 32]
)
def test_a_malformed_receipt_is_refused_before_connecting(receipt: str) -> None:
    """Exit 2 and how to write it; the database (unreachable here) is never asked."""
    result = CliRunner().invoke(
        app,
        ["verify", "--expect-head", receipt],
        env={
            "SENKI_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/nothing",
            "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        },
    )

    assert result.exit_code == 2, result.output
    assert "write it as SHARD:POSITION:HASH" in result.output


def test_a_mistyped_receipt_is_called_a_mismatch_with_both_hashes_not_tampering(
    app_url: str, owner_url: str
) -> None:
    receipt = head_at_100(app_url, owner_url)
    shard, position, kept = receipt.split(":")
    mistyped = kept[:-1] + ("0" if kept[-1] != "0" else "1")  # one character off

    checked = narrow_senki(
        app_url, owner_url, "verify", "--expect-head", f"{shard}:{position}:{mistyped}"
    )

    said = " ".join(checked.stdout.split())  # the narrow terminal wraps the prose
    assert checked.returncode == 1, said
    assert f"does not match the log at position {position}" in said
    assert mistyped in said
    assert kept in said
    assert "not copied exactly" in said
    assert "RECEIPT DOES NOT MATCH" in said
    assert "TAMPERING FOUND" not in said
