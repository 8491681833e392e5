"""Every `senki` option is checked before the command runs: a bad value is one line naming the
option, exit 2, and nothing opened (the database below is unreachable: a command that got as far
as opening it would exit 3 instead)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from infra.cli.main import app

SENKI = str(Path(sys.executable).with_name("senki"))
UNREACHABLE = {
    "SENKI_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/nothing",
    "SENKI_DICE_MASTER_KEY": "ab" * 32,
}
AN_ENCOUNTER = "00000000-0000-0000-0000-000000000001"
A_HASH = "ab" * 32

BAD_OPTIONS = [
    (["serve", "--port", "99999"], "--port"),
    (["serve", "--port", "0"], "--port"),
    (["serve", "--port", "eighty"], "--port"),
    (["serve", "--host", "not a host"], "--host"),
    (["serve", "--host", "-bad-.example"], "--host"),
    (["serve", "--graceful-timeout", "-1"], "--graceful-timeout"),
    (["serve", "--workers", "0"], "--workers"),
    (["verify", "--expect-head", "0:1:nothex"], "--expect-head"),
    (["verify", "--expect-head", "0:1"], "--expect-head"),
    (["verify", "--expect-head", f"x:1:{A_HASH}"], "--expect-head"),
    (["verify", "--expect-head", f"0:-1:{A_HASH}"], "--expect-head"),
    (["verify", "--expect-head", f"64:1:{A_HASH}"], "--expect-head"),
    (["verify", "--expect-head", f"0:1:{A_HASH}0"], "--expect-head"),
    (["verify", "--expect-head", f"0:{2**63}:{A_HASH}"], "--expect-head"),
    (["verify", "--bundle", "/no/such/bundle.json"], "--bundle"),
    (["verify", "--bundle", "/"], "--bundle"),
    (["demo", "--url", "ftp://127.0.0.1:8000"], "--url"),
    (["demo", "--url", "http://127.0.0.1:99999"], "--url"),
    (["demo", "--url", "127.0.0.1:8000"], "--url"),
    (["demo", "--ruleset", "dnd"], "--ruleset"),
    (["audit", "not-a-uuid"], "encounter"),
    (["export", AN_ENCOUNTER, "-o", "/no/such/dir/bundle.json"], "--output"),
    (["export", AN_ENCOUNTER, "-o", "/"], "--output"),
    (["dice", "roll", "2D6", "--client-seed", "x" * 201], "--client-seed"),
    (["dice", "roll", "2D6", "--purpose", "x" * 201], "--purpose"),
    (["dice", "roll", "2D6", "--log", "not-a-uuid"], "--log"),
    (["dice", "reveal", "not-a-uuid"], "log"),
    (["dice", "verify", "not-a-uuid"], "log"),
    (["project", "--lanes", "0"], "--lanes"),
    (["project", "--batch-size", "0"], "--batch-size"),
    (["project", "--health-port", "70000"], "--health-port"),
]


@pytest.mark.parametrize(("args", "option"), BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_a_bad_option_is_refused_naming_it_before_anything_runs(
    args: list[str], option: str
) -> None:
    result = CliRunner().invoke(app, args, env=UNREACHABLE)
    said = " ".join(result.output.split())
    assert result.exit_code == 2, said
    assert isinstance(result.exception, SystemExit), result.exception
    assert option in said, said
    assert "Invalid value" in said or "No such option" in said or "Missing" in said, said


def test_a_receipt_is_read_whatever_the_case_of_its_hash() -> None:
    from infra.cli.options import receipts

    assert receipts([f"0:12:{A_HASH.upper()}"]) == [f"0:12:{A_HASH}"]


def test_serve_on_a_port_out_of_range_is_one_line_not_a_traceback() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    result = subprocess.run(
        [SENKI, "serve", "--port", "99999"],
        capture_output=True,
        text=True,
        env=clean | UNREACHABLE,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    assert "--port" in result.stderr
    assert "65535" in result.stderr


def _serve_workers(*options: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    return subprocess.run(
        [SENKI, "serve", "--workers", "2", *options],
        capture_output=True,
        text=True,
        env=clean | UNREACHABLE | env,
        timeout=120,
        check=False,
    )


def test_workers_with_a_metrics_port_of_their_own_are_refused_saying_why() -> None:
    # One port serves one process's counters: N workers cannot share it.
    result = _serve_workers(SENKI_METRICS_PORT="9464")
    said = " ".join(result.stderr.split())
    assert result.returncode == 3, said
    assert "Traceback" not in result.stderr + result.stdout
    assert "SENKI_METRICS_PORT" in said


def test_workers_on_a_port_in_use_are_refused_naming_it() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _serve_workers("--port", str(port))
    said = " ".join(result.stderr.split())
    assert result.returncode == 3, said
    assert "Traceback" not in result.stderr + result.stdout
    assert f"port {port}" in said
