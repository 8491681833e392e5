"""What the salt (schema 13, issue 37) costs an append: the `chain_link` trigger with the salt
against schema 12's without it, on the same database, in alternating turns.

Rows (`--rows N`): N events inserted in one statement per turn (the trigger's own cost a row,
with nothing else around it). Appends (`--appends SECONDS`): encounter commands flat out, as
`bench.witness --appends` runs them. Embedded PostgreSQL, or SENKI_BENCH_DATABASE_URL.
Run: `python -m bench.chain_salt [--rows 20000] [--rounds 15] [--appends 3]`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import psycopg

from infra.store.names import ShardTables
from tests.support.chain_v12 import schema_12_chain_link

STATE = b'{"combatant_id":"grunt","sheet":{"hp":321,"name":"grunt","side":"enemy"}}'


def _in_turns(owner: str, rounds: int, turn: Callable[[], float]) -> dict[str, list[float]]:
    """`turn` timed with each trigger in alternating order, `rounds` times each."""
    shard = ShardTables(0)
    with psycopg.connect(owner, autocommit=True) as conn:
        found = conn.execute(
            "SELECT pg_get_functiondef(%s::regproc)", (f"senki.{shard.events}_chain_link",)
        ).fetchone()
        assert found is not None
        triggers = {"salted": str(found[0]), "unsalted": schema_12_chain_link(shard)}
        times: dict[str, list[float]] = {"salted": [], "unsalted": []}
        for index in range(rounds):
            order = ("salted", "unsalted") if index % 2 == 0 else ("unsalted", "salted")
            for kind in order:
                conn.execute(triggers[kind])  # type: ignore[call-overload]
                times[kind].append(turn())
        conn.execute(triggers["salted"])  # type: ignore[call-overload]
    return times


def rows(count: int, rounds: int) -> None:
    from bench.common import fresh_database, server

    with server() as superuser, fresh_database(superuser) as (owner, service):

        def turn() -> float:
            with psycopg.connect(service, autocommit=True) as conn:
                start = time.perf_counter()
                conn.execute(
                    "INSERT INTO senki.events_0 (originator_id, originator_version, topic, state) "
                    "SELECT gen_random_uuid(), 1, 'CombatantJoined.v1', %s "
                    "FROM generate_series(1, %s)",
                    (STATE, count),
                )
                return (time.perf_counter() - start) / count * 1e6

        times = _in_turns(owner, rounds, turn)
    salted, unsalted = (statistics.median(times[k]) for k in ("salted", "unsalted"))
    print(
        f"trigger, {count} rows a turn, {rounds} turns each: salted {salted:.1f} µs a row, "
        f"unsalted {unsalted:.1f} µs (median); +{salted - unsalted:.1f} µs, "
        f"ratio {salted / unsalted:.2f}"
    )


def appends(seconds: float, rounds: int) -> None:
    from bench.common import fresh_runtime, server
    from bench.encounter import one_turn, open_fight

    with server() as superuser, fresh_runtime(superuser) as runtime:
        owner = runtime.settings.migration_database_url
        assert owner is not None
        fight = open_fight(runtime)

        def turn() -> float:
            before, started = one_turn(runtime, fight), time.perf_counter()
            after = before
            while time.perf_counter() - started < seconds:
                after = one_turn(runtime, fight)
            return (after - before) / (time.perf_counter() - started)

        turn()  # warm-up
        times = _in_turns(owner.get_secret_value(), rounds, turn)
    salted, unsalted = (statistics.median(times[k]) for k in ("salted", "unsalted"))
    print(
        f"encounter commands, {rounds} turns of {seconds:g} s each: salted {salted:.0f} "
        f"events/s, unsalted {unsalted:.0f} events/s (median); ratio {salted / unsalted:.2f}"
    )
    print("  each turn:", {k: [round(v) for v in t] for k, t in times.items()})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--appends", type=float, default=0.0, help="seconds per turn")
    args = parser.parse_args()
    rows(args.rows, args.rounds)
    if args.appends:
        appends(args.appends, max(3, args.rounds // 3))


if __name__ == "__main__":
    main()
