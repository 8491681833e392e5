"""`python -m bench.instructions`: issue 16's cost figures counted in instructions by callgrind.

A smoke run, not a measurement: it checks that each count is of the calls measured (a count of
the whole process, start-up included, would be hundreds of millions), and that a machine
without valgrind is told what to install instead of given a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported by name, pytest would try to collect it as a test class
    from tests.support.databases import TestServer

ROOT = Path(__file__).resolve().parents[2]


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.instructions", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_a_quick_count_is_of_the_calls_alone(pg_server: TestServer, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env["SENKI_BENCH_DATABASE_URL"] = pg_server.superuser_url

    done = _run(env, "--quick", "--json", str(tmp_path / "counts.json"))

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    in_process, over_http = json.loads((tmp_path / "counts.json").read_text())
    for figure in (in_process, over_http):
        assert figure["unit"] == "M"
        assert 0.05 < figure["reference"] < 5, figure  # one call, not a process's life
        assert figure["reference"] < figure["value"] < 20, figure
    assert "INSERT" in in_process["reference_name"]
    assert "bare FastAPI" in over_http["reference_name"]


def test_without_valgrind_it_says_what_to_install(tmp_path: Path) -> None:
    # a PATH with this Python on it and nothing else
    (tmp_path / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env["PATH"] = str(tmp_path)

    done = _run(env, "--quick")

    assert done.returncode == 1
    assert "valgrind is not installed: `apt-get install valgrind`" in done.stderr
    assert "Traceback" not in done.stderr
