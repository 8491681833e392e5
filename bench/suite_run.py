"""Running one benchmark as its own process and reading its figures back.

The interface is `python -m bench.<name> [--quick] --json PATH` (bench/options.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
FULL_TIMEOUT_S, QUICK_TIMEOUT_S = 3600, 900


class BenchmarkFailed(RuntimeError):
    """The benchmark's process failed or left no figures."""


def arguments(module: str, json_path: Path, *, quick: bool) -> list[str]:
    """Every benchmark takes the suite's options (bench/options.py)."""
    return [sys.executable, "-m", module, *(["--quick"] if quick else []), "--json", str(json_path)]


def run_benchmark(module: str, json_path: Path, *, quick: bool) -> list[dict[str, Any]]:
    """The benchmark's figures (dicts with the fields of bench.common.Figure)."""
    _tee(arguments(module, json_path, quick=quick), QUICK_TIMEOUT_S if quick else FULL_TIMEOUT_S)
    if not json_path.exists():
        raise BenchmarkFailed(f"{module} wrote no figures to {json_path}")
    return _figures(json.loads(json_path.read_text(encoding="utf-8")))


def _tee(args: list[str], timeout_s: float) -> None:
    """Run, echoing its output as it comes; BenchmarkFailed (with its last line) if it fails."""
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    watchdog = threading.Timer(timeout_s, child.kill)
    watchdog.start()
    lines = []
    try:
        assert child.stdout is not None
        for line in child.stdout:
            sys.stdout.write(line)
            lines.append(line)
        code = child.wait()
    finally:
        watchdog.cancel()
    if code != 0:
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        raise BenchmarkFailed(f"{' '.join(args[2:3])} exited with {code}: {last}")


def _figures(document: object) -> list[dict[str, Any]]:
    found = document.get("figures") if isinstance(document, dict) else document
    if not isinstance(found, list):
        raise BenchmarkFailed("the figures file holds no list of figures")
    return found
