"""Lanes: the read models split over several processes, for catch-up speed.

Projecting is Python work, one core per process, and the read models are independent: each
has its own tables and its own tracking positions, committed together per batch. So
`senki project --lanes N` keeps the first lane in its own process and runs each other lane
in a child process forked from it (`infra.projector.lane`) over the same log.

One projector per database still holds: only the process holding the projector lock starts
lanes, and stops them when it loses the lock. Every lane also holds a lock per read model it
projects (`model_lock`), so a lane that outlives its parent for a moment (the kernel sends a
lane SIGTERM when its parent dies, and each lane also watches its parent's pid) makes the
next projector's lane for that model wait, never write beside it; the fenced tracking
positions would stop it even then.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess

from projections.base import Projection

log = logging.getLogger("senki.projector")
MODEL_LOCKS = 0x534E4B50  # "SNKP": the first key of every per-model advisory lock
# How much work a model is per event of a typical log (measured with bench/projections.py):
# the sheets move aggregate states, the encounter log renders two languages per event.
WEIGHTS = {"encounter_log": 3, "rulings": 2, "character_sheets": 2}
RESTART_S = 2.0  # a lane that died is started again after this pause
_FORK = multiprocessing.get_context("fork")


def model_lock(name: str) -> tuple[int, int]:
    """The advisory lock (two int4 keys) a projector holds while it projects model `name`."""
    crc = zlib.crc32(name.encode())
    return MODEL_LOCKS, crc - (1 << 32) if crc >= 1 << 31 else crc


def split(projections: Sequence[Projection], lanes: int) -> list[list[Projection]]:
    """Models dealt to `lanes` lanes, heaviest first onto the lightest lane (no empty lane)."""
    lanes = max(1, min(lanes, len(projections)))
    dealt: list[list[Projection]] = [[] for _ in range(lanes)]
    load = [0] * lanes
    for projection in sorted(projections, key=lambda p: -WEIGHTS.get(p.name, 1)):
        lightest = load.index(min(load))
        dealt[lightest].append(projection)
        load[lightest] += WEIGHTS.get(projection.name, 1)
    return dealt


@dataclass(frozen=True)
class LaneSpec:
    """What a child lane is told: its models, and how to reach the database."""

    url: str
    shards: int
    models: list[str]
    batch_size: int
    application_name: str
    parent: int
    shard_urls: tuple[str, ...] = ()  # each shard's cluster (empty: every shard on `url`)


@dataclass
class ChildLanes:
    """The child lanes of the projector holding the lock: started, restarted, stopped.

    Each is forked (multiprocessing's "fork" start method, whatever the platform's default):
    a warm copy of this process starts in milliseconds, a fresh interpreter took 0.6 s of CPU
    to import the catalogue. The fork happens while this process has threads (the ledger's
    pool); the lane touches none of the objects they use, and opens its own connections.
    """

    specs: list[LaneSpec]
    children: list[BaseProcess | None] = field(default_factory=list)
    _died: dict[int, float] = field(default_factory=dict)

    def start(self) -> None:
        self.children = [self._spawn(spec) for spec in self.specs]

    def check(self) -> None:
        """Start again, after a pause, any lane that died (a crash is logged by the lane)."""
        for index, child in enumerate(self.children):
            if child is None or child.is_alive():
                continue
            died = self._died.setdefault(index, time.monotonic())
            if time.monotonic() - died >= RESTART_S:
                log.warning("lane %d exited with %s; starting it again", index + 1, child.exitcode)
                self._died.pop(index)
                self.children[index] = self._spawn(self.specs[index])

    def stop(self, timeout: float = 10.0) -> None:
        for child in self.children:
            if child is not None and child.is_alive():
                child.terminate()  # SystemExit in the lane: a batch in flight rolls back
        deadline = time.monotonic() + timeout
        for child in self.children:
            if child is None:
                continue
            child.join(max(0.0, deadline - time.monotonic()))
            if child.is_alive():
                child.kill()
                child.join()
        self.children = []

    def _spawn(self, spec: LaneSpec) -> BaseProcess:
        from infra.projector import lane  # imports the runner, which imports this module

        # daemon: should this process exit without stopping it, multiprocessing terminates it
        process = _FORK.Process(
            target=lane.run, args=(spec,), name=spec.application_name, daemon=True
        )
        process.start()
        return process
