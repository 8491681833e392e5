"""Issue 34 §4, speed as tables feel it: how many live tables one core of server CPU holds.

T simulated live tables, each a GM, three players and two viewers: the viewers hold the
encounter's live stream (Server-Sent Events, two viewer tokens), the GM and the players send
commands at table pace (one every `PACE_S` per table) in the Glorious Drive turn mix, chosen
from what each answer says is awaited (initiative, clean-up, attacks, dodges and hits),
a third of the rolls with hand dice entered by the member they are for (`EnterDie`). T rises
step by step until command p99 exceeds 50 ms or commit-to-visible p95 on the viewers exceeds
100 ms (visible: from the command's answer reaching its sender to the event reaching each
viewer's stream; an event on the stream before the answer counts 0).

The same load runs, in the same process and run, against the bare reference server
(bench/bare_live.py: one INSERT + NOTIFY per command, fanned out to the same streams by one
LISTEN per process), each server with 1 and 2 worker processes on one port. Server CPU is
accounted from /proc (psutil) over each measured window: the server's processes and the
PostgreSQL backends of its database; the load generator's own CPU is reported beside it.
"Tables per core", at the last T within both limits: the commands answered per second of
server CPU times the table pace (= T ÷ the server cores used, when every table kept the pace).
Beside each server, a probe commits an empty transaction that holds a transaction id every
`PROBE_S` on a database of its own in the same cluster (so its CPU is not the server's): a
commit waits for the WAL to reach the disk, so the probe's slowest commits in a window say
how long the disk held every commit in it back, whatever the server did (a disk that stalls
for 100 ms now and then puts command p99 over 50 ms for both servers).
`--ignore-limits` ramps to `--most` whatever the latencies: the CPU a table costs on a machine
too busy for the latency limits to say anything about the server; `--viewers 0` leaves the
streams out, so that what they cost shows by difference.

`python -m bench.table_load [--quick] [--json PATH] [--window S] [--start T] [--most T]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import psutil
import psycopg

from bench.api import free_port, process, sheet
from bench.common import KEY, Figure, fresh_database, report, server, with_database
from bench.lean_http import Connection, ResponseNotUnderstood
from bench.options import parser, write_figures

PACE_S = 5.0
COMMAND_P99_MS, VISIBLE_P95_MS = 50.0, 100.0
HAND_SHARE = 1 / 3
PLAYERS, VIEWERS = ("p1", "p2", "p3"), ("v1", "v2")
SETUP_CONCURRENCY = 16
PROBE_S = 0.1  # between two commits of the disk probe


# ---- the live streams ---------------------------------------------------------------------


class Stream:
    """One viewer's live stream: when each event id arrived (a chunked SSE response)."""

    def __init__(self, base: str, path: str, token: str | None, seen: dict[int, float]) -> None:
        self.base, self.path, self.token, self.seen = base, path, token, seen
        self.task: asyncio.Task[None] | None = None
        self.opened = asyncio.Event()
        self.error: str | None = None

    async def run(self) -> None:
        http = Connection(self.base)
        host = f"{http.host}:{http.port}"
        try:
            reader, writer = await asyncio.open_connection(http.host, http.port)
            auth = f"Authorization: Bearer {self.token}\r\n" if self.token else ""
            writer.write(f"GET {self.path} HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            if status != 200:
                self.error = f"stream answered {status}"
                self.opened.set()
                return
            self.opened.set()
            buffer = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                if size == 0:
                    return
                buffer += await reader.readexactly(size + 2)
                buffer = buffer[:-2] if buffer.endswith(b"\r\n") else buffer
                *blocks, buffer = buffer.split(b"\n\n")
                now = time.perf_counter()
                for block in blocks:
                    found = re.match(rb"id: (\d+)", block)
                    if found:
                        self.seen.setdefault(int(found.group(1)), now)
        except (ConnectionError, asyncio.IncompleteReadError) as error:
            self.error = f"stream lost: {error!r}"
        finally:
            self.opened.set()

    def start(self) -> None:
        self.task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with _suppress_cancel():
                await self.task


def _suppress_cancel() -> contextlib.suppress:
    """A task torn down with its server may end in any error: it is over either way."""
    return contextlib.suppress(asyncio.CancelledError, Exception)


# ---- a table ------------------------------------------------------------------------------


@dataclass
class Table:
    """One live table: its encounter (or the bare server's table id) and who sits at it."""

    key: str
    tokens: dict[str, str] = field(default_factory=dict)  # member → token
    controllers: dict[str, str] = field(default_factory=dict)  # combatant → member
    sides: dict[str, str] = field(default_factory=dict)
    version: int = 0
    awaiting: dict[str, Any] = field(default_factory=dict)


def next_command(table: Table, rng: random.Random) -> tuple[dict[str, Any], str]:
    """The table's next command and who sends it, from what the encounter awaits: the hand
    die if one is awaited (by the member it is for), else the turn's next step."""
    die = table.awaiting.get("die")
    if die:
        # One die at a time, as the encounter asks for them.
        count = int(re.match(r"(\d*)D", die["notation"]).group(1) or 1)  # type: ignore[union-attr]
        faces = [rng.randint(1, die["sides"]) for _ in range(count)]
        return {"command": "EnterDie", "faces": faces}, die["for_member"]
    names = {a["command"]: a for a in table.awaiting.get("commands", [])}
    dice = "hand" if rng.random() < HAND_SHARE else "server"
    if "RollInitiative" in names:
        return {"command": "RollInitiative", "dice": dice}, "gm"
    for reaction in ("Dodge", "TakeHit", "Cleanup"):
        if reaction in names and names[reaction]["combatant"]:
            who = names[reaction]["combatant"]
            body = {"command": reaction, "combatant_id": who}
            return body | ({"dice": dice} if reaction == "Dodge" else {}), table.controllers[who]
    if "DeclareAttack" in names and names["DeclareAttack"]["combatant"]:
        acting = names["DeclareAttack"]["combatant"]
        targets = [c for c, side in table.sides.items() if side != table.sides[acting]]
        body = {"command": "DeclareAttack", "combatant_id": acting, "target": rng.choice(targets)}
        return body | {"dice": dice}, table.controllers[acting]
    raise RuntimeError(f"table {table.key}: nothing awaited that the bench plays: {names}")


COMBATANTS = (
    ("pc1", "p1", "pc", (0, 0)),
    ("pc2", "p2", "pc", (0, 1)),
    ("pc3", "p3", "pc", (0, 2)),
    ("e1", "gm", "enemy", (5, 0)),
    ("e2", "gm", "enemy", (5, 2)),
)


async def _call(
    http: Connection, method: str, path: str, token: str | None, body: object = None, **h: str
) -> Any:
    headers = {"Idempotency-Key": str(uuid.uuid4())} | h
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = await http.request(method, path, json_body=body, headers=headers)
    if answer.status >= 300:
        raise RuntimeError(f"{method} {path}: {answer.status} {answer.body[:300]!r}")
    return answer.json()


async def open_senki_table(http: Connection) -> Table:
    """A campaign, three players and two viewers with their tokens, and an encounter with
    dice chosen per roll: three PCs (one per player) against two enemies (the GM's)."""
    opened = await _call(
        http, "POST", "/v1/campaigns", None, {"name": "table", "gm_member_id": "gm"}
    )
    campaign, gm = opened["id"], opened["token"]
    tokens = {"gm": gm}
    for member in PLAYERS + VIEWERS:
        role = "viewer" if member in VIEWERS else "player"
        base = f"/v1/campaigns/{campaign}"
        await _call(http, "POST", f"{base}/members", gm, {"member_id": member, "role": role})
        issued = await _call(
            http, "POST", f"{base}/tokens", gm, {"kind": "member", "member_id": member}
        )
        tokens[member] = issued["token"]
    fight = await _call(
        http,
        "POST",
        f"/v1/campaigns/{campaign}/encounters",
        gm,
        {"battle_map": {"width": 10, "height": 4}, "dice": "per_roll"},
    )
    table = Table(fight["id"], tokens)
    version = (await _call(http, "GET", f"/v1/encounters/{table.key}", gm))["version"]
    for cid, member, side, (x, y) in COMBATANTS:
        body = sheet(x) | {"position": {"x": x, "y": y}}
        joined = await _call(
            http,
            "POST",
            f"/v1/encounters/{table.key}/commands",
            gm,
            {
                "command": "JoinCombatant",
                "combatant_id": cid,
                "name": cid,
                "side": side,
                "controller": member,
                "sheet": body,
            },
            **{"If-Match": f'"{version}"'},
        )
        version, table.awaiting = joined["version"], joined["awaiting"]
        table.controllers[cid], table.sides[cid] = member, side
    table.version = version
    return table


# ---- the load -----------------------------------------------------------------------------


@dataclass
class Step:
    """What one step of the ramp measured."""

    tables: int
    commands: int = 0
    failures: int = 0
    command_ms: list[float] = field(default_factory=list)
    visible_ms: list[float] = field(default_factory=list)
    unseen: int = 0
    stopped: int = 0  # tables whose player died on an error: none in a sound run
    server_cores: float = 0.0
    postgres_cores: float = 0.0
    generator_cores: float = 0.0
    seconds: float = 0.0
    commit_probe_ms: list[float] = field(default_factory=list)  # the disk probe's commits

    def tables_per_core(self, pace_s: float) -> float:
        """Tables one core of server CPU holds at table pace: the commands it answered per
        core-second, times the seconds between a table's commands (T ÷ cores when every table
        kept the pace; on a busy machine the generator's tables fall a little behind it)."""
        if not self.server_cores or not self.seconds:
            return 0.0
        return self.commands / self.seconds * pace_s / self.server_cores

    @property
    def command_p99(self) -> float:
        return _percentile(self.command_ms, 0.99)

    @property
    def visible_p95(self) -> float:
        # An event a viewer never saw counts as over any limit.
        return _percentile(self.visible_ms + [float("inf")] * self.unseen, 0.95)

    @property
    def within(self) -> bool:
        return (
            self.command_p99 <= COMMAND_P99_MS
            and self.visible_p95 <= VISIBLE_P95_MS
            and self.failures <= 0.01 * max(1, self.commands)
            and self.stopped == 0
        )

    def summary(self) -> dict[str, float | int]:
        return {
            "tables": self.tables,
            "commands": self.commands,
            "failures": self.failures,
            "command_p50_ms": _percentile(self.command_ms, 0.5),
            "command_p99_ms": self.command_p99,
            "visible_p95_ms": self.visible_p95,
            "unseen": self.unseen,
            "stopped": self.stopped,
            "server_cores": self.server_cores,
            "of_which_postgres_cores": self.postgres_cores,
            "generator_cores": self.generator_cores,
            "seconds": self.seconds,
            "commit_probe_p99_ms": _percentile(self.commit_probe_ms, 0.99),
            "commit_probe_max_ms": max(self.commit_probe_ms, default=float("nan")),
        }


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * share + 0.5) - 1))]


