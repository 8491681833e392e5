"""Issue #18's figures: write throughput with the log's shards on 1, 2 and 3 PostgreSQL
clusters of this machine, each beside raw inserts spread the same way, with the CPU accounting.

Run: `python -m bench.clusters [--encounters 24] [--workers 2] [--seconds 8] [--json PATH]
[--quick]`, or `python -m bench --only clusters`.

Three real clusters are started on loopback from the embedded server's binaries (the
`PrivateServer` of the cluster tests: fsync off, so a commit's cost is CPU, not this machine's
disk). The log has 3 shards in every layout, so only where they live changes:

  1 cluster   home and shards 0, 1, 2 in one database (the one-machine default)
  2 clusters  home and shard 0 on cluster 0; shards 1 and 2 on cluster 1
  3 clusters  home and shard 0 on cluster 0; shard 1 on cluster 1; shard 2 on cluster 2

Every encounter sits in its own campaign and is driven flat out by one thread through the turn
of bench/write_workers.py, the threads split over worker processes (each its own runtime and
pools). The reference, just before, on the same threads: one-row autocommit INSERTs into a
plain table on the cluster of the shard that thread's encounter is on.

The CPU accounting says whether the machine was the limit: user+sys CPU seconds, inside the
measured window, of each PostgreSQL server (its postmaster and every backend, from /proc) and
of the driving processes, against the machine's cores × the window. Near 100%: more clusters
on the same cores cannot write faster; the split pays off when each cluster has a machine.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from bench.common import KEY, Figure, report
from bench.encounter import open_fight
from bench.options import parser, write_figures
from bench.write_workers import RAW_BODY, RAW_TABLE, _run, _turns
from infra import bootstrap
from infra.settings import Settings
from tests.support.clusters import Clusters, Layout

LAYOUTS = {1: (0, 0, 0), 2: (0, 1, 1), 3: (0, 1, 2)}
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Drive:
    """What one worker process drives (picklable, for a spawned process)."""

    settings: dict[str, Any]  # Settings fields of the layout
    fights: tuple[tuple[str, str], ...]  # (encounter id, raw URL of its shard's cluster)
    raw: bool
    warmup: float
    seconds: float


@dataclass(frozen=True)
class Window:
    done: int
    client_cpu: float  # user+sys seconds of the driving processes in the window
    servers_cpu: list[float]  # user+sys seconds of each cluster in the window
    machine_cpu: float  # busy CPU seconds of the whole machine (other work on it too)
    seconds: float

    @property
    def rate(self) -> float:
        return self.done / self.seconds

    def accounting(self) -> str:
        cores = os.cpu_count() or 1
        total = self.client_cpu + sum(self.servers_cpu)
        servers = " + ".join(f"{c:.1f}" for c in self.servers_cpu)
        return (
            f"CPU s in {self.seconds:.0f} s: servers {servers}, client {self.client_cpu:.1f} = "
            f"{total:.1f} of {cores} cores × {self.seconds:.0f} s = {cores * self.seconds:.0f} "
            f"({100 * total / (cores * self.seconds):.0f}%); the whole machine was busy "
            f"{self.machine_cpu:.1f} CPU s ({100 * self.machine_cpu / (cores * self.seconds):.0f}%)"
        )


def settings_of(layout: Layout, pool_size: int) -> dict[str, Any]:
    one_database = set(layout.shard_hosts) == {0}
    found: dict[str, Any] = {
        "database_url": layout.home_url(),
        "dice_master_key": KEY,
        "shards": layout.shards,
        "pool_size": pool_size,
    }
    if not one_database:
        found["shard_urls"] = [layout.shard_url(s) for s in range(layout.shards)]
    return found


def work(drive: Drive, ready: Barrier, results: Queue[tuple[str, Any]]) -> None:
    """A worker process: ("ok", (count, CPU seconds)) for the measured window."""
    import traceback

    try:
        with _steps(drive) as steps, _pool(len(steps)) as pool:
            ready.wait(timeout=300)
            begin = time.time() + drive.warmup
            end = begin + drive.seconds
            running = [pool.submit(_run, step, begin, end) for step in steps]
            time.sleep(max(0.0, begin - time.time()))
            cpu = time.process_time()
            time.sleep(max(0.0, end - time.time()))
            cpu = time.process_time() - cpu
            done = sum(future.result() for future in running)
        results.put(("ok", (done, cpu)))
    except BaseException:
        ready.abort()
        results.put(("error", traceback.format_exc()))


@contextmanager
def _pool(threads: int) -> Iterator[Any]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        yield pool


@contextmanager
def _steps(drive: Drive) -> Iterator[list[Any]]:
    if drive.raw:
        connections = [psycopg.connect(url, autocommit=True) for _, url in drive.fights]
        insert = f"INSERT INTO {RAW_TABLE} (stream, body) VALUES (%s, %s)"
        try:
            yield [partial(c.execute, insert, (uuid.uuid4(), RAW_BODY)) for c in connections]
        finally:
            for connection in connections:
                connection.close()
        return
    runtime = bootstrap.start(Settings.model_validate(drive.settings))
    try:
        for fight, _ in drive.fights:  # placements and states cached before the clock starts
            runtime.encounters.state(uuid.UUID(fight))
        yield [_turns(runtime, uuid.UUID(fight)) for fight, _ in drive.fights]
    finally:
        runtime.close()


def server_cpu(pgdata: Path) -> float:
    """User+sys CPU seconds so far of one PostgreSQL server: its postmaster (with the
    backends it has reaped) and every live backend."""
    postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it exited meanwhile
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / _TICK


def machine_busy() -> float:
    """Busy CPU seconds of every core so far (/proc/stat: all but idle and iowait)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / _TICK


