"""The command line every benchmark of the suite shares: `--json PATH` and `--quick`.

`python -m bench` (bench/suite.py) runs each benchmark as its own process and reads its
figures back from the `--json` file: a list of objects with the fields of `Figure` plus
`ratio`, the same list `bench.common.report` writes under bench/results/.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from bench.common import Figure


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A parser with the suite's options; each benchmark adds its own sizes."""
    found = argparse.ArgumentParser(
        description=(doc or "").strip().splitlines()[0] if doc else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    found.add_argument(
        "--json", type=Path, metavar="PATH", help="also write the figures as JSON to PATH"
    )
    found.add_argument(
        "--quick", action="store_true", help="small sizes: a smoke run, not a measurement"
    )
    return found


def write_figures(path: Path | None, figures: list[Figure]) -> None:
    """The figures as the suite reads them (nothing when no --json was given)."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(f) | {"ratio": f.ratio} for f in figures], indent=2))