class Target:
    """How the load reaches one server: Senki's API or the bare reference."""

    def __init__(self, kind: str, base: str) -> None:
        self.kind, self.base = kind, base

    def command_path(self, table: Table) -> str:
        if self.kind == "bare":
            return f"/tables/{table.key}/commands"
        return f"/v1/encounters/{table.key}/commands"

    def stream_path(self, table: Table) -> str:
        if self.kind == "bare":
            return f"/tables/{table.key}/stream"
        return f"/v1/encounters/{table.key}/stream?after={table.version}"


class Load:
    """The tables at play on one server, their viewers' streams, and the measurements."""

    def __init__(
        self, target: Target, rng: random.Random, pace: float, viewers: tuple[str, ...]
    ) -> None:
        self.target, self.rng, self.pace, self.viewers = target, rng, pace, viewers
        self.playing: list[tuple[Table, list[Stream], asyncio.Task[None]]] = []
        self.answered: dict[tuple[str, int], float] = {}  # (table, version) → answer time
        self.seen: dict[str, dict[int, float]] = {}
        self.latencies: list[tuple[float, float]] = []  # (sent at, ms)
        self.failures: list[float] = []

    async def add(self, table: Table) -> None:
        streams = []
        for viewer in self.viewers:
            seen: dict[int, float] = {}
            self.seen[f"{table.key}/{viewer}"] = seen
            stream = Stream(
                self.target.base, self.target.stream_path(table), table.tokens.get(viewer), seen
            )
            stream.start()
            streams.append(stream)
        for stream in streams:
            await stream.opened.wait()
            if stream.error:
                raise RuntimeError(f"table {table.key}: {stream.error}")
        task = asyncio.create_task(self._play(table))
        self.playing.append((table, streams, task))

    async def _play(self, table: Table) -> None:
        http = Connection(self.target.base, timeout=60)
        await asyncio.sleep(self.rng.uniform(0, self.pace))  # tables do not move in step
        path = self.target.command_path(table)
        try:
            while True:
                started = time.perf_counter()
                if self.target.kind == "bare":
                    body, member = {"command": "DeclareAttack", "combatant_id": "pc1"}, "gm"
                else:
                    body, member = next_command(table, self.rng)
                headers = {
                    "Authorization": f"Bearer {table.tokens.get(member, '')}",
                    "If-Match": f'"{table.version}"',
                    "Idempotency-Key": str(uuid.uuid4()),
                }
                try:
                    answer = await http.post(path, body, headers=headers)
                except ResponseNotUnderstood:
                    # The server closed the connection as it sat idle (its keep-alive timeout
                    # is the table's pace): a client connects again and sends the same request
                    # (the same Idempotency-Key), as a browser does.
                    await http.close()
                    answer = await http.post(path, body, headers=headers)
                done = time.perf_counter()
                self.latencies.append((started, (done - started) * 1000))
                if answer.status >= 300:
                    self.failures.append(started)
                    if len(self.failures) <= 3:  # what went wrong, once or twice
                        print(f"refused {body}: {answer.status} {answer.body[:300]!r}")
                    if self.target.kind != "bare":
                        await self._reread(http, table)
                else:
                    answered = answer.json()
                    table.version = answered["version"]
                    table.awaiting = answered.get("awaiting", {})
                    self.answered[(table.key, table.version)] = done
                await asyncio.sleep(max(0.0, self.pace - (time.perf_counter() - started)))
        finally:
            await http.close()

    async def _reread(self, http: Connection, table: Table) -> None:
        state = await _call(http, "GET", f"/v1/encounters/{table.key}", table.tokens["gm"])
        table.version = state["version"]
        table.awaiting = {
            "commands": state["procedure"]["awaiting"],
            "die": state.get("awaited_die"),
        }

    def measure(self, window: tuple[float, float], tables: int) -> Step:
        """The step's figures: commands sent within the window, and what the viewers saw of
        those answered in it."""
        start, end = window
        step = Step(tables)
        step.command_ms = [ms for at, ms in self.latencies if start <= at < end]
        step.commands = len(step.command_ms)
        step.failures = sum(1 for at in self.failures if start <= at < end)
        for (key, version), done in self.answered.items():
            if not start <= done < end:
                continue
            for viewer in self.viewers:
                arrived = self.seen[f"{key}/{viewer}"].get(version)
                if arrived is None:
                    step.unseen += 1
                else:
                    step.visible_ms.append(max(0.0, arrived - done) * 1000)
        return step

    def stopped(self) -> int:
        """Tables whose player stopped on an error (each also printed): their commands are
        missing from the figures, so a run with any says so."""
        return sum(1 for _, _, task in self.playing if task.done() and not task.cancelled())

    async def stop(self) -> None:
        for _, streams, task in self.playing:
            if task.done() and not task.cancelled() and task.exception() is not None:
                print(f"a table stopped: {task.exception()!r}")
            task.cancel()
            with _suppress_cancel():
                await task
            for stream in streams:
                await stream.stop()
        self.playing.clear()


