"""Issue 37's figures: proofs on a shard of 1,000,000 events, and appends beside a witness.

Proofs: the tree the service keeps (infra/store/merkle.py, infra/store/log_tree.py) is built
from 1,000,000 chain hashes, then proofs of random leaves and sizes are timed, each checked.
Aim: p99 ≤ 10 ms (the route adds one head query).
Appends (`--appends SECONDS`): encounter commands flat out on a fresh database (embedded, or
SENKI_BENCH_DATABASE_URL), in turns with and without a witness asking for a checkpoint five
times a second — so the log signs up to five a second, each after checking and extending its
tree. Aim: with ÷ without ≥ 0.95.
Answers (`--answers SECONDS`): encounter commands flat out, in turns with and without naming
each answer's leaves as the routes do (issue 37: a command's facts carry `log`).
Run: `python -m bench.witness [--events 1000000] [--proofs 2000] [--appends 3] [--answers 3]`.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import random
import statistics
import threading
import time

from infra.store.merkle import Tree, verify_consistency, verify_inclusion


def _p99(samples: list[float]) -> float:
    return sorted(samples)[int(len(samples) * 0.99) - 1]


def appends(seconds: float, rounds: int = 3) -> None:
    from bench.common import fresh_runtime, server
    from bench.encounter import one_turn, open_fight

    with server() as superuser, fresh_runtime(superuser) as runtime:
        fight = open_fight(runtime)
        tree = runtime.log_trees.tree(runtime.ledger.shard_of(fight))
        tree.checkpoint()  # built once, as the first witness of a process builds it

        def rate(witnessed: bool) -> float:
            done = threading.Event()

            def witness() -> None:
                while not done.wait(0.2):
                    begin = time.perf_counter()
                    tree.checkpoint()
                    signing.append(time.perf_counter() - begin)

            watcher = threading.Thread(target=witness, daemon=True)
            if witnessed:
                watcher.start()
            before, started = one_turn(runtime, fight), time.perf_counter()
            after = before
            while time.perf_counter() - started < seconds:
                after = one_turn(runtime, fight)
            elapsed = time.perf_counter() - started
            done.set()
            if witnessed:
                watcher.join()
            return (after - before) / elapsed

        signing: list[float] = []
        rate(False)  # warm-up
        without, with_ = [], []
        for _ in range(rounds):
            without.append(rate(False))
            with_.append(rate(True))
    plain, watched = statistics.median(without), statistics.median(with_)
    print(
        f"appends without a witness: {plain:.0f} events/s; with one asking 5×/s: "
        f"{watched:.0f} events/s; ratio {watched / plain:.2f}"
    )
    busy = sum(signing) / (seconds * rounds)
    print(
        f"{len(signing)} checkpoints, each signed after the log grew: median "
        f"{statistics.median(signing) * 1000:.1f} ms, p99 {_p99(signing) * 1000:.1f} ms; "
        f"{busy:.1%} of the witnessed time spent checking, extending and signing"
    )


def answers(seconds: float, rounds: int = 3) -> None:
    """Encounter commands flat out, in turns with and without naming each answer's leaves as
    the route does (api/leaves.py): the tree extended by the rows after its last leaf."""
    from bench.common import fresh_runtime, server
    from bench.encounter import GM, open_fight

    with server() as superuser, fresh_runtime(superuser) as runtime:
        fight = open_fight(runtime)
        shard = runtime.ledger.shard_of(fight)
        runtime.log_trees.tree(shard).checkpoint()  # built once, as a process's first read does
        lookups: list[float] = []

        def rate(named: bool) -> float:
            done, started = 0, time.perf_counter()
            while time.perf_counter() - started < seconds:
                runtime.encounters.command(fight, GM, "RollInitiative", {})
                done += 1
                for attacker, defender in (("ace", "brute"), ("brute", "ace")):
                    for command, body in (
                        ("Cleanup", {"combatant_id": attacker}),
                        ("DeclareAttack", {"combatant_id": attacker, "target": defender}),
                        ("Dodge", {"combatant_id": defender}),
                    ):
                        answer = runtime.encounters.command(fight, GM, command, body)
                        if named:
                            begin = time.perf_counter()
                            positions = [f.position for f in answer.facts if f.position]
                            found = runtime.log_trees.entries(shard, positions)
                            lookups.append(time.perf_counter() - begin)
                            assert len(found) == len(answer.facts)
                        done += 1
            return done / (time.perf_counter() - started)

        rate(False)  # warm-up
        plain, named = [], []
        for _ in range(rounds):
            plain.append(rate(False))
            named.append(rate(True))
    without, with_ = statistics.median(plain), statistics.median(named)
    print(
        f"commands without their leaves named: {without:.0f}/s; with: {with_:.0f}/s; "
        f"ratio {with_ / without:.2f}; the lookup: median "
        f"{statistics.median(lookups) * 1000:.2f} ms, p99 {_p99(lookups) * 1000:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--proofs", type=int, default=2000)
    parser.add_argument("--appends", type=float, default=0.0, help="seconds per turn")
    parser.add_argument("--answers", type=float, default=0.0, help="seconds per turn")
    args = parser.parse_args()
    if args.answers:
        answers(args.answers)
        return
    if args.appends:
        appends(args.appends)
        return
    links = [hashlib.sha256(i.to_bytes(8, "big")).digest() for i in range(args.events)]
    started = time.perf_counter()
    tree = Tree(links)
    built = time.perf_counter() - started
    gc.collect()
    gc.freeze()  # as `senki serve` does (infra/gc_tuning.py): long-lived objects left alone
    rng = random.Random(37)
    inclusion, consistency = [], []
    for _ in range(args.proofs):
        size = rng.randint(1, tree.size)
        index = rng.randrange(size)
        begin = time.perf_counter()
        proof = tree.inclusion(index, size)
        root = tree.root(size)
        inclusion.append(time.perf_counter() - begin)
        assert verify_inclusion(index, size, links[index], proof, root)
        first = rng.randint(1, size)
        begin = time.perf_counter()
        hashes = tree.consistency(first, size)
        old = tree.root(first)
        consistency.append(time.perf_counter() - begin)
        assert verify_consistency(first, size, old, root, hashes)
    print(f"tree of {tree.size:,} events built in {built:.1f} s")
    print(f"inclusion proof + root: p99 {_p99(inclusion) * 1000:.3f} ms")
    print(f"consistency proof + root: p99 {_p99(consistency) * 1000:.3f} ms")


if __name__ == "__main__":
    main()
