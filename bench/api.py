"""Issue 5's speed figures: sheet reads and encounter commands under 32 concurrent clients.

Three processes on loopback: `senki serve` on a fresh database, a bare FastAPI endpoint that
returns a constant (the reference), and the load generator (bench/load.py). Run:
`python -m bench.api [--seconds 10] [--rounds 4] [--json PATH] [--quick]` (embedded
PostgreSQL, or SENKI_BENCH_DATABASE_URL). With wrk installed, reads and the bare endpoint take
turns (`--rounds` runs each, 2×`--seconds` in all per side), so that the load of others on a
shared machine weighs on both alike.
Aims: sheet reads ≥ 0.5× the bare rate with p99 within 2× of its p99; command p99 within 5×.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import psutil

from bench.common import KEY, Figure, fresh_database, report, server
from bench.encounter import HUGE_HP
from bench.options import parser, write_figures

CLIENTS, SECONDS, ROUNDS = 32, 10.0, 4


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def process(args: list[str], env: dict[str, str], ready: str) -> Iterator[int]:
    """A server process, up and answering `ready`; yields its pid. What it writes to stderr
    goes to a file (a pipe nobody reads would stall a server that logs much), whose last lines
    are printed at the end if there are any: an error a benchmark met is shown, not lost."""
    with tempfile.NamedTemporaryFile(prefix="senki-bench-", suffix=".log", delete=False) as errors:
        child = subprocess.Popen(
            args, env=os.environ | env, stdout=subprocess.DEVNULL, stderr=errors
        )
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    if httpx.get(ready, timeout=1).status_code < 500:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            else:
                raise RuntimeError(f"{args} did not come up: see {errors.name}")
            yield child.pid
        finally:
            child.terminate()
            child.wait(timeout=30)
            _show_errors(errors.name)


def _show_errors(path: str) -> None:
    """The tail of a server's stderr, if it wrote any (its file kept for the whole of it)."""
    with open(path, encoding="utf-8", errors="replace") as written:
        lines = written.read().splitlines()
    if not lines:
        os.unlink(path)
        return
    print(f"the server wrote {len(lines)} lines to stderr ({path}); the last of them:")
    print("\n".join(lines[-40:]))


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


def load(
    mode: str, url: str, seconds: float, server: int | None = None, **options: str
) -> dict[str, float]:
    """bench/load.py's figures; with `server` (a pid), also that server's CPU over the run:
    `server_cores` and `server_ms` a request."""
    before = server_cpu(server) if server is not None else 0.0
    started = time.perf_counter()
    args = [
        sys.executable,
        "-m",
        "bench.load",
        mode,
        url,
        "--clients",
        str(CLIENTS),
        "--seconds",
        str(seconds),
    ]
    for name, value in options.items():
        args += [f"--{name}", value]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    if server is not None:
        spent = server_cpu(server) - before  # also while the generator started: idle then
        result["server_cores"] = spent / (time.perf_counter() - started)
        result["server_ms"] = spent / max(1, int(result["requests"])) * 1000
    return result


def accounting(name: str, figures: dict[str, float], server: str) -> str:
    """Where the CPU of one load run went, the generator's and the server's."""
    rate, generator = figures["per_second"], figures["generator_cores"]
    return (
        f"{name}: {rate:,.0f}/s; the load generator {generator:.2f} cores "
        f"({figures['generator_ms']:.2f} ms CPU a request), {server} "
        f"{figures['server_cores']:.2f} cores ({figures['server_ms']:.2f} ms a request)"
    )


