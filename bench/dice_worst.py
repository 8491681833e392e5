"""The worst dice command of each construct: its time and memory to parse and evaluate.

    .venv/bin/python -m bench.dice_worst

Server dice (commit–reveal, as the roll logs draw them, each die computed) that always show
their highest face, so every reroll and upper chain runs to the dice limit. Time is the
thread's CPU time (the machine is shared: wall time measures the neighbours too) and wall
time; memory is tracemalloc's peak, in a second run. Each command is the largest its construct
accepts within the limits (domain/dice/bcdice/limits.py): 2,000 characters, 5,000 dice and
choice items, 100 repeats reading 10,000 characters. tests/unit/dice/test_dice_work.py holds
every one of them under a bound.
"""

from __future__ import annotations

import time
import tracemalloc
import uuid
from dataclasses import dataclass

from domain.dice.bcdice import DiceRefused, ServerFaces, evaluate
from domain.dice.bcdice.limits import MAX_COMMAND


def _filled(unit: str, head: str = "", tail: str = "", joiner: str = "+") -> str:
    """`head` then as many `unit`s (joined) as fit in a command, then `tail`."""
    room = MAX_COMMAND - len(head) - len(tail)
    count = (room + len(joiner)) // (len(unit) + len(joiner))
    return head + joiner.join([unit] * count) + tail


class HighestFaces(ServerFaces):
    """Server dice, each computed as usual, that then show their highest face."""

    def face(self, index: int, sides: int) -> int:
        super().face(index, sides)
        return sides


# construct → its worst command (at most MAX_WORK dice and items, 2,000 characters)
WORST: dict[str, str] = {
    "add dice (5,000 dice)": "+".join(["200D10000"] * 25),
    "add dice past the budget": _filled("200D10000"),
    "add dice kept (5,000 dice)": "+".join(["200D10000KH100"] * 25),
    "add D66 (2,500 D66)": "2500D66",
    "arithmetic (2,000 characters)": _filled("999999", "C(", ")", "-"),
    "nesting (20 deep)": "C(" + "(" * 19 + "1" + ")" * 19 + ")",
    "barabara (5,000 dice)": "+".join(["200B10000"] * 25) + ">=2",
    "tally (200 d20)": "200TY20",
    "reroll chain (5,000 rounds)": "1R10000[2]>=2",
    "reroll groups (5,000 dice)": "+".join(["200R10000"] * 25) + "[2]",
    "upper chain (5,000 dice)": "1U10000[2]",
    "upper group (5,000 dice)": "5000U10000[2]",
    "choice range (1e8 items)": "choice[1-100000000]",
    "choice items (1,000 items)": _filled("a", "choice[", "]", ","),
    "repeat choice (100 × 49 items)": "x100 choice[1-49]",
    "repeat add dice (100 × 50 dice)": "x100 50D10000",
    "repeat calc (5 × 2,000 characters)": _filled("999999", "x5 C(", ")", "-"),
    "repeat non-command (5 × 2,000 characters)": "x5 " + "z" * (MAX_COMMAND - 3),
    "repeat too long (100 × 2,000 characters)": "x100 " + "z" * (MAX_COMMAND - 5),
    "D66": "D66",
    "not a command (2,000 characters)": "(" * MAX_COMMAND,
}


@dataclass(frozen=True)
class Cost:
    cpu: float  # seconds of this thread's CPU
    wall: float  # seconds
    peak: int  # bytes allocated at most at once (tracemalloc)
    outcome: str


def measure(command: str) -> Cost:
    """What parsing and evaluating `command` with server dice costs, and its outcome."""
    cpu, wall = time.thread_time(), time.perf_counter()
    outcome = _run(command)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    tracemalloc.start()
    _run(command)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return Cost(cpu, wall, peak, outcome)


def _run(command: str) -> str:
    faces = HighestFaces(bytes(32), uuid.UUID(int=7), 0, "bench")
    try:
        result = evaluate(command, faces)
    except DiceRefused as refused:
        return f"refused: {str(refused)[:40]}"
    return "not a command" if result is None else f"{len(result.rands)} dice"


def main() -> None:
    print(f"{'construct':44} {'cpu ms':>7} {'wall ms':>8} {'MB':>6}  outcome")
    for name, command in WORST.items():
        cost = measure(command)
        figures = f"{cost.cpu * 1000:7.1f} {cost.wall * 1000:8.1f} {cost.peak / 1e6:6.2f}"
        print(f"{name:44} {figures}  {cost.outcome}")


if __name__ == "__main__":
    main()
