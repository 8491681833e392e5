"""A load generator run in its own process: N concurrent clients for D seconds against a URL.

`python -m bench.load read URL --token T --clients 32 --seconds 10` prints one JSON line:
requests/s, p50 and p99 latency in ms, and the count of non-2xx answers. `command` mode drives
one encounter per client (its ids come from a file): POST the next command with If-Match (timed),
chosen from the previous answer's `awaiting`, as a table tool does; a GET only to start. It
also reports its own CPU over the measured window (`generator_cores`, `generator_ms` a
request). Each client is one keep-alive connection of bench/lean_http.py, which says why not
httpx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.lean_http import Connection
from infra.demo.gd import next_move


@dataclass
class Tally:
    """Latencies of the measured requests and the statuses of the failed ones."""

    latencies: list[float] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)


async def _reader(http: Connection, path: str, *, stop: float, tally: Tally) -> None:
    while time.perf_counter() < stop:
        start = time.perf_counter()
        answer = await http.get(path)
        tally.latencies.append(time.perf_counter() - start)
        if answer.status >= 300:
            tally.failures.append(answer.status)


async def _commander(http: Connection, fight: dict[str, str], *, stop: float, tally: Tally) -> None:
    """One table tool on its own encounter: send the next command (timed) with If-Match, and
    choose the one after from its answer, which carries the version and what is awaited
    (issue 19), as a table tool does; the encounter is read only at the start and after a
    refusal."""
    headers = {"Authorization": f"Bearer {fight['token']}"}
    path = f"/v1/encounters/{fight['id']}"
    state = (await http.get(path, headers=headers)).json()
    sides = {c["combatant_id"]: c["side"] for c in state["combatants"]}
    version, move = state["version"], next_move(state)
    while move is not None and time.perf_counter() < stop:
        key = str(uuid.uuid4())
        sent = headers | {"If-Match": f'"{version}"', "Idempotency-Key": key}
        start = time.perf_counter()
        answer = await http.post(f"{path}/commands", move[0], headers=sent)
        tally.latencies.append(time.perf_counter() - start)
        if answer.status >= 300:
            tally.failures.append(answer.status)
            state = (await http.get(path, headers=headers)).json()
            version, move = state["version"], next_move(state)
            continue
        answered = answer.json()
        version, move = answered["version"], _next_from(answered["awaiting"]["commands"], sides)


def _next_from(
    awaited: list[dict[str, Any]], sides: dict[str, str]
) -> tuple[dict[str, Any], str] | None:
    """The bench fight's next command from what a command's answer says is awaited: its two
    combatants never fall (huge HP), so the target is always the other side's."""
    names = {a["command"]: a for a in awaited}
    if "RollInitiative" in names:
        return {"command": "RollInitiative"}, "gm"
    for command in ("Dodge", "Cleanup"):
        if command in names and names[command]["combatant"]:
            return {"command": command, "combatant_id": names[command]["combatant"]}, "gm"
    if "DeclareAttack" in names and names["DeclareAttack"]["combatant"]:
        acting = names["DeclareAttack"]["combatant"]
        target = next(c for c, side in sides.items() if side != sides[acting])
        return {"command": "DeclareAttack", "combatant_id": acting, "target": target}, "gm"
    return None


@dataclass(frozen=True)
class Load:
    mode: str
    url: str
    clients: int
    seconds: float
    token: str | None = None
    fights: list[dict[str, str]] = field(default_factory=list)


async def run(load: Load) -> dict[str, float]:
    tally = Tally()
    parts = urlsplit(load.url)
    base = f"{parts.scheme}://{parts.netloc}"
    headers = {"Authorization": f"Bearer {load.token}"} if load.token else {}
    clients = [Connection(base, headers) for _ in range(load.clients)]
    stop = time.perf_counter() + load.seconds
    if load.mode == "read":
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        tasks = [_reader(http, path, stop=stop, tally=tally) for http in clients]
    else:
        tasks = [
            _commander(http, load.fights[i % len(load.fights)], stop=stop, tally=tally)
            for i, http in enumerate(clients)
        ]
    started, cpu = time.perf_counter(), time.process_time()
    try:
        await asyncio.gather(*tasks)
    finally:
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        for http in clients:
            await http.close()
    ordered = sorted(tally.latencies)
    return {
        "requests": len(ordered),
        "per_second": len(ordered) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000 if ordered else float("nan"),
        "p99_ms": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000 if ordered else float("nan"),
        "failures": len(tally.failures),
        # The generator's own CPU over the same window: at about one core (its GIL), the
        # generator, not the server, is what caps the rate.
        "generator_cores": cpu / elapsed,
        "generator_ms": cpu / len(ordered) * 1000 if ordered else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["read", "command"])
    parser.add_argument("url")
    parser.add_argument("--token")
    parser.add_argument("--fights", help="JSON file of encounters for command mode")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    fights = json.loads(Path(args.fights).read_text()) if args.fights else []
    result = asyncio.run(
        run(Load(args.mode, args.url, args.clients, args.seconds, args.token, fights))
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
