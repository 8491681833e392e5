"""Issue 6's speed figure: a what-if replay of a 10,000-event encounter under changed options.

Run: `python -m bench.replay [--events 10000] [--json PATH] [--quick]` (embedded PostgreSQL) or
with SENKI_BENCH_DATABASE_URL set to a superuser URL of an external server. `--quick` is a
smoke run on a 300-event encounter (the suite's --quick).

The encounter is grown as in bench/encounter.py, then its seed is revealed (so a replay may
derive dice the original never rolled). Both figures read the stream from PostgreSQL:
- the reference is a plain rebuild of the same encounter from every event (no snapshot);
- the figure re-runs every recorded command under other options (`domain.encounter.replay`),
  which decides each command again and compares its outcome with the original's.
Aim: the replay at most 3× the rebuild.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.common import Figure, fresh_runtime, report, server
from bench.encounter import GM, TARGET_EVENTS, grow, open_fight
from bench.options import parser, write_figures
from domain.encounter import aggregate as encounter

# House rules that this fight reads: a different rounding and status recovery difficulty.
CHANGED: dict[str, Any] = {"piloting_rounding": "round", "status_recovery_difficulty": 90}


def interleaved(actions: list[Callable[[], object]], rounds: int = 5) -> list[float]:
    """Median seconds of each action, run in turn each round after one warm-up round.

    Taking turns means a burst of load from elsewhere on the machine falls on every figure
    alike, rather than on whichever happened to be running; the ratio is what matters.
    """
    times: list[list[float]] = [[] for _ in actions]
    for round_ in range(rounds + 1):
        for action, spent in zip(actions, times, strict=True):
            start = time.perf_counter()
            action()
            if round_:
                spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--events", type=int, default=TARGET_EVENTS, help="encounter size")
    args = options.parse_args()
    events, rounds = (300, 2) if args.quick else (args.events, 5)
    with server() as superuser, fresh_runtime(superuser) as runtime:
        fight = open_fight(runtime)
        grow(runtime, fight, events)
        runtime.encounters.reveal(fight, GM)
        size = len(runtime.ledger.read(fight))

        def rebuild() -> None:
            encounter.KIND.rebuild(fight, (r.event for r in runtime.ledger.read(fight)))

        def what_if() -> None:  # as the API runs it: read the stream, replay beside the state
            result = runtime.disputes.what_if(fight, options=CHANGED)
            if not result.complete:
                raise RuntimeError(f"the replay stopped: {result.missing}")

        rebuild_s, replay_s, read_s = interleaved(
            [rebuild, what_if, lambda: runtime.ledger.read(fight)], rounds
        )
    figures = [
        Figure(
            f"replay under changed options {CHANGED}",
            replay_s * 1000,
            "ms",
            "plain rebuild from every event",
            rebuild_s * 1000,
            "≤ 3×",
        ),
        Figure(
            "reading and decoding the stream (in both figures above)",
            read_s * 1000,
            "ms",
            "plain rebuild from every event",
            rebuild_s * 1000,
            "(for information)",
        ),
    ]
    report("replay", f"What-if replay ({size} events)", figures)
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
