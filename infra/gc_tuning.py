"""Garbage collector thresholds for Senki's long-running processes.

CPython's default (a young collection every 700 net allocations) suits small scripts. A
projector keeps hundreds of thousands of rows and parsed states in memory while it makes
tens of thousands of short-lived pydantic objects per second, and collections walking those
survivors took 28% of a 100,000-event catch-up (bench/projections.py: 11,200 events/s with
the defaults, 15,100 with these). Reference counting still frees almost everything at once;
the collector is only for cycles, which are rare here, so collecting them less often costs a
little memory and nothing else.
"""

from __future__ import annotations

import gc

YOUNG = 50_000  # allocations between young collections (CPython: 700)
MIDDLE = 20  # young collections per middle one (CPython: 10)
OLD = 100  # middle collections per full one (CPython: 10)


def tune() -> None:
    """Collect less often in this process (`senki serve`, `senki project`)."""
    gc.set_threshold(YOUNG, MIDDLE, OLD)