def drive(
    clusters: Clusters, template: Drive, fights: list[tuple[str, str]], workers: int
) -> Window:
    context = multiprocessing.get_context("spawn")
    shares = [tuple(fights[i::workers]) for i in range(workers) if fights[i::workers]]
    ready = context.Barrier(len(shares) + 1)  # and this process, to read the servers' CPU
    results = context.Queue()
    processes = [
        context.Process(target=work, args=(replace(template, fights=share), ready, results))
        for share in shares
    ]
    for process in processes:
        process.start()
    try:
        ready.wait(timeout=300)
        pgdata = [server.layout.pgdata for server in clusters.servers]
        time.sleep(template.warmup)
        before, machine = [server_cpu(p) for p in pgdata], machine_busy()
        time.sleep(template.seconds)
        spent = [server_cpu(p) - b for p, b in zip(pgdata, before, strict=True)]
        machine = machine_busy() - machine
        answers = [results.get(timeout=600) for _ in processes]
    finally:
        for process in processes:
            process.join(timeout=60)
    errors = [detail for status, detail in answers if status != "ok"]
    if errors:
        raise RuntimeError(f"a write worker failed:\n{errors[0]}")
    done = sum(int(detail[0]) for _, detail in answers)
    cpu = sum(float(detail[1]) for _, detail in answers)
    return Window(done, cpu, spent, machine, template.seconds)


@dataclass(frozen=True)
class Measured:
    clusters: int
    commands: Window
    raw: Window
    spread: list[int]  # events per cluster written in the run


