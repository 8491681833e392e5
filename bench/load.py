"""A load generator run in its own process: N concurrent clients for D seconds against a URL.

`python -m bench.load read URL --token T --clients 32 --seconds 10` prints one JSON line:
requests/s, p50 and p99 latency in ms, and the count of non-2xx answers. `command` mode drives
one encounter per client (its ids come from a file): GET what it awaits, POST that command with
If-Match (only the POST is timed), as a table tool would.
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

import httpx

from infra.demo.gd import next_move


@dataclass
class Tally:
    """Latencies of the measured requests and the statuses of the failed ones."""

    latencies: list[float] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)


async def _reader(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], *, stop: float, tally: Tally
) -> None:
    while time.perf_counter() < stop:
        start = time.perf_counter()
        answer = await http.get(url, headers=headers)
        tally.latencies.append(time.perf_counter() - start)
        if answer.status_code >= 300:
            tally.failures.append(answer.status_code)


async def _commander(
    http: httpx.AsyncClient, base: str, fight: dict[str, str], *, stop: float, tally: Tally
) -> None:
    """One table tool on its own encounter: read what it awaits, send that (timed)."""
    headers = {"Authorization": f"Bearer {fight['token']}"}
    path = f"{base}/v1/encounters/{fight['id']}"
    while time.perf_counter() < stop:
        state = (await http.get(path, headers=headers)).json()
        move = next_move(state)
        if move is None:
            return
        key = str(uuid.uuid4())
        sent = headers | {"If-Match": f'"{state["version"]}"', "Idempotency-Key": key}
        start = time.perf_counter()
        answer = await http.post(f"{path}/commands", json=move[0], headers=sent)
        tally.latencies.append(time.perf_counter() - start)
        if answer.status_code >= 300:
            tally.failures.append(answer.status_code)


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
    limits = httpx.Limits(max_connections=load.clients, max_keepalive_connections=load.clients)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        stop = time.perf_counter() + load.seconds
        headers = {"Authorization": f"Bearer {load.token}"} if load.token else {}
        if load.mode == "read":
            tasks = [
                _reader(http, load.url, headers, stop=stop, tally=tally)
                for _ in range(load.clients)
            ]
        else:
            tasks = [
                _commander(
                    http, load.url, load.fights[i % len(load.fights)], stop=stop, tally=tally
                )
                for i in range(load.clients)
            ]
        started = time.perf_counter()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
    ordered = sorted(tally.latencies)
    return {
        "requests": len(ordered),
        "per_second": len(ordered) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000 if ordered else float("nan"),
        "p99_ms": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000 if ordered else float("nan"),
        "failures": len(tally.failures),
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
