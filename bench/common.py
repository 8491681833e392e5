"""What every benchmark shares: a fresh migrated database, timing, and one result table.

A benchmark reports each figure beside a raw reference measured in the same run on the same
server, so the ratio says something even on a busy machine. Results print as a table and are
written as JSON under bench/results/.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import psycopg
from psycopg import sql
from pydantic import SecretStr
from rich.console import Console
from rich.table import Table

from infra import bootstrap
from infra.settings import Settings
from infra.store.connect import with_database, with_user
from infra.store.migrate import migrate

RESULTS = Path(__file__).parent / "results"
KEY = "b7" * 32


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    reference_name: str
    reference: float
    aim: str

    @property
    def ratio(self) -> float:
        return self.value / self.reference if self.reference else float("nan")


@contextmanager
def server() -> Iterator[str]:
    """A superuser URL: SENKI_BENCH_DATABASE_URL, or an embedded server in .senki-bench/."""
    url = os.environ.get("SENKI_BENCH_DATABASE_URL")
    if url:
        yield url
        return
    from infra.postgres.embedded import EmbeddedPostgres

    with EmbeddedPostgres(Path(".senki-bench").absolute()) as embedded:
        yield embedded.superuser_url


@contextmanager
def fresh_database(superuser_url: str, shards: int = 1) -> Iterator[tuple[str, str]]:
    """(owner URL, service URL) of a new, migrated database that is dropped afterwards."""
    name = f"senki_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(with_database(superuser_url, "postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    owner = with_database(superuser_url, name)
    try:
        migrate(owner, app_role="senki_app", shards=shards)
        yield owner, with_user(owner, "senki_app")
    finally:
        with psycopg.connect(with_database(superuser_url, "postgres"), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@contextmanager
def fresh_runtime(superuser_url: str, shards: int = 1) -> Iterator[bootstrap.Runtime]:
    """A runtime on a new, migrated database that is dropped afterwards."""
    with fresh_database(superuser_url, shards) as (owner, service):
        settings = Settings(
            database_url=SecretStr(service),
            migration_database_url=SecretStr(owner),
            dice_master_key=SecretStr(KEY),
            shards=shards,
            pool_size=16,
        )
        runtime = bootstrap.start(settings)
        try:
            yield runtime
        finally:
            runtime.close()


def median_seconds(action: Callable[[], object], repeat: int = 7) -> float:
    """Median wall time of `repeat` runs after one warm-up run."""
    action()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(slug: str, title: str, figures: list[Figure], console: Console | None = None) -> None:
    console = console or Console()
    table = Table("figure", "value", "reference", "ratio", "aim", title=title)
    for f in figures:
        table.add_row(
            f.name,
            f"{f.value:,.3f} {f.unit}",
            f"{f.reference_name}: {f.reference:,.3f} {f.unit}",
            f"{f.ratio:.2f}×",
            f.aim,
        )
    console.print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{slug}.json").write_text(
        json.dumps([asdict(f) | {"ratio": f.ratio} for f in figures], indent=2) + "\n"
    )