# ---- the disk probe -----------------------------------------------------------------------


class CommitProbe:
    """How long a commit waits for the disk, sampled every `PROBE_S` beside the load: an
    empty transaction made to hold a transaction id (so its commit writes a commit record
    and waits for the WAL flush, as every command's does) on a database of its own."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.samples: list[tuple[float, float]] = []  # (when it began, ms)
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> CommitProbe:
        conn = await psycopg.AsyncConnection.connect(self.url)
        self._task = asyncio.create_task(self._run(conn))
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self, conn: psycopg.AsyncConnection[Any]) -> None:
        async with conn:
            while True:
                began = time.perf_counter()
                async with conn.transaction():
                    await conn.execute("SELECT pg_current_xact_id()")
                self.samples.append((began, (time.perf_counter() - began) * 1000))
                await asyncio.sleep(PROBE_S)

    def within(self, start: float, end: float) -> list[float]:
        return [ms for at, ms in self.samples if start <= at < end]


# ---- CPU accounting -----------------------------------------------------------------------


class Accounts:
    """CPU seconds of a server's processes (the parent and its workers) and of the PostgreSQL
    backends of its database, read from /proc."""

    def __init__(self, pid: int, superuser: str, database: str) -> None:
        self.pid, self.superuser, self.database = pid, superuser, database

    def _backends(self) -> list[int]:
        with psycopg.connect(self.superuser, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (self.database,),
            ).fetchall()
        return [int(row[0]) for row in rows]

    def read(self) -> tuple[dict[int, float], dict[int, float]]:
        root = psutil.Process(self.pid)
        servers = {p.pid: _cpu(p) for p in [root, *root.children(recursive=True)]}
        postgres = {}
        for pid in self._backends():
            with _gone():
                postgres[pid] = _cpu(psutil.Process(pid))
        return servers, postgres


def _cpu(process: psutil.Process) -> float:
    with _gone():
        times = process.cpu_times()
        return float(times.user + times.system)
    return 0.0


def _gone() -> contextlib.suppress:
    """A process that exited between listing and reading: nothing more to count."""
    return contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied)


def _spent(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(max(0.0, cpu - before.get(pid, 0.0)) for pid, cpu in after.items())


# ---- the ramp -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    start: int
    most: int
    growth: float
    warm_s: float
    window_s: float
    pace_s: float
    enforce: bool = True  # False (--quick): every step runs, the last one stands as the limit
    viewers: int = len(VIEWERS)  # fewer: what the streams cost, by difference


async def ramp(
    *,
    target: Target,
    accounts: Accounts,
    sizes: Sizes,
    tables: list[Table],
    make: Any,
    say: Any,
    probe_url: str,
) -> list[Step]:
    """Raise T until a limit is crossed (or `sizes.most`); the steps measured."""
    async with CommitProbe(probe_url) as probe:
        return await _steps(target, accounts, sizes, tables, (make, say, probe))


async def _steps(
    target: Target,
    accounts: Accounts,
    sizes: Sizes,
    tables: list[Table],
    tools: tuple[Any, Any, CommitProbe],
) -> list[Step]:
    """`ramp`'s steps; `tools`: how to make a table, how to say a step, the disk probe."""
    make, say, probe = tools
    load = Load(target, random.Random(34), sizes.pace_s, VIEWERS[: sizes.viewers])
    steps: list[Step] = []
    wanted = sizes.start
    try:
        while True:
            while len(tables) < wanted:  # tables made once, reused with the next server
                batch = min(SETUP_CONCURRENCY, wanted - len(tables))
                tables += await asyncio.gather(*(make() for _ in range(batch)))
            while len(load.playing) < wanted:
                batch = tables[len(load.playing) : min(wanted, len(load.playing) + 64)]
                await asyncio.gather(*(load.add(t) for t in batch))
            await asyncio.sleep(sizes.warm_s)
            say(f"{target.kind}: {wanted} tables at play, measuring {sizes.window_s:g} s")
            servers, postgres = accounts.read()
            cpu, start = time.process_time(), time.perf_counter()
            await asyncio.sleep(sizes.window_s)
            end, cpu = time.perf_counter(), time.process_time() - cpu
            servers_after, postgres_after = accounts.read()
            await asyncio.sleep(2.0)  # the last answers' events arrive (or count as unseen)
            step = load.measure((start, end - sizes.pace_s / 10), wanted)
            step.stopped = load.stopped()
            elapsed = end - start
            pg = _spent(postgres, postgres_after) / elapsed
            step.server_cores = _spent(servers, servers_after) / elapsed + pg
            step.postgres_cores, step.generator_cores = pg, cpu / elapsed
            step.seconds = elapsed
            step.commit_probe_ms = probe.within(start, end)
            steps.append(step)
            say(json.dumps({"server": target.kind} | step.summary()))
            if (sizes.enforce and not step.within) or wanted >= sizes.most:
                return steps
            wanted = min(sizes.most, max(wanted + 1, int(wanted * sizes.growth)))
    finally:
        await load.stop()


