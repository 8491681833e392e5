"""`senki demo` plays a short fight through the HTTP API and verifies every die."""

from __future__ import annotations

import io
import itertools
import re

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from infra.demo import run_demo

pytestmark = pytest.mark.postgres
ENGLISH = re.compile(r"\b(the|is|are|and|of|to|after|nobody)\b")


def table_rows(text: str, title: str) -> list[tuple[str, str]]:
    """The (English, Japanese) cells of the table titled `title`, one row a line at 200 columns."""
    after = text.split(title, 1)[1].split("\n\n", 1)[0].split("└", 1)[0]
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in after.splitlines()]
    return [(row[2], row[3]) for row in cells if len(row) == 4 and row[0]]


def assert_the_log_reads_well(text: str) -> None:
    """Both tables present; each line said once, in words, Japanese in the Japanese column."""
    lines = table_rows(text, "Encounter log")
    assert lines, text  # every rule system prints its log, Glorious Drive too
    assert all(a != b for a, b in itertools.pairwise(lines)), lines
    for en, ja in lines + table_rows(text, "Rulings, in order"):
        assert not ENGLISH.search(ja), ja
        assert not re.search(r"\b1 rounds\b| band -| take effect", en), en


def test_the_demo_plays_two_turns_and_every_die_recomputes(client: TestClient) -> None:
    out = io.StringIO()
    verified = run_demo(client, Console(file=out, width=200))
    text = out.getvalue()
    assert verified, text
    assert "GD-INIT-1" in text
    assert "GD-REACT-1" in text  # the drones dodge (or fail to)
    assert "クリーンナップステップ終了" in text  # the encounter log, in Japanese too
    assert_the_log_reads_well(text)
    assert "every die recomputes" in text
    assert "Log head" in text


def test_the_wizardry_demo_plays_two_rounds_and_every_die_recomputes(client: TestClient) -> None:
    out = io.StringIO()
    verified = run_demo(client, Console(file=out, width=200), ruleset="wz")
    text = out.getvalue()
    assert verified, text
    assert "WZ-7" in text  # the initiative roll
    assert "WZ-8" in text  # the GM's rulings on the innings' checks
    assert "GM裁定" in text  # and in Japanese
    assert "mage fatigue after 1 round (k=1)" in text
    assert_the_log_reads_well(text)
    assert "every die recomputes" in text


def test_the_armor_knights_demo_plays_a_duel_and_every_die_recomputes(client: TestClient) -> None:
    out = io.StringIO()
    verified = run_demo(client, Console(file=out, width=200), ruleset="ak")
    text = out.getvalue()
    assert verified, text
    assert "AK-TURN-2" in text  # the first-move rolls
    assert "AK-ARM-2" in text  # blue is shot down
    assert "AK-WIN-1" in text
    assert "先攻" in text  # and in Japanese
    assert "red wins" in text
    assert_the_log_reads_well(text)
    assert "every die recomputes" in text