def wrk(url: str, token: str | None = None, *, seconds: float) -> dict[str, float] | None:
    """The same read load from wrk (C, Debian's package) when it is installed: cheaper still
    than bench/load.py's Python clients, so it leaves the servers more of the two cores."""
    if shutil.which("wrk") is None:
        return None
    args = ["wrk", "-t2", f"-c{CLIENTS}", f"-d{max(1, round(seconds))}s", "--latency", url]
    if token:
        args[1:1] = ["-H", f"Authorization: Bearer {token}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    return {"per_second": rate, "p50_ms": _percentile(out, "50"), "p99_ms": _percentile(out, "99")}


def _percentile(out: str, which: str) -> float:
    found = re.search(rf"\s{which}%\s+([\d.]+)(us|ms|s)", out)
    assert found is not None, out
    value, unit = float(found.group(1)), found.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def call(
    http: httpx.Client, method: str, path: str, token: str | None = None, **kwargs: Any
) -> Any:
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = http.request(method, path, headers=headers | kwargs.pop("headers", {}), **kwargs)
    answer.raise_for_status()
    return answer.json()


def sheet(x: int) -> dict[str, Any]:
    stats = {
        "phys_atk": 100,
        "phys_def": 30,
        "perc_atk": 80,
        "perc_def": 40,
        "evasion": 40,
        "melee_hit": 50,
        "ranged_hit": 60,
        "move": 5,
        "hp": HUGE_HP,
        "reaction": 5 + x,
        "resistance": 5,
    }
    rifle = {
        "name": "rifle",
        "attack_type": "physical",
        "reach": "ranged",
        "range": 8,
        "attack": 20,
    }
    return {
        "stats": stats,
        "weapons": [rifle],
        "main_weapon": "rifle",
        "position": {"x": x, "y": 0},
    }


def set_up(base: str) -> tuple[str, str, list[dict[str, str]]]:
    """A campaign, its GM token, the read path, and one fight per client."""
    with httpx.Client(base_url=base, timeout=30) as http:
        opened = call(http, "POST", "/v1/campaigns", json={"name": "bench", "gm_member_id": "gm"})
        token, campaign = opened["token"], opened["id"]
        fights = []
        for _ in range(CLIENTS):
            fight = call(
                http,
                "POST",
                f"/v1/campaigns/{campaign}/encounters",
                token,
                json={"battle_map": {"width": 10, "height": 4}},
            )["id"]
            for name, side, x in (("a", "pc", 0), ("b", "enemy", 3)):
                version = call(http, "GET", f"/v1/encounters/{fight}", token)["version"]
                call(
                    http,
                    "POST",
                    f"/v1/encounters/{fight}/commands",
                    token,
                    headers={"If-Match": f'"{version}"'},
                    json={
                        "command": "JoinCombatant",
                        "combatant_id": name,
                        "name": name,
                        "side": side,
                        "controller": "gm",
                        "sheet": sheet(x),
                    },
                )
            fights.append({"id": fight, "token": token, "a": "a", "b": "b"})
        paths = http.get("/openapi.json").json()["paths"]
    read = f"/v1/campaigns/{campaign}"
    if "/v1/characters/{character_id}/sheet" in paths:
        read = _a_sheet(base, token, campaign)
    return token, read, fights


def _a_sheet(base: str, token: str, campaign: str) -> str:
    with httpx.Client(base_url=base, timeout=30) as http:
        stats = dict.fromkeys(
            (
                "phys_atk",
                "phys_def",
                "perc_atk",
                "perc_def",
                "evasion",
                "melee_hit",
                "ranged_hit",
                "move",
                "reaction",
                "piloting",
                "resistance",
                "capacity",
            ),
            50,
        ) | {"hp": 80}
        made = call(
            http,
            "POST",
            f"/v1/campaigns/{campaign}/characters",
            token,
            json={"owner": "gm", "name": "蒼", "level": 1, "base_stats": stats},
        )
    return f"/v1/characters/{made['id']}/sheet"


Turn = tuple[str, dict[str, float]]  # ("bare" or "reads", wrk's figures for one short run)


def interleaved(
    bare: str, reads: str, token: str, rounds: int, seconds: float
) -> tuple[dict[str, float], dict[str, float], list[Turn]]:
    """wrk on the bare endpoint and on the reads, taking turns in `rounds` short runs: on a
    shared machine the load of others then weighs on both sides alike. Rates are means over
    the rounds; p50/p99 are the medians of the rounds' (wrk reports no raw latencies)."""
    turns: list[Turn] = []
    for _ in range(rounds):
        for side, url, key in (("bare", bare, None), ("reads", reads, token)):
            found = wrk(url, key, seconds=seconds / rounds)
            assert found is not None
            turns.append((side, found))
    return _summary(turns, "bare"), _summary(turns, "reads"), turns


def _summary(turns: list[Turn], side: str) -> dict[str, float]:
    mine = [figures for name, figures in turns if name == side]
    return {
        "per_second": statistics.fmean(t["per_second"] for t in mine),
        "p50_ms": statistics.median(t["p50_ms"] for t in mine),
        "p99_ms": statistics.median(t["p99_ms"] for t in mine),
    }


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--seconds", type=float, default=SECONDS, help="load per measurement")
    options.add_argument("--rounds", type=int, default=ROUNDS, help="wrk turns per side")
    args = options.parse_args()
    seconds = 3.0 if args.quick else args.seconds
    bare_port, senki_port = free_port(), free_port()
    with server() as superuser, fresh_database(superuser) as (_, service):
        env = {
            "SENKI_DATABASE_URL": service,
            "SENKI_DICE_MASTER_KEY": KEY,
            "SENKI_LOG_LEVEL": "warning",
        }
        senki = f"http://127.0.0.1:{senki_port}"
        bare = f"http://127.0.0.1:{bare_port}"
        senki_cmd = [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(senki_port)]
        bare_cmd = [
            sys.executable,
            "-m",
            "uvicorn",
            "bench.bare:app",
            "--port",
            str(bare_port),
            "--log-level",
            "warning",
        ]
        with (
            process(senki_cmd, env, f"{senki}/readyz") as senki_pid,
            process(bare_cmd, {}, f"{bare}/constant") as bare_pid,
        ):
            token, read, fights = set_up(senki)
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
                json.dump(fights, file)
            # Commands are compared with the bare endpoint under the same (Python) generator;
            # reads, when wrk is installed, under wrk on both sides, taking turns.
            same_generator = load("read", f"{bare}/constant", seconds, bare_pid)
            commands = load("command", senki, seconds, senki_pid, fights=file.name)
            turns: list[Turn] = []
            if shutil.which("wrk") is not None:
                reference, reads, turns = interleaved(
                    f"{bare}/constant", f"{senki}{read}", token, args.rounds, seconds * 2
                )
            else:
                reference = same_generator
                reads = load("read", f"{senki}{read}", seconds, token=token)
    what = "sheet" if read.endswith("/sheet") else "campaign"
    figures = [
        Figure(
            f"{what} reads",
            reads["per_second"],
            "req/s",
            "bare FastAPI constant",
            reference["per_second"],
            "≥ 0.5×",
        ),
        Figure(f"{what} read p99", reads["p99_ms"], "ms", "bare p99", reference["p99_ms"], "≤ 2×"),
        Figure(
            "encounter command p99",
            commands["p99_ms"],
            "ms",
            "bare p99, same generator",
            same_generator["p99_ms"],
            "≤ 5×",
        ),
        Figure(
            "encounter commands",
            commands["per_second"],
            "cmd/s",
            "bare FastAPI constant, same generator",
            same_generator["per_second"],
            "(report)",
        ),
    ]
    report("api", f"API under {CLIENTS} concurrent clients", figures)
    # Where each run's CPU went: with the generator well under a core, each server (one
    # process, at about one core under this load) is what set its rate.
    print(accounting("bare endpoint, same generator", same_generator, "the bare server"))
    print(accounting("encounter commands", commands, "senki serve"))
    write_figures(args.json, figures)
    print(
        json.dumps(
            {
                "reference": reference,
                "reads": reads,
                "commands": commands,
                "python_reference": same_generator,
                "turns": [{"side": side} | figures for side, figures in turns],
            }
        )
    )


if __name__ == "__main__":
    main()
