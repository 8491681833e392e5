"""Rolls per second of the BCDice parser+evaluator beside a bare `random.randint` loop.

    .venv/bin/python -m bench.dice [--quick] [--command '2D6+3>=10']

A short look, not a timed test: the machine is shared, so figures move by tens of percent.
"""

from __future__ import annotations

import argparse
import random
import time

from domain.dice.bcdice import evaluate


class _Random:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def face(self, index: int, sides: int) -> int:
        return self.random.randint(1, sides)


def _rate(work: int, seconds: float) -> float:
    return work / seconds if seconds > 0 else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the rolls")
    parser.add_argument("--command", default="2D6+3>=10")
    args = parser.parse_args()
    rolls = 2_000 if args.quick else 20_000
    source = _Random(17)
    started = time.perf_counter()
    for _ in range(rolls):
        evaluate(args.command, source)
    ours = _rate(rolls, time.perf_counter() - started)
    bare = random.Random(17)
    started = time.perf_counter()
    for _ in range(rolls):
        total = bare.randint(1, 6) + bare.randint(1, 6) + 3
        _ = total >= 10
    baseline = _rate(rolls, time.perf_counter() - started)
    print(f"{args.command}: {ours:,.0f} rolls/s (parse + evaluate + text)")
    print(f"bare random.randint loop (2d6+3>=10): {baseline:,.0f} rolls/s ({baseline / ours:.0f}x)")


if __name__ == "__main__":
    main()
