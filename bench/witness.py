"""Issue 37's proof figures: inclusion and consistency proofs on a shard of 1,000,000 events.

The tree the service keeps (infra/store/merkle.py, infra/store/log_tree.py) is built from
1,000,000 chain hashes, then proofs of random leaves and sizes are timed, each checked.
Run: `python -m bench.witness [--events 1000000] [--proofs 2000]`. Aim: p99 ≤ 10 ms. (The
route adds one head query, about a millisecond, to what is timed here; appends are not
timed: the tree is not kept in their transaction.)
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import random
import time

from infra.store.merkle import Tree, verify_consistency, verify_inclusion


def _p99(samples: list[float]) -> float:
    return sorted(samples)[int(len(samples) * 0.99) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--proofs", type=int, default=2000)
    args = parser.parse_args()
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
