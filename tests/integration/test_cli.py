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


def setting(output: str, name: str) -> str:
    """The value `senki config` shows for `name` (its table's cells, joined over wrapped lines)."""
    rows = [line.split("│") for line in output.splitlines() if line.count("│") == 3]
    values, current = {}, ""
    for _, key, value, _ in rows:
        current = key.strip() or current
        values[current] = (values.get(current, "") + " " + value.strip()).strip()
    return values[name]


def test_config_says_whether_the_dice_key_is_set_never_blank(tmp_path: Path) -> None:
    given = run("config", SENKI_DICE_MASTER_KEY="cd" * 32, COLUMNS="200")
    assert setting(given.stdout, "dice_master_key") == "********"
    fresh = run("config", SENKI_DATA_DIR=str(tmp_path), COLUMNS="200")
    assert setting(fresh.stdout, "dice_master_key").startswith("(not set: generated into ")
    (tmp_path / "dice-master.key").write_text("ab" * 32 + "\n", encoding="ascii")
    generated = run("config", SENKI_DATA_DIR=str(tmp_path), COLUMNS="200")
    assert setting(generated.stdout, "dice_master_key").startswith("******** (in ")
    assert "ab" * 32 not in generated.stdout
    assert setting(generated.stdout, "database_url") == "(not set)"


def test_config_shows_the_graceful_timeout_serve_uses() -> None:
    assert setting(run("config", COLUMNS="200").stdout, "graceful_timeout") == "10"
    shown = run("config", SENKI_GRACEFUL_TIMEOUT="25", COLUMNS="200").stdout
    assert setting(shown, "graceful_timeout") == "25"


def test_the_start_banner_names_the_table_page_and_the_docs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from infra.cli import main

    main._print_addresses("0.0.0.0", 8123)  # a wildcard address is reached on loopback

    shown = capsys.readouterr().out
    assert "http://127.0.0.1:8123/table" in shown
    assert "http://127.0.0.1:8123/docs" in shown


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
    assert f"Roll log {log}" in verified.stdout  # the id whole, on a line of its own
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


def test_a_repeat_says_its_command_then_each_result_on_a_line_of_its_own() -> None:
    from infra.cli.dice import said

    text = "#1\n(1D6) ＞ 4\n\n#2\n(1D6) ＞ 2\n\n#3\n(1D6) ＞ 6"

    assert said(0, "x3 1D6", text, secret=False) == [
        "#0 x3 1D6",
        "  #1 (1D6) ＞ 4",
        "  #2 (1D6) ＞ 2",
        "  #3 (1D6) ＞ 6",
    ]  # not "#0 1D6: #1": the repeated command is no comment
    assert said(5, "2D6>=7 回避", "(2D6>=7) ＞ 9[4,5] ＞ 9 ＞ 成功", secret=True) == [
        "#5 (secret) 回避: (2D6>=7) ＞ 9[4,5] ＞ 9 ＞ 成功"
    ]


def test_at_80_columns_the_verify_dice_table_prints_each_encounter_id_whole() -> None:
    import io
    import uuid

    from rich.console import Console

    from infra.services.audit import DiceFinding
    from infra.store.verify import _dice_table

    ids = [uuid.uuid4(), uuid.uuid4()]
    findings = [
        DiceFinding(ids[0], shard=0, checked=18, recomputed=18),
        DiceFinding(ids[1], shard=12, checked=180, recomputed=170, by_hand=10, problems=["x"] * 2),
    ]
    out = io.StringIO()

    _dice_table(findings, Console(file=out, width=80))

    assert all(str(found) in out.getvalue() for found in ids), out.getvalue()


def test_at_80_columns_projections_status_prints_each_projection_name_whole() -> None:
    import io

    from rich.console import Console

    from infra.cli.projections import status_table
    from infra.services.ports import ProjectionPositionView
    from projections.catalog import PROJECTIONS

    rows = [
        ProjectionPositionView(p.name, 12, "building", 63, 1_234_567, None, parked=3)
        for p in PROJECTIONS
    ]
    out = io.StringIO()

    Console(file=out, width=80).print(status_table(rows))

    shown = out.getvalue()
    assert all(f" {p.name} " in shown for p in PROJECTIONS), shown