def limit_of(steps: list[Step], *, enforce: bool = True) -> Step | None:
    """The last step within both limits (None: even the first crossed one)."""
    within = [s for s in steps if s.within or not enforce]
    return within[-1] if within else None


# ---- the servers --------------------------------------------------------------------------


def senki_command(port: int, workers: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "infra.cli.main",
        "serve",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]


def bare_command(port: int, workers: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "bench.bare_live:app",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
    ]


def run_all(sizes: Sizes, worker_counts: list[int]) -> dict[str, list[Step]]:
    found: dict[str, list[Step]] = {}
    with (
        server() as superuser,
        fresh_database(superuser) as (senki_owner, senki_service),
        fresh_database(superuser) as (bare_owner, _),
    ):
        senki_tables: list[Table] = []
        bare_tables: list[Table] = []
        for workers in worker_counts:
            for kind in ("senki", "bare"):
                port = free_port()
                base = f"http://127.0.0.1:{port}"
                if kind == "senki":
                    args, ready = senki_command(port, workers), f"{base}/readyz"
                    env = {
                        "SENKI_DATABASE_URL": senki_service,
                        "SENKI_MIGRATION_DATABASE_URL": senki_owner,
                        "SENKI_DICE_MASTER_KEY": KEY,
                        "SENKI_LOG_LEVEL": "warning",
                        "SENKI_STREAMS_PER_PROCESS": "100000",
                    }
                    database = psycopg.conninfo.conninfo_to_dict(senki_owner)["dbname"]
                else:
                    args, ready = bare_command(port, workers), f"{base}/ready"
                    env = {"BARE_LIVE_DATABASE_URL": bare_owner}
                    database = psycopg.conninfo.conninfo_to_dict(bare_owner)["dbname"]
                with process(args, env, ready) as pid:
                    accounts = Accounts(pid, superuser, str(database))
                    target = Target(kind, base)
                    tables = senki_tables if kind == "senki" else bare_tables

                    async def make(target: Target = target, kind: str = kind) -> Table:
                        if kind == "bare":
                            return Table(uuid.uuid4().hex)
                        http = Connection(target.base, timeout=60)
                        try:
                            return await open_senki_table(http)
                        finally:
                            await http.close()

                    print(f"== {kind}, {workers} worker(s) on {base}", flush=True)
                    found[f"{kind}/{workers}"] = asyncio.run(
                        ramp(
                            target=target,
                            accounts=accounts,
                            sizes=sizes,
                            tables=tables,
                            make=make,
                            say=print,
                            probe_url=with_database(superuser, "postgres"),
                        )
                    )
    return found