def measure(clusters: Clusters, count: int, encounters: int, args: Any) -> Measured:
    with clusters.layout(LAYOUTS[count]) as layout:
        prepare(clusters, layout)
        fights = set_up(layout, encounters)
        settings = settings_of(layout, pool_size=max(4, encounters // args.workers))
        raw_template = Drive(settings, (), True, args.warmup, args.seconds)
        raw = drive(clusters, raw_template, fights, args.workers)
        print(f"{count} cluster(s), raw inserts: {raw.rate:,.0f}/s; {raw.accounting()}", flush=True)
        commands = drive(clusters, replace(raw_template, raw=False), fights, args.workers)
        print(
            f"{count} cluster(s), commands: {commands.rate:,.0f}/s; {commands.accounting()}",
            flush=True,
        )
        spread = [events_on(clusters.url(c, layout.database), layout) for c in range(len(clusters))]
    print(f"  events per cluster: {spread}", flush=True)
    return Measured(count, commands, raw, spread)


def prepare(clusters: Clusters, layout: Layout) -> None:
    """`senki db migrate` as an operator runs it for the layout (home, then every shard's
    cluster), and the raw reference's table on every cluster."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")} | layout.env()
    if set(layout.shard_hosts) == {0}:  # the one-machine default: no shard URLs at all
        env = {k: v for k, v in env.items() if "SHARD_" not in k}
    done = subprocess.run(
        [sys.executable, "-m", _cli(), "db", "migrate"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"senki db migrate failed: {done.stdout}{done.stderr}")
    for host in range(len(clusters)):
        with psycopg.connect(clusters.url(host, layout.database), autocommit=True) as conn:
            conn.execute(
                sql.SQL(
                    "CREATE TABLE {} (id bigserial PRIMARY KEY, stream uuid NOT NULL, "
                    "body bytea NOT NULL)"
                ).format(sql.Identifier(RAW_TABLE))
            )


def _cli() -> str:
    """The CLI's module, as `python -m` runs it."""
    return "infra.cli.main"


def set_up(layout: Layout, encounters: int) -> list[tuple[str, str]]:
    """One campaign per encounter; each fight with the raw URL of its shard's cluster."""
    runtime = bootstrap.start(Settings.model_validate(settings_of(layout, 4)))
    try:
        fights = []
        for index in range(encounters):
            campaign = runtime.campaigns.open(f"bench {index}", "glorious_drive", {}, gm="gm")
            fight = open_fight(runtime, uuid.UUID(campaign.id))
            shard = runtime.ledger.placements.shard_of(fight)
            fights.append((str(fight), layout.owner_url(shard)))
        return fights
    finally:
        runtime.close()


def events_on(owner: str, layout: Layout) -> int:
    total = 0
    with psycopg.connect(owner, autocommit=True) as conn:
        for shard in range(layout.shards):
            name = f"senki.events_{shard}"
            row = conn.execute("SELECT to_regclass(%s)", (name,)).fetchone()
            if row and row[0]:
                counted = conn.execute(
                    sql.SQL("SELECT count(*) FROM {}").format(
                        sql.Identifier("senki", f"events_{shard}")
                    )
                ).fetchone()
                total += int(str(counted[0])) if counted else 0
    return total


def figures(found: dict[int, Measured], encounters: int) -> list[Figure]:
    one = found[1]
    rows = []
    for count, measured in found.items():
        rows.append(
            Figure(
                f"commands/s, 3 shards on {count} cluster(s), {encounters} encounters",
                measured.commands.rate,
                "/s",
                f"raw one-row transactions spread the same way, {encounters} threads",
                measured.raw.rate,
                "(for information)",
            )
        )
        busy = measured.commands.client_cpu + sum(measured.commands.servers_cpu)
        rows.append(
            Figure(
                f"CPU used while writing on {count} cluster(s) (servers + client)",
                busy,
                "CPU s",
                "cores × window",
                (os.cpu_count() or 1) * measured.commands.seconds,
                "near 1×: the machine's cores were the limit",
            )
        )
        if count > 1:
            rows.append(
                Figure(
                    f"commands/s on {count} clusters over 1 cluster",
                    measured.commands.rate,
                    "/s",
                    "commands/s, 3 shards on 1 cluster",
                    one.commands.rate,
                    "(one machine: the clusters share its cores)",
                )
            )
    return rows


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--encounters", type=int, default=24, help="concurrent encounters")
    options.add_argument("--workers", type=int, default=2, help="driving processes")
    options.add_argument("--seconds", type=float, default=8.0, help="measured window")
    options.add_argument("--warmup", type=float, default=2.0, help="seconds before the window")
    options.add_argument("--layouts", default="1,2,3", help="cluster counts to measure")
    args = options.parse_args()
    if args.quick:
        args.encounters, args.seconds, args.warmup = 6, 2.0, 0.5
    counts = [int(n) for n in args.layouts.split(",")]
    started = time.perf_counter()
    with ExitStack() as stack:
        clusters = stack.enter_context(Clusters(max(counts)))
        found = {count: measure(clusters, count, args.encounters, args) for count in counts}
    print(f"(measured in {time.perf_counter() - started:.0f} s)")
    rows = figures(found, args.encounters)
    report("clusters", f"Writes over clusters ({args.encounters} concurrent encounters)", rows)
    write_figures(args.json, rows)
    detail = {
        count: {
            "commands": vars(m.commands) | {"rate": m.commands.rate},
            "raw": vars(m.raw) | {"rate": m.raw.rate},
            "events_per_cluster": m.spread,
        }
        for count, m in found.items()
    }
    print(json.dumps(detail, indent=1))


if __name__ == "__main__":
    main()
