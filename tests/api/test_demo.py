"""`senki demo` plays a short fight through the HTTP API and verifies every die."""

from __future__ import annotations

import io

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from infra.demo import run_demo

pytestmark = pytest.mark.postgres


def test_the_demo_plays_two_turns_and_every_die_recomputes(client: TestClient) -> None:
    out = io.StringIO()
    verified = run_demo(client, Console(file=out, width=200))
    text = out.getvalue()
    assert verified, text
    assert "GD-INIT-1" in text
    assert "GD-REACT-1" in text  # the drones dodge (or fail to)
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
    assert "every die recomputes" in text