def figures_of(
    found: dict[str, list[Step]], worker_counts: list[int], *, pace_s: float, enforce: bool = True
) -> list[Figure]:
    figures = []
    for workers in worker_counts:
        senki = limit_of(found[f"senki/{workers}"], enforce=enforce)
        bare = limit_of(found[f"bare/{workers}"], enforce=enforce)
        per_core = senki.tables_per_core(pace_s) if senki else 0.0
        bare_per_core = bare.tables_per_core(pace_s) if bare else 0.0
        figures += [
            Figure(
                f"live tables per server core, {workers} worker(s)",
                per_core,
                "tables/core",
                "bare INSERT + NOTIFY server",
                bare_per_core,
                "≥ 0.25×",
            ),
            Figure(
                f"live tables within the limits, {workers} worker(s)",
                float(senki.tables if senki else 0),
                "tables",
                "bare server",
                float(bare.tables if bare else 0),
                "(report)",
            ),
            Figure(
                f"server CPU per command, {workers} worker(s)",
                _cpu_ms(found[f"senki/{workers}"]),
                "ms",
                "bare server",
                _cpu_ms(found[f"bare/{workers}"]),
                "(report: the last step's, PostgreSQL's included)",
            ),
            Figure(
                f"live tables per server core (absolute), {workers} worker(s)",
                per_core,
                "tables/core",
                "the issue's aim",
                1000.0,
                "≥ 1×",
            ),
        ]
    return figures


