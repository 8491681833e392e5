"""Issue 7's write-scaling figures: commands/s over 64 concurrent encounters, 1 shard and 4.

Run: `python -m bench.writes [--encounters 64] [--workers 4] [--seconds 10] [--shards 4]
[--json PATH] [--quick]` (embedded PostgreSQL) or with SENKI_BENCH_DATABASE_URL set to a
superuser URL of an external server.

Every encounter sits in its own campaign, so with N shards the campaigns (and the encounters
that follow them) are placed over the N events tables. Each encounter is driven flat out by
one thread through the turn of bench/encounter.py (initiative; cleanup, declaration, dodge for
each side), one command at a time as a table would. The threads are split over several worker
processes, each with its own runtime and connection pool (bench/write_workers.py): 64 threads
in one Python process would measure its GIL, not the store's write serialisation.

The reference runs in the same layout, in the same database, just before: raw psycopg
one-row-per-transaction INSERTs into a plain table, one connection per thread. Each shard
count gets a fresh database migrated with it. After the N-shard run the events in each shard
table are counted and printed; a run that put every event on one shard fails.

Printed with each run, to say where the time went: the CPU the driving processes used and the
CPU the PostgreSQL server used, as "drivers X cores + PostgreSQL Y cores of N" (near N: the
machine, not the store, was the limit), and what the database's backends were doing, sampled
from pg_stat_activity (bench/write_waits.py): queued on a shard's write lock, holding it while
waiting for their client, flushing WAL, or idle while the client decides; and how many
appends each call to a shard carried (group commit, infra/store/recorder.py).

Aims (issue 7): N = 4 shards at least 0.5× the raw figure, and at least 2× the 1-shard figure.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import uuid
from dataclasses import dataclass, replace

import psycopg
from psycopg import sql
from pydantic import SecretStr
from rich.console import Console

from bench.common import KEY, Figure, fresh_database, report, server
from bench.encounter import open_fight
from bench.options import parser, write_figures
from bench.plain_eventsourcing import application
from bench.write_waits import sampled
from bench.write_workers import RAW_TABLE, Drive, work
from infra import bootstrap
from infra.settings import Settings
from infra.store.names import SCHEMA, ShardTables


class NotSpread(RuntimeError):
    """Every event of a many-shard run landed on one shard: nothing was measured."""


@dataclass(frozen=True)
class Load:
    encounters: int
    workers: int
    warmup: float
    seconds: float


@dataclass(frozen=True)
class Measured:
    shards: int
    commands: float  # encounter commands/s
    raw: float  # raw one-row transactions/s, same threads, same database
    spread: list[int]  # events per shard table
    events_per_command: float = 0.0
    plain: float = 0.0  # the plain eventsourcing library's commands/s, same events a command


def set_up(service: str, shards: int, encounters: int) -> list[str]:
    """One campaign per encounter, each with a fight of two combatants."""
    settings = Settings(
        database_url=SecretStr(service), dice_master_key=SecretStr(KEY), shards=shards
    )
    runtime = bootstrap.start(settings)
    try:
        fights = []
        for index in range(encounters):
            campaign = runtime.campaigns.open(f"bench {index}", "glorious_drive", {}, gm="gm")
            fights.append(str(open_fight(runtime, uuid.UUID(campaign.id))))
        return fights
    finally:
        runtime.close()


def drive(template: Drive, fights: list[str], workers: int, owner: str) -> float:
    """Per second, over the measured window, what every worker's threads completed."""
    context = multiprocessing.get_context("spawn")  # no pools or sockets inherited by fork
    shares = [tuple(fights[i::workers]) for i in range(workers) if fights[i::workers]]
    ready = context.Barrier(len(shares))
    results = context.Queue()
    processes = [
        context.Process(target=work, args=(replace(template, fights=share), ready, results))
        for share in shares
    ]
    with sampled(owner) as waits:
        for process in processes:
            process.start()
        try:
            answers = [results.get(timeout=600) for _ in processes]
        finally:
            for process in processes:
                process.join(timeout=60)
    errors = [detail for status, detail in answers if status != "ok"]
    if errors:
        raise RuntimeError(f"a write worker failed:\n{errors[0]}")
    counts = [detail for _, detail in answers]
    done, cpu = sum(int(c[0]) for c in counts), sum(float(c[1]) for c in counts)
    begin, end = min(float(c[2]) for c in counts), max(float(c[3]) for c in counts)
    calls, appends = sum(int(c[4]) for c in counts), sum(int(c[5]) for c in counts)
    what = (
        "raw inserts"
        if template.raw
        else f"plain eventsourcing, {template.plain_events:.2f} events a command"
        if template.plain_events
        else f"commands on {template.shards} shard(s)"
    )
    batching = "" if template.raw else f"; {appends / max(calls, 1):.1f} appends per call"
    print(
        f"{what}: {done / template.seconds:,.0f}/s; the {len(shares)} driving processes used "
        f"{cpu / template.seconds:.2f} cores, {1000 * cpu / max(done, 1):.2f} ms CPU each"
        f"{batching}\n"
        f"  CPU: {_cores(cpu / template.seconds, waits.cores(begin, end))}\n"
        f"  its backends, sampled: {waits.describe(begin, end)}",
        flush=True,
    )
    return done / template.seconds


