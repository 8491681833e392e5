"""The `senki` command as a person meets it: one clear line and an exit code, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SENKI = str(Path(sys.executable).with_name("senki"))


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    return subprocess.run(
        [SENKI, *args], capture_output=True, text=True, env=clean | env, timeout=120, check=False
    )


def assert_one_clear_line(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert "Traceback" not in result.stderr + result.stdout
    text = " ".join(result.stderr.split())
    for fragment in fragments:
        assert fragment in text


def test_a_bad_setting_names_the_variable_and_exits_2() -> None:
    result = run("config", SENKI_PORT="eighty")
    assert result.returncode == 2
    assert_one_clear_line(result, "SENKI_PORT")


def test_serving_an_external_database_without_a_dice_key_is_refused() -> None:
    result = run("verify", SENKI_DATABASE_URL="postgresql://x@127.0.0.1:1/x")
    assert result.returncode == 3
    assert_one_clear_line(result, "SENKI_DICE_MASTER_KEY")


def test_an_unreachable_database_says_what_to_check() -> None:
    result = run(
        "verify",
        SENKI_DATABASE_URL="postgresql://nobody@127.0.0.1:1/nothing",
        SENKI_DICE_MASTER_KEY="ab" * 32,
    )
    assert result.returncode == 3
    assert_one_clear_line(result, "cannot reach PostgreSQL")


@pytest.mark.parametrize(
    ("command", "said"),
    [("20000D6", "at most 10000 dice"), ("こんにちは", "not a dice command")],
)
def test_bad_dice_notation_is_refused_before_anything_is_stored(command: str, said: str) -> None:
    result = run(
        "dice",
        "roll",
        command,
        SENKI_DATABASE_URL="postgresql://x@127.0.0.1:1/x",
        SENKI_DICE_MASTER_KEY="ab" * 32,
    )
    assert result.returncode == 2
    assert_one_clear_line(result, said)


def test_config_masks_secrets() -> None:
    result = run(
        "config",
        SENKI_DATABASE_URL="postgresql://svc:hunter2@db:5432/senki",
        SENKI_DICE_MASTER_KEY="cd" * 32,
    )
    assert result.returncode == 0, result.stderr
    assert "hunter2" not in result.stdout
    assert "cd" * 32 not in result.stdout
    assert "svc:********@db" in result.stdout


@pytest.mark.postgres
def test_roll_reveal_verify_round_trip_on_a_real_database(app_url: str, owner_url: str) -> None:
    env = {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": "ef" * 32,
    }
    rolled = run("dice", "roll", "2D6+3>=10 攻撃", **env)
    assert rolled.returncode == 0, rolled.stderr
    log = rolled.stdout.split("new roll log ")[1].split()[0]
    assert "#0 攻撃: (2D6+3>=10) ＞ " in rolled.stdout  # the comment shows in the result
    assert run("dice", "roll", "1D100", "--log", log, **env).returncode == 0
    exploding = run("dice", "roll", "S4U6[5]>=7", "--log", log, **env)  # BCDice's language
    assert exploding.returncode == 0, exploding.stderr
    assert "(secret) (4U6[5]>=7) ＞ " in exploding.stdout
    assert run("dice", "verify", log, **env).returncode != 0  # not revealed yet
    assert run("dice", "reveal", log, **env).returncode == 0
    verified = run("dice", "verify", log, **env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.count("recomputed") == 3
    chain = run("verify", **env)
    assert chain.returncode == 0
    assert "intact" in chain.stdout


def test_a_usage_error_is_one_line_with_exit_2() -> None:
    result = run("demo", "--ruleset", "xx")
    assert result.returncode == 2
    assert_one_clear_line(result, "see --help")


@pytest.mark.postgres
def test_a_broken_chain_makes_verify_exit_1(app_url: str, owner_url: str) -> None:
    env = {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": "ef" * 32,
    }
    assert run("dice", "roll", "2D6", **env).returncode == 0
    import psycopg

    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute(
            "UPDATE senki.events_0 SET state = state || ' '::bytea "
            "WHERE notification_id = (SELECT max(notification_id) FROM senki.events_0)"
        )
    result = run("verify", **env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "altered" in result.stdout
