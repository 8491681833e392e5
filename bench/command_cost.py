"""Issue 16's cost figures: the CPU one encounter command costs, beside what it is built on.

Run: `python -m bench.command_cost [--commands 3000] [--json PATH] [--quick]` (embedded
PostgreSQL, or SENKI_BENCH_DATABASE_URL set to a superuser URL of an external server).

1. In one process: CPU per encounter command (the TURN cycle of bench/write_workers.py on one
   encounter, through the application service, as the API calls it) ÷ CPU per raw one-row
   INSERT transaction from the same process. CPU is `time.process_time()`: every thread of
   this process (the pool's included), not the server's; its garbage collector tuned as the
   service's. Aim ≤ 4×.
2. Over HTTP: the `senki serve` process's CPU per encounter command (one client, commands one
   after the other, each with its If-Match) ÷ a bare FastAPI process's CPU per request of a
   constant, both read from /proc through psutil. Aim ≤ 3×. (The throughput under 32 clients
   is `bench.api`'s "encounter commands" row.)

Each figure and its reference take turns in `--rounds` short runs, and each is the median of
its rounds: on this two-core machine one run of the reference alone has varied by 70 % (a raw
INSERT at 0.050 ms in one run, 0.089 ms in the next), which a single back-to-back pair turned
straight into the ratio. The rounds are printed, so the spread is seen.
"""

from __future__ import annotations

import itertools
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import psycopg

from bench.api import call, free_port, process, server_cpu
from bench.common import KEY, Figure, fresh_database, fresh_runtime, report, server
from bench.encounter import GM, open_fight, sheet
from bench.options import parser, write_figures
from bench.write_workers import RAW_BODY, TURN
from infra import gc_tuning

COMMANDS = 3000
ROUNDS = 5
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


Rounds = list[tuple[float, float]]  # (figure, reference) of each round


def in_turns(
    figure: Callable[[int], float], reference: Callable[[int], float], count: int, rounds: int
) -> tuple[float, float, Rounds]:
    """(median figure, median reference, every round): each measured over count/rounds calls
    per round, taking turns, so that whatever else loads the machine weighs on both alike."""
    each = max(10, count // rounds)
    taken = [(figure(each), reference(each)) for _ in range(rounds)]
    return (
        statistics.median(f for f, _ in taken),
        statistics.median(r for _, r in taken),
        taken,
    )


def in_process(superuser: str, count: int, rounds: int) -> tuple[float, float, Rounds]:
    """(CPU per command, CPU per raw INSERT transaction, the rounds), both in this process,
    with the collector tuned as `senki serve` tunes its own (infra/gc_tuning.py)."""
    gc_tuning.tune()
    with (
        fresh_runtime(superuser) as runtime,
        fresh_database(superuser) as (owner, _),
        psycopg.connect(owner, autocommit=True) as raw,
    ):
        fight = open_fight(runtime)
        moves = itertools.cycle(TURN)

        def command() -> object:
            name, body = next(moves)
            return runtime.encounters.command(fight, GM, name, body)

        raw.execute(f"CREATE TABLE {RAW_TABLE} (id bigserial PRIMARY KEY, stream uuid, body bytea)")
        insert = f"INSERT INTO {RAW_TABLE} (stream, body) VALUES (%s, %s)"
        return in_turns(
            lambda n: cpu_per_call(command, n),
            lambda n: cpu_per_call(lambda: raw.execute(insert, (uuid.uuid4(), RAW_BODY)), n),
            count,
            rounds,
        )


def server_cost(pid: int, action: Callable[[], object], count: int) -> float:
    for _ in range(max(10, count // 10)):
        action()
    started = server_cpu(pid)
    for _ in range(count):
        action()
    return (server_cpu(pid) - started) / count


def over_http(superuser: str, count: int, rounds: int) -> tuple[float, float, Rounds]:
    """(server CPU per command, bare server CPU per request, the rounds)."""
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
            command = http_fight(http)
            return in_turns(
                lambda n: server_cost(senki_pid, command, n),
                lambda n: server_cost(bare_pid, lambda: constant.get("/constant"), n),
                count,
                rounds,
            )


def http_fight(http: httpx.Client) -> Callable[[], object]:
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
    options.add_argument("--rounds", type=int, default=ROUNDS, help="turns per figure")
    args = options.parse_args()
    count, rounds = (200, 2) if args.quick else (args.commands, args.rounds)
    with server() as superuser:
        per_command, per_insert, local = in_process(superuser, count, rounds)
        per_http, per_bare, remote = over_http(superuser, count, rounds)
    ms = 1000
    for name, taken in (("in process", local), ("over HTTP", remote)):
        turns = ", ".join(f"{f * ms:.3f}/{r * ms:.3f}" for f, r in taken)
        print(f"{name}, ms per command / per reference call, round by round: {turns}")
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
    title = f"CPU per encounter command ({count} commands each, medians of {rounds} rounds)"
    report("command-cost", title, figures)
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