def _cores(drivers: float, server: tuple[float, float] | None) -> str:
    """'drivers X cores + PostgreSQL Y cores of N': near N, the machine was the limit (the
    whole machine's busy cores beside it: on a shared machine, other work takes some)."""
    if server is None:
        return f"drivers {drivers:.2f} cores + PostgreSQL unknown (not on this machine)"
    postgres, busy = server
    return (
        f"drivers {drivers:.2f} cores + PostgreSQL {postgres:.2f} cores of {os.cpu_count()} "
        f"(the whole machine busy: {busy:.2f})"
    )


def measure(superuser: str, shards: int, load: Load) -> Measured:
    with fresh_database(superuser, shards) as (owner, service):
        fights = set_up(service, shards, load.encounters)
        with psycopg.connect(owner, autocommit=True) as conn:
            conn.execute(
                sql.SQL(
                    "CREATE TABLE {} (id bigserial PRIMARY KEY, stream uuid NOT NULL, "
                    "body bytea NOT NULL)"
                ).format(sql.Identifier(RAW_TABLE))
            )
        before, issued = events_per_shard(owner, shards), commands_issued(owner, shards)
        # The raw reference as the owner: the role makes no difference to an INSERT's cost.
        raw_drive = Drive(owner, shards, (), True, load.warmup, load.seconds)
        raw = drive(raw_drive, fights, load.workers, owner)
        senki = drive(replace(raw_drive, url=service, raw=False), fights, load.workers, owner)
        after = events_per_shard(owner, shards)
        per_command = (sum(after) - sum(before)) / max(1, commands_issued(owner, shards) - issued)
        plain = 0.0
        if shards == 1:  # the library has one events table: beside Senki's one shard
            application(owner, 1).close()  # its table, created once before the workers
            plain_drive = replace(raw_drive, raw=False, plain_events=per_command)
            plain = drive(plain_drive, fights, load.workers, owner)
    spread = [a - b for a, b in zip(after, before, strict=True)]
    return Measured(shards, senki, raw, spread, per_command, plain)


def events_per_shard(owner: str, shards: int) -> list[int]:
    counted = []
    with psycopg.connect(owner) as conn:
        for index in range(shards):
            table = sql.Identifier(ShardTables(index).events)
            row = conn.execute(
                sql.SQL("SELECT count(*) FROM {}.{}").format(sql.Identifier(SCHEMA), table)
            ).fetchone()
            counted.append(int(str(row[0])) if row else 0)
    return counted


def commands_issued(owner: str, shards: int) -> int:
    """Commands recorded so far: each appends one CommandIssued event first."""
    counted = 0
    with psycopg.connect(owner) as conn:
        for index in range(shards):
            table = sql.Identifier(ShardTables(index).events)
            row = conn.execute(
                sql.SQL("SELECT count(*) FROM {}.{} WHERE topic LIKE %s").format(
                    sql.Identifier(SCHEMA), table
                ),
                ("%CommandIssued%",),
            ).fetchone()
            counted += int(str(row[0])) if row else 0
    return counted


def check_spread(measured: Measured, console: Console) -> None:
    total = sum(measured.spread)
    shown = ", ".join(f"events_{i}: {n}" for i, n in enumerate(measured.spread))
    console.print(f"{measured.shards} shards, events written while measured: {shown}")
    if measured.shards > 1 and max(measured.spread, default=0) == total:
        raise NotSpread(
            f"all {total} events of the {measured.shards}-shard run went to one events table: "
            "campaigns are not being placed over the shards, so this measured one shard"
        )


def figures(one: Measured, many: Measured, load: Load) -> list[Figure]:
    n, raw = load.encounters, f"raw one-row transactions, {load.encounters} threads"
    return [
        Figure(
            f"commands/s on {many.shards} shards, {n} encounters",
            many.commands,
            "/s",
            raw,
            many.raw,
            "≥ 0.5×",
        ),
        Figure(
            f"commands/s on {many.shards} shards over 1 shard",
            many.commands,
            "/s",
            f"commands/s on 1 shard, {n} encounters",
            one.commands,
            "≥ 2×",
        ),
        Figure(
            f"commands/s on 1 shard, {n} encounters",
            one.commands,
            "/s",
            raw,
            one.raw,
            "(for information)",
        ),
        Figure(
            "writes per shard over plain eventsourcing, "
            f"{one.events_per_command:.2f} events a command",
            one.commands,
            "/s",
            "the plain eventsourcing library on its PostgreSQL recorder, same events a command",
            one.plain,
            "≥ 3×",
        ),
    ]


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--encounters", type=int, default=64, help="concurrent encounters")
    options.add_argument("--workers", type=int, default=4, help="driving processes")
    options.add_argument("--seconds", type=float, default=10.0, help="measured window")
    options.add_argument("--shards", type=int, default=4, help="the many-shard configuration")
    args = options.parse_args()
    load = (
        Load(encounters=8, workers=2, warmup=0.5, seconds=2.0)
        if args.quick
        else Load(args.encounters, args.workers, warmup=2.0, seconds=args.seconds)
    )
    console = Console()
    with server() as superuser:
        started = time.perf_counter()
        one = measure(superuser, 1, load)
        many = measure(superuser, args.shards, load)
    check_spread(many, console)
    console.print(f"(measured in {time.perf_counter() - started:.0f} s)")
    found = figures(one, many, load)
    report("writes", f"Write scaling ({load.encounters} concurrent encounters)", found)
    write_figures(args.json, found)


if __name__ == "__main__":
    main()
