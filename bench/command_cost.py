"""Issue 16's cost figures: the CPU one encounter command costs, beside what it is built on.

Run: `python -m bench.command_cost [--commands 3000] [--json PATH] [--quick]` (embedded
PostgreSQL, or SENKI_BENCH_DATABASE_URL set to a superuser URL of an external server).

1. In one process: CPU per encounter command (the TURN cycle of bench/write_workers.py on one
   encounter, through the application service, as the API calls it) ÷ CPU per raw one-row
   INSERT transaction from the same process. CPU is `time.process_time()`: every thread of
   this process (the pool's included), not the server's. Aim ≤ 4×.
2. Over HTTP: the `senki serve` process's CPU per encounter command (one client, commands one
   after the other, each with its If-Match) ÷ a bare FastAPI process's CPU per request of a
   constant, both read from /proc through psutil. Aim ≤ 3×. (The throughput under 32 clients
   is `bench.api`'s "encounter commands" row.)
"""

from __future__ import annotations

import itertools
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import psutil
import psycopg

from bench.api import call, free_port, process
from bench.common import KEY, Figure, fresh_database, fresh_runtime, report, server
from bench.encounter import GM, open_fight, sheet
from bench.options import parser, write_figures
from bench.write_workers import RAW_BODY, TURN

COMMANDS = 3000
RAW_TABLE = "bench_command_cost_raw"
MAP = {"battle_map": {"width": 10, "height": 4}}


def cpu_per_call(action: Callable[[], object], count: int) -> float:
    """Mean CPU seconds of this process per call, after a warm-up of a tenth."""
    for _ in range(max(10, count // 10)):
        action()
    started = time.process_time()
    for _ in range(count):
        action()
    return (time.process_time() - started) / count


def in_process(superuser: str, count: int) -> tuple[float, float]:
    """(CPU per command, CPU per raw INSERT transaction), both in this process."""
    with fresh_runtime(superuser) as runtime:
        fight = open_fight(runtime)
        moves = itertools.cycle(TURN)

        def command() -> object:
            name, body = next(moves)
            return runtime.encounters.command(fight, GM, name, body)

        per_command = cpu_per_call(command, count)
    with fresh_database(superuser) as (owner, _), psycopg.connect(owner, autocommit=True) as raw:
        raw.execute(f"CREATE TABLE {RAW_TABLE} (id bigserial PRIMARY KEY, stream uuid, body bytea)")
        insert = f"INSERT INTO {RAW_TABLE} (stream, body) VALUES (%s, %s)"
        per_insert = cpu_per_call(lambda: raw.execute(insert, (uuid.uuid4(), RAW_BODY)), count)
    return per_command, per_insert


def server_cpu(pid: int) -> float:
    """CPU seconds of a server process and its children, PostgreSQL's excluded."""
    root = psutil.Process(pid)
    total = 0.0
    for each in [root, *root.children(recursive=True)]:
        if "postgres" in each.name():
            continue
        times = each.cpu_times()
        total += times.user + times.system
    return total


def server_cost(pid: int, action: Callable[[], object], count: int) -> float:
    for _ in range(max(10, count // 10)):
        action()
    started = server_cpu(pid)
    for _ in range(count):
        action()
    return (server_cpu(pid) - started) / count


def over_http(superuser: str, count: int) -> tuple[float, float]:
    """(server CPU per command, bare server CPU per request)."""
    senki_port, bare_port = free_port(), free_port()
    with fresh_database(superuser) as (_, service):
        env = {"SENKI_DATABASE_URL": service, "SENKI_DICE_MASTER_KEY": KEY}
        senki = f"http://127.0.0.1:{senki_port}"
        bare = f"http://127.0.0.1:{bare_port}"
        senki_cmd = [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(senki_port)]
        bare_cmd = [sys.executable, "-m", "uvicorn", "bench.bare:app", "--port", str(bare_port)]
        with (
            process(
                senki_cmd, env | {"SENKI_LOG_LEVEL": "warning"}, f"{senki}/readyz"
            ) as senki_pid,
            process(bare_cmd, {}, f"{bare}/constant") as bare_pid,
            httpx.Client(base_url=senki, timeout=30) as http,
            httpx.Client(base_url=bare, timeout=30) as constant,
        ):
            command = _http_fight(http)
            per_command = server_cost(senki_pid, command, count)
            per_bare = server_cost(bare_pid, lambda: constant.get("/constant"), count)
    return per_command, per_bare


def _http_fight(http: httpx.Client) -> Callable[[], object]:
    """A two-combatant fight over HTTP, and a step that sends its next TURN command."""
    opened = call(http, "POST", "/v1/campaigns", json={"name": "cost", "gm_member_id": "gm"})
    token = opened["token"]
    fight = call(http, "POST", f"/v1/campaigns/{opened['id']}/encounters", token, json=MAP)["id"]
    state: dict[str, Any] = {
        "version": call(http, "GET", f"/v1/encounters/{fight}", token)["version"]
    }

    def send(body: dict[str, Any]) -> None:
        answer = call(
            http,
            "POST",
            f"/v1/encounters/{fight}/commands",
            token,
            headers={"If-Match": f'"{state["version"]}"'},
            json=body,
        )
        state["version"] = answer["version"]

    # The fight bench.encounter and bench.writes play: ace always acts first, as TURN expects.
    for name, x, reaction in (("ace", 0, 10), ("brute", 3, 2)):
        body = {"combatant_id": name, "name": name, "side": name, "controller": "gm"}
        send({"command": "JoinCombatant", **body, "sheet": sheet(x, reaction)})
    moves = itertools.cycle(TURN)

    def step() -> None:
        name, body = next(moves)
        try:
            send({"command": name, **body})
        except httpx.HTTPStatusError as refused:
            raise RuntimeError(f"{name} {body}: {refused.response.text}") from None

    return step


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--commands", type=int, default=COMMANDS, help="commands per figure")
    args = options.parse_args()
    count = 200 if args.quick else args.commands
    with server() as superuser:
        per_command, per_insert = in_process(superuser, count)
        per_http, per_bare = over_http(superuser, count)
    ms = 1000
    figures = [
        Figure(
            "CPU per command in process",
            per_command * ms,
            "ms",
            "CPU per raw one-row INSERT transaction",
            per_insert * ms,
            "≤ 4×",
        ),
        Figure(
            "server CPU per command over HTTP",
            per_http * ms,
            "ms",
            "server CPU per bare FastAPI request",
            per_bare * ms,
            "≤ 3×",
        ),
    ]
    report("command-cost", f"CPU per encounter command ({count} commands each)", figures)
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
