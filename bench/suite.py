"""Every benchmark in one run: `python -m bench [--quick] [--only NAME]... [--json PATH]`.

Each benchmark runs as its own process (a fresh interpreter, its own database) and hands its
figures back as JSON (`--json PATH`, see bench/options.py); each figure sits beside the raw
reference that process measured in the same run. The suite prints one table (benchmark,
figure, value, reference, ratio, the issue's aim, met?) and writes it to
bench/results/suite-<UTC timestamp>.json and bench/results/latest.json.

`--quick` runs every benchmark on small sizes: a smoke run whose ratios mean little.
Uses SENKI_BENCH_DATABASE_URL (a superuser URL) or an embedded PostgreSQL in .senki-bench.
Exits 1 if a benchmark failed to run; aims not met are shown, not an error (`--strict`: 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from bench.suite_rows import Aim, Row, failed, rows_of, table
from bench.suite_run import run_benchmark

RESULTS = Path(__file__).parent / "results"


@dataclass(frozen=True)
class Benchmark:
    name: str
    module: str
    aims: tuple[Aim, ...]


BENCHMARKS = (
    Benchmark("encounter", "bench.encounter", (Aim("^rebuild with snapshots", "≤", 0.25, 3),)),
    Benchmark(
        "projections",
        "bench.projections",
        (Aim("catch.?up", "≥", 0.6, 4), Aim("visible.*p95|p95.*visible", "≤", 5, 4)),
    ),
    Benchmark(
        "api",
        "bench.api",
        (
            Aim("reads$", "≥", 0.5, 5),
            Aim("read p99$", "≤", 2, 5),
            Aim("^encounter command p99", "≤", 5, 5),
        ),
    ),
    Benchmark("replay", "bench.replay", (Aim("^replay under", "≤", 3, 6),)),
    Benchmark(
        "writes",
        "bench.writes",
        (
            Aim(r"shards, \d+ encounters$", "≥", 0.5, 7),
            Aim("shards over 1 shard$", "≥", 2, 7),
            Aim("^writes per shard over plain eventsourcing", "≥", 3, 34),
        ),
    ),
    Benchmark(
        "table-load",
        "bench.table_load",
        (
            Aim("^live tables per server core, 1 ", "≥", 0.25, 34),
            Aim("^live tables per server core, 2 ", "≥", 0.25, 34),
            Aim(r"\(absolute\), 1 ", "≥", 1, 34),
            Aim(r"\(absolute\), 2 ", "≥", 1, 34),
        ),
    ),
    Benchmark("startup", "bench.startup", (Aim("^senki --help", "≤", 2, 34),)),
    # Issue #18's figures on this one machine: no aim (the clusters share its cores).
    Benchmark("clusters", "bench.clusters", ()),
)


def run(chosen: list[Benchmark], *, quick: bool, console: Console) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="senki-bench-") as scratch:
        for benchmark in chosen:
            console.rule(f"{benchmark.name} ({benchmark.module})")
            started = time.perf_counter()
            try:
                figures = run_benchmark(
                    benchmark.module,
                    Path(scratch) / f"{benchmark.name}.json",
                    quick=quick,
                )
            except Exception as error:  # one broken benchmark must not hide the others
                why = str(error).strip().splitlines()[-1] if str(error).strip() else repr(error)
                rows += [failed(benchmark.name, aim, why) for aim in benchmark.aims or (None,)]
            else:
                rows += rows_of(benchmark.name, figures, list(benchmark.aims))
            console.print(f"{benchmark.name}: {time.perf_counter() - started:.0f} s")
    return rows


def save(rows: list[Row], *, quick: bool, results: Path, extra: Path | None) -> Path:
    stamp = datetime.now(UTC)
    document = {
        "at": stamp.isoformat(timespec="seconds"),
        "quick": quick,
        "rows": [asdict(row) for row in rows],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"suite-{stamp:%Y%m%dT%H%M%SZ}.json"
    for target in (path, results / "latest.json", *([extra] if extra else [])):
        target.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    names = [b.name for b in BENCHMARKS]
    options = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    options.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    options.add_argument(
        "--only",
        action="append",
        choices=names,
        metavar="NAME",
        help=f"run only this benchmark (repeatable): {', '.join(names)}",
    )
    options.add_argument("--json", type=Path, metavar="PATH", help="also write the table here")
    options.add_argument(
        "--results", type=Path, default=RESULTS, metavar="DIR", help=f"default: {RESULTS}"
    )
    options.add_argument("--strict", action="store_true", help="exit 2 when an aim is not met")
    args = options.parse_args(argv)
    chosen = [b for b in BENCHMARKS if not args.only or b.name in args.only]
    # Wide enough for the table even when the output goes to a file or a pipe.
    console = Console(width=max(Console().width, 160))
    rows = run(chosen, quick=args.quick, console=console)
    title = "Senki benchmarks" + (" (--quick: smoke sizes, not measurements)" if args.quick else "")
    console.print(table(rows, title))
    console.print(
        f"written to {save(rows, quick=args.quick, results=args.results, extra=args.json)}"
    )
    if any(row.error for row in rows):
        return 1
    return 2 if args.strict and any(row.met is False for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
