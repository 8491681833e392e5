"""`python -m bench --quick` end to end: every benchmark runs and reports every figure.

A smoke test, not a measurement: it checks that each aim of the issues got a row with a
figure, a reference and a ratio, never whether an aim was met (ratios on a busy test machine
at smoke sizes mean nothing). Table-load's quick run is checked in tests/bench/test_table_load.py,
with its steps and its aims' rows: run here too it would cost the suite another minute.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bench.suite import BENCHMARKS

if TYPE_CHECKING:  # imported by name, pytest would try to collect it as a test class
    from tests.support.databases import TestServer

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(1800)]
ROOT = Path(__file__).resolve().parents[2]
CHECKED_HERE = [b for b in BENCHMARKS if b.name != "table-load"]


def _number(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def test_a_quick_run_reports_every_aim_with_numbers(pg_server: TestServer, tmp_path: Path) -> None:
    # given a PostgreSQL server the benchmarks may create databases on
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env["SENKI_BENCH_DATABASE_URL"] = pg_server.superuser_url

    # when the suite runs in --quick mode (every benchmark but table-load)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "bench", "--quick", "--results", str(tmp_path)),
            *(arg for b in CHECKED_HERE for arg in ("--only", b.name)),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1700,
        check=False,
    )

    # then it exits cleanly and its JSON has a row with numbers for every aim of every issue
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = json.loads((tmp_path / "latest.json").read_text(encoding="utf-8"))["rows"]
    assert [r for r in rows if r["error"]] == []
    for row in rows:
        assert _number(row["value"]), row
        assert _number(row["reference"]), row
        assert _number(row["ratio"]), row
    for benchmark in CHECKED_HERE:
        mine = [r for r in rows if r["benchmark"] == benchmark.name]
        for aim in benchmark.aims:
            matched = [r for r in mine if aim.matches(r["figure"])]
            assert len(matched) == 1, f"{benchmark.name}: no single row for the aim {aim}"
            assert matched[0]["met"] in {True, False}