def _cpu_ms(steps: list[Step]) -> float:
    """Server CPU a command at the busiest step: what a table costs wherever the limit was."""
    last = steps[-1]
    return last.server_cores * last.seconds / max(1, last.commands) * 1000


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--window", type=float, default=30.0, help="seconds measured a step")
    options.add_argument("--start", type=int, default=25, help="tables at the first step")
    options.add_argument("--most", type=int, default=4000, help="tables at most")
    options.add_argument("--growth", type=float, default=1.5, help="T × this each step")
    options.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    options.add_argument(
        "--ignore-limits",
        action="store_true",
        help="ramp to --most whatever the latencies (the CPU a table costs, on a machine too "
        "busy for the latency limits to say anything about the server)",
    )
    options.add_argument(
        "--viewers",
        type=int,
        choices=range(len(VIEWERS) + 1),
        default=len(VIEWERS),
        help="viewers on each table's live stream (0: the commands' cost alone)",
    )
    args = options.parse_args()
    if args.quick:  # a smoke run: two tiny steps at a fast pace
        sizes = Sizes(2, 3, 1.5, warm_s=1.0, window_s=4.0, pace_s=0.25, enforce=False)
    else:
        sizes = Sizes(
            args.start,
            args.most,
            args.growth,
            PACE_S,
            args.window,
            PACE_S,
            enforce=not args.ignore_limits,
            viewers=args.viewers,
        )
    worker_counts = [int(w) for w in args.workers.split(",")]
    found = run_all(sizes, worker_counts)
    figures = figures_of(found, worker_counts, pace_s=sizes.pace_s, enforce=sizes.enforce)
    report("table_load", "Live tables (issue 34 §4)", figures)
    write_figures(args.json, figures)
    print(json.dumps({k: [s.summary() for s in steps] for k, steps in found.items()}))


if __name__ == "__main__":
    main()
