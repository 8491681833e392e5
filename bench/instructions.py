"""Issue 16's cost figures in instructions: what `bench.command_cost` times, counted by callgrind.

Run: `python -m bench.instructions [--commands 200] [--json PATH] [--quick]` (embedded
PostgreSQL, or SENKI_BENCH_DATABASE_URL). Needs valgrind (`apt-get install valgrind`).

The CPU time of one command on a shared two-core virtual machine moves by half within minutes
(`bench.command_cost` prints its rounds: 0.78 to 1.67 ms for the same code), which is more
than most changes to the hot path save. The number of instructions a process executes does
not depend on the machine's mood, so before and after of a change are compared here:

1. In one process: instructions per encounter command (the TURN cycle of
   bench/write_workers.py through the application service, as the API calls it) ÷ per raw
   one-row INSERT transaction from a process of the same kind. Aim ≤ 4× (set for CPU time).
2. Over HTTP: `senki serve`'s instructions per encounter command (one client, commands one
   after the other, each with its If-Match and Idempotency-Key) ÷ a bare FastAPI process's
   per request of a constant. Aim ≤ 3× (set for CPU time).

Each process runs under `valgrind --tool=callgrind`, which counts every thread of it
(PostgreSQL's processes are not counted: the server is not run under valgrind). After a
warm-up, `callgrind_control --dump` zeroes the count; after the measured calls it dumps again,
and that second dump holds exactly what those calls executed (with whatever the process does
meanwhile on its own: a heartbeat, an idle event loop, the same for both sides of a ratio).
Instructions are not time: a command's instructions take more cycles each than a raw INSERT's
(docs/capacity.md says by how much), so these ratios are lower than the CPU-time ones.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
from pydantic import SecretStr

from bench.api import free_port
from bench.command_cost import http_fight
from bench.common import KEY, Figure, fresh_database, report, server
from bench.encounter import GM, open_fight
from bench.options import parser, write_figures
from bench.write_workers import RAW_BODY, TURN
from infra import bootstrap, gc_tuning
from infra.settings import Settings

COMMANDS, WARMUP = 200, 100
RAW_TABLE = "bench_instructions_raw"
STARTUP_S = 300  # a server under valgrind starts some 30 times slower


class NoValgrind(RuntimeError):
    """valgrind is not installed: nothing here can be counted."""


def valgrind() -> list[str]:
    """The command line that runs a program under callgrind, or NoValgrind saying what to do."""
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            raise NoValgrind(f"{tool} is not installed: `apt-get install valgrind`, then run again")
    return ["valgrind", "--tool=callgrind", "--dump-instr=no", "--trace-children=no"]


def counted_run(dumps: Path) -> int:
    """The instructions of the latest dump written in `dumps` (its `summary:` line)."""
    latest = max(dumps.glob("callgrind.out.*"), key=lambda p: p.stat().st_mtime_ns)
    found = re.search(r"^(?:summary|totals): (\d+)", latest.read_text(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"{latest} holds no instruction count")
    return int(found.group(1))


def dump(pid: int, dumps: Path) -> int:
    """Dump (and zero) the count of the process `pid`; the instructions since the last dump."""
    before = set(dumps.glob("callgrind.out.*"))
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True)
    deadline = time.monotonic() + 60
    while set(dumps.glob("callgrind.out.*")) == before:
        if time.monotonic() > deadline:
            raise RuntimeError(f"callgrind wrote no dump for process {pid}")
        time.sleep(0.1)
    time.sleep(0.5)  # written whole before it is read
    return counted_run(dumps)


# --- In one process: this module runs itself under valgrind, as `--child command|raw`.


def _child(mode: str, owner: str, service: str, count: int, warmup: int) -> None:
    """Warm up, dump, run `count` calls, dump: the second dump is what the calls cost."""
    gc_tuning.tune()  # the collector as `senki serve` tunes its own
    dumps, me = Path(os.environ["SENKI_CALLGRIND_DIR"]), os.getpid()
    with _calls(mode, owner, service) as call:
        for _ in range(warmup):
            call()
        dump(me, dumps)
        for _ in range(count):
            call()
        print(f"counted: {dump(me, dumps)}")  # read here: valgrind dumps once more at exit


@contextmanager
def _calls(mode: str, owner: str, service: str) -> Iterator[Callable[[], object]]:
    """The call to count, on the database the parent made (migrating it under valgrind would
    take minutes)."""
    if mode == "raw":
        with psycopg.connect(owner, autocommit=True) as db:
            table = f"CREATE TABLE {RAW_TABLE} (id bigserial PRIMARY KEY, stream uuid, body bytea)"
            db.execute(table)
            insert = f"INSERT INTO {RAW_TABLE} (stream, body) VALUES (%s, %s)"
            yield lambda: db.execute(insert, (uuid.uuid4(), RAW_BODY))
        return
    settings = Settings(
        database_url=SecretStr(service),
        migration_database_url=SecretStr(owner),
        dice_master_key=SecretStr(KEY),
        pool_size=16,  # as bench.command_cost's runtime
    )
    runtime = bootstrap.start(settings)
    try:
        fight = open_fight(runtime)
        moves = itertools.cycle(TURN)

        def command() -> object:
            name, body = next(moves)
            return runtime.encounters.command(fight, GM, name, body)

        yield command
    finally:
        runtime.close()


def in_process(mode: str, superuser: str, count: int, warmup: int) -> float:
    """Instructions per call of `mode` (command or raw) in a process of its own."""
    with (
        tempfile.TemporaryDirectory(prefix="senki-callgrind-") as kept,
        fresh_database(superuser) as (owner, service),
    ):
        dumps = Path(kept)
        args = [
            *valgrind(),
            f"--callgrind-out-file={dumps}/callgrind.out.%p",
            sys.executable,
            "-m",
            "bench.instructions",
            "--child",
            mode,
            "--commands",
            str(count),
            "--warmup",
            str(warmup),
        ]
        env = os.environ | {
            "SENKI_CALLGRIND_DIR": str(dumps),
            "SENKI_CALLGRIND_OWNER": owner,
            "SENKI_CALLGRIND_SERVICE": service,
            "PYTHONMALLOC": "malloc",  # what valgrind reads best; the same for every figure
        }
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
        counted = re.search(r"^counted: (\d+)$", done.stdout, re.MULTILINE)
        if done.returncode != 0 or counted is None:
            raise RuntimeError(f"the {mode} run failed:\n{done.stderr[-3000:]}")
        return int(counted.group(1)) / count


# --- Over HTTP: a server under valgrind, driven from this process.


@contextmanager
def _counted_server(args: list[str], env: dict[str, str], ready: str) -> Iterator[tuple[int, Path]]:
    """A server process under callgrind, up and answering `ready`: (pid, its dumps' folder)."""
    with tempfile.TemporaryDirectory(prefix="senki-callgrind-") as kept:
        dumps = Path(kept)
        command = [*valgrind(), f"--callgrind-out-file={dumps}/callgrind.out.%p", *args]
        said = dumps / "stderr.txt"  # a file, not a pipe nobody reads while it runs
        with said.open("wb") as stderr:
            child = subprocess.Popen(
                command,
                env=os.environ | env | {"PYTHONMALLOC": "malloc"},
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        try:
            _wait_ready(child, ready, said)
            yield child.pid, dumps
        finally:
            child.terminate()
            child.wait(timeout=120)


def _wait_ready(child: subprocess.Popen[bytes], ready: str, said: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            error = said.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the server exited ({child.returncode}):\n{error}")
        try:
            if httpx.get(ready, timeout=10).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(1)
    raise RuntimeError(f"no answer at {ready} after {STARTUP_S} s")


def per_request(
    pid: int, dumps: Path, step: Callable[[], object], count: int, warmup: int
) -> float:
    for _ in range(warmup):
        step()
    dump(pid, dumps)
    for _ in range(count):
        step()
    return dump(pid, dumps) / count


def over_http(superuser: str, count: int, warmup: int) -> tuple[float, float]:
    """(instructions per command of `senki serve`, per request of the bare server)."""
    with fresh_database(superuser) as (_, service):
        port = free_port()
        env = {
            "SENKI_DATABASE_URL": service,
            "SENKI_DICE_MASTER_KEY": KEY,
            "SENKI_LOG_LEVEL": "warning",
        }
        serve = [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(port)]
        url = f"http://127.0.0.1:{port}"
        with (
            _counted_server(serve, env, f"{url}/readyz") as (pid, dumps),
            httpx.Client(base_url=url, timeout=120) as http,
        ):
            command = per_request(pid, dumps, http_fight(http), count, warmup)
    port = free_port()
    bare = [sys.executable, "-m", "uvicorn", "bench.bare:app", "--port", str(port)]
    url = f"http://127.0.0.1:{port}"
    with (
        _counted_server(bare, {}, f"{url}/constant") as (pid, dumps),
        httpx.Client(base_url=url, timeout=120) as http,
    ):
        constant = per_request(pid, dumps, lambda: _constant(http), count, warmup)
    return command, constant


def _constant(http: httpx.Client) -> None:
    http.get("/constant").raise_for_status()


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--commands", type=int, default=COMMANDS, help="counted calls per figure")
    options.add_argument("--warmup", type=int, default=WARMUP, help="calls before counting")
    options.add_argument("--child", choices=("command", "raw"), help=argparse.SUPPRESS)
    args = options.parse_args()
    count, warmup = (30, 20) if args.quick else (args.commands, args.warmup)
    if args.child:
        owner, service = os.environ["SENKI_CALLGRIND_OWNER"], os.environ["SENKI_CALLGRIND_SERVICE"]
        _child(args.child, owner, service, args.commands, args.warmup)
        return
    try:
        valgrind()
    except NoValgrind as missing:
        sys.exit(str(missing))
    with server() as superuser:
        command = in_process("command", superuser, count, warmup)
        raw = in_process("raw", superuser, count, warmup)
        http_command, bare = over_http(superuser, count, warmup)
    million = 1e6
    figures = [
        Figure(
            "instructions per command in process",
            command / million,
            "M",
            "per raw one-row INSERT transaction",
            raw / million,
            "≤ 4× (set for CPU time)",
        ),
        Figure(
            "server instructions per command over HTTP",
            http_command / million,
            "M",
            "per bare FastAPI request",
            bare / million,
            "≤ 3× (set for CPU time)",
        ),
    ]
    title = f"Instructions per encounter command (callgrind, {count} after {warmup} each)"
    report("instructions", title, figures)
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
