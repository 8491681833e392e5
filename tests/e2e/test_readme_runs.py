"""Issue 19 item 6: the README's shell blocks marked runnable run as pasted, against a live
server (curl and python3 only, as a newcomer's shell has them)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import LiveServer

README = Path(__file__).resolve().parents[2] / "README.md"
RUNNABLE = re.compile(r"<!-- runnable:[^>]*-->\n```sh\n(.*?)```", re.S)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.requires("curl"),
]


def runnable_blocks() -> list[str]:
    return RUNNABLE.findall(README.read_text(encoding="utf-8"))


def test_the_readme_marks_its_http_api_example_runnable() -> None:
    blocks = runnable_blocks()
    assert blocks, "no <!-- runnable: … --> block before a ```sh block in README.md"
    assert all("<" not in block and "…" not in block for block in blocks)  # no placeholders


def test_every_runnable_readme_block_runs_as_pasted(live_server: LiveServer) -> None:
    for block in runnable_blocks():
        ran = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            env=os.environ | {"SENKI": live_server.base_url},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        answers = [json.loads(line) for line in ran.stdout.splitlines() if line.strip()]
        assert answers[0]["name"] == "蒼穹"
        assert answers[0]["members"] == [{"member_id": "gm", "role": "gm"}]
        assert answers[1]["roll"]["comment"] == "回避"
        [table] = answers[2]["logs"]  # the roll went to the campaign's table log
        assert (table["id"], table["kind"]) == (answers[1]["roll_log"]["id"], "table")
