"""`senki --help` wall time beside `python -c "import typer, rich"` (issue 34 §4: aim ≤ 2×).

    .venv/bin/python -m bench.startup [--quick] [--json PATH]

The median of several runs each, interleaved, so a busy moment of a shared machine lands on
both; tests/unit/test_cli_startup.py keeps the server's libraries out of the CLI's imports.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Figure
from bench.options import parser, write_figures

SENKI = [str(Path(sys.executable).with_name("senki")), "--help"]
REFERENCE = [sys.executable, "-c", "import typer, rich"]


def _seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    return time.perf_counter() - started


def main() -> None:
    args = parser(__doc__).parse_args()
    runs = 3 if args.quick else 15
    senki, reference = [], []
    for _ in range(runs):
        senki.append(_seconds(SENKI))
        reference.append(_seconds(REFERENCE))
    figure = Figure(
        "senki --help wall time",
        statistics.median(senki),
        "s",
        "python -c 'import typer, rich'",
        statistics.median(reference),
        "≤ 2× (#34)",
    )
    print(
        f"{figure.name}: {figure.value:.3f} s; reference {figure.reference:.3f} s; "
        f"{figure.ratio:.2f}×"
    )
    write_figures(args.json, [figure])


if __name__ == "__main__":
    main()
