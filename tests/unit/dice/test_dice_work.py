"""Issue 33 §2: every dice construct checks its size before it builds anything, and a command
has a work budget, so the worst command of each construct stays small in time and memory.

The commands are bench/dice_worst.py's (`python -m bench.dice_worst` prints the figures). The
target is 50 ms and 10 MB; time is asserted at ten times the target (CPU time, on a shared
machine) and memory exactly, from tracemalloc's peak.
"""

from __future__ import annotations

import pytest

from bench.dice_worst import WORST, measure

TARGET_SECONDS = 0.050
MAX_BYTES = 10 * 1024 * 1024


@pytest.mark.parametrize("command", WORST.values(), ids=WORST.keys())
def test_the_worst_command_of_each_construct_stays_within_time_and_memory(command: str) -> None:
    cost = measure(command)
    assert cost.peak <= MAX_BYTES, cost
    assert cost.cpu <= 10 * TARGET_SECONDS, cost


def test_a_choice_of_a_hundred_million_builds_no_item() -> None:
    cost = measure("choice[1-100000000]")
    assert cost.outcome == "0 dice"  # BCDice's answer: 項目数は100以下としてください
    assert cost.peak < 64 * 1024, cost  # 1e7 items took 1.5 GB before
