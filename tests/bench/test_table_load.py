"""The table-load benchmark plays a table as its members would, and a quick run reports every
figure (bench/table_load.py); its writes reference records as many events as Senki's command
(bench/plain_eventsourcing.py). Smoke and rules, never timings."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from eventsourcing.application import Application

from bench.plain_eventsourcing import Fight, commands
from bench.suite import BENCHMARKS
from bench.suite_rows import rows_of
from bench.table_load import Step, Table, limit_of, next_command

if TYPE_CHECKING:  # imported by name, pytest would try to collect it as a test class
    from tests.support.databases import TestServer

ROOT = Path(__file__).resolve().parents[2]


def _table(**awaiting: object) -> Table:
    return Table(
        "fight",
        controllers={"pc1": "p1", "pc2": "p2", "e1": "gm"},
        sides={"pc1": "pc", "pc2": "pc", "e1": "enemy"},
        awaiting=dict(awaiting),
    )


def test_an_awaited_hand_die_is_entered_by_the_member_it_is_for() -> None:
    die = {"notation": "1D6", "sides": 6, "for_member": "p2", "faces_entered": 0}
    body, member = next_command(_table(die=die, commands=[]), random.Random(1))
    assert member == "p2"
    assert body["command"] == "EnterDie"
    assert len(body["faces"]) == 1
    assert 1 <= body["faces"][0] <= 6


def test_a_reaction_is_sent_by_its_combatants_controller() -> None:
    awaited = [{"command": "Dodge", "issuer": "controller", "combatant": "pc1"}]
    body, member = next_command(_table(commands=awaited), random.Random(1))
    assert (body["command"], body["combatant_id"], member) == ("Dodge", "pc1", "p1")
    assert body["dice"] in {"hand", "server"}


def test_an_attack_targets_the_other_side_and_the_gm_rolls_initiative() -> None:
    rng = random.Random(3)
    attack = [{"command": "DeclareAttack", "issuer": "controller", "combatant": "e1"}]
    body, member = next_command(_table(commands=attack), rng)
    assert member == "gm"
    assert body["target"] in {"pc1", "pc2"}
    body, member = next_command(_table(commands=[{"command": "RollInitiative"}]), rng)
    assert (body["command"], member) == ("RollInitiative", "gm")


def test_hand_dice_are_among_the_rolls() -> None:
    rng = random.Random(34)
    attack = [{"command": "DeclareAttack", "issuer": "controller", "combatant": "pc1"}]
    chosen = {next_command(_table(commands=attack), rng)[0]["dice"] for _ in range(30)}
    assert chosen == {"hand", "server"}


def test_the_limit_is_the_last_step_within_both_limits() -> None:
    fast = Step(10, commands=100, command_ms=[5.0] * 100, visible_ms=[5.0] * 200)
    slow = Step(20, commands=100, command_ms=[5.0] * 90 + [80.0] * 10, visible_ms=[5.0] * 200)
    unseen = Step(30, commands=100, command_ms=[5.0] * 100, visible_ms=[5.0] * 150, unseen=50)
    assert limit_of([fast, slow]) is fast
    assert limit_of([fast, unseen]) is fast
    assert limit_of([slow]) is None
    assert limit_of([fast, slow], enforce=False) is slow


def test_the_plain_library_writes_as_many_events_a_command_on_average() -> None:
    app = Application()  # the library's in-memory recorder: the counting, not the speed
    step = commands(app, 1, 2.5)[0]
    for _ in range(4):
        step()
    # Created, then 2.5 events a command over four commands, all on the one fight.
    assert app.recorder.max_notification_id() == 1 + 10
    (stored,) = {n.originator_id for n in app.notification_log.select(1, 10)}
    assert isinstance(app.repository.get(stored), Fight)


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_quick_run_reports_every_figure(pg_server: TestServer, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env["SENKI_BENCH_DATABASE_URL"] = pg_server.superuser_url
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.table_load", "--quick", "--workers", "1,2", "--json", out],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=550,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    names = {f["name"] for f in figures}
    for workers in (1, 2):
        assert f"live tables per server core, {workers} worker(s)" in names
        assert f"server CPU per command, {workers} worker(s)" in names
    assert all(math.isfinite(f["value"]) and math.isfinite(f["reference"]) for f in figures)
    # Each of the suite's table-load aims gets one row with a ratio, as `python -m bench` shows it.
    (aims,) = [b.aims for b in BENCHMARKS if b.name == "table-load"]
    rows = rows_of("table-load", figures, list(aims))
    for aim in aims:
        (row,) = [r for r in rows if aim.matches(r.figure)]
        assert row.ratio is not None, row
        assert math.isfinite(row.ratio), row
        assert row.met in {True, False}, row
    # Every step's viewers saw the events their tables' commands appended.
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"senki/1", "bare/1", "senki/2", "bare/2"} == set(steps)
    assert all(s["commands"] > 0 for run in steps.values() for s in run)
    assert all(s["unseen"] == 0 and s["stopped"] == 0 for run in steps.values() for s in run)
    # And the disk probe's commits beside each step: how long the disk held commits back.
    probed = [s["commit_probe_max_ms"] for run in steps.values() for s in run]
    assert all(math.isfinite(ms) and ms > 0 for ms in probed), probed
