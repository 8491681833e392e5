"""Projection lag as gauges, asked of the database when Prometheus scrapes.

Positions live in PostgreSQL (the projector may run in another pod), so they are read at
scrape time through the port, at most once per `ttl` seconds however often anyone scrapes.
One read runs at a time, on its own thread, and a scrape waits at most `timeout` for it: a
database that hangs costs one thread, not one per scrape, and a scrape still answers, with
`senki_database_up 0` and without the gauges it could not read.

With a PostgreSQL cluster per shard, one cluster's outage does not blank the families:
`senki_shard_up{shard}` says 0 for it, its head and lag are left out (unknown), and every
other shard's head, position and lag are exported as usual (docs/scaling.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from infra.services import LogHeadView, ProjectionPositionView, SenkiPort, ShardDownView

log = logging.getLogger("senki.api.metrics")

GENERATION = ["projection", "generation", "role", "shard"]
CACHE_SECONDS = 2.0  # Prometheus scrapes every 30 s; this only spares bursts (several scrapers)
READ_TIMEOUT_SECONDS = 3.0  # well under Prometheus' default 10 s scrape timeout


@dataclass(frozen=True)
class Reading:
    """One answer of the database, or the lack of one."""

    at: float
    up: bool
    heads: Sequence[LogHeadView | ShardDownView] = field(default_factory=list)
    positions: Sequence[ProjectionPositionView] = field(default_factory=list)


class _Read:
    """A read in flight, which several scrapes may wait on."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.reading: Reading | None = None


class ProjectionCollector(Collector):
    def __init__(
        self,
        senki: Callable[[], SenkiPort | None],
        *,
        ttl: float = CACHE_SECONDS,
        timeout: float = READ_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.senki = senki
        self.ttl = ttl
        self.timeout = timeout
        self.clock = clock
        self._lock = threading.Lock()
        self._last: Reading | None = None
        self._pending: _Read | None = None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        reading = self.reading()
        yield GaugeMetricFamily(
            "senki_database_up",
            "1 if the home database answered the last read of projection positions and log "
            "heads, else 0 (a shard cluster's outage: senki_shard_up).",
            value=1 if reading.up else 0,
        )
        if reading.up:
            yield from _gauges(reading)

    def reading(self) -> Reading:
        with self._lock:
            last = self._last
            if last is not None and self.clock() - last.at < self.ttl:
                return last
            if self._pending is None:
                self._pending = _Read()
                threading.Thread(
                    target=self._read, args=(self._pending,), name="senki-metrics", daemon=True
                ).start()
            pending = self._pending
        if pending.done.wait(self.timeout) and pending.reading is not None:
            return pending.reading
        return Reading(self.clock(), up=False)  # still waiting: answer now, read on

    def _read(self, pending: _Read) -> None:
        try:
            senki = self.senki()
            if senki is None:  # not started yet (or stopped): nothing to ask
                reading = Reading(self.clock(), up=False)
            else:
                positions = senki.projection_positions()
                reading = Reading(self.clock(), True, senki.log_heads(), positions)
        except Exception as error:  # a scrape must still answer: say "down", log why
            log.warning("metrics: cannot read projection positions: %s", error)
            reading = Reading(self.clock(), up=False)
        with self._lock:
            self._last, self._pending = reading, None
        pending.reading = reading
        pending.done.set()


def _gauges(reading: Reading) -> Iterator[GaugeMetricFamily]:
    up = GaugeMetricFamily(
        "senki_shard_up",
        "1 if the shard's PostgreSQL cluster answered the last read of its head, else 0 "
        "(its head and lag are then left out).",
        labels=["shard"],
    )
    heads = GaugeMetricFamily(
        "senki_log_head_position", "The last position of each shard's event log.", labels=["shard"]
    )
    for head in reading.heads:
        up.add_metric([str(head.shard)], 1 if isinstance(head, LogHeadView) else 0)
        if isinstance(head, LogHeadView):
            heads.add_metric([str(head.shard)], head.position)
    position = GaugeMetricFamily(
        "senki_projection_position",
        "The log position a generation of a read model reflects, per shard.",
        labels=GENERATION,
    )
    lag = GaugeMetricFamily(
        "senki_projection_lag_events",
        "Events of the shard not yet projected into the generation (head - position).",
        labels=GENERATION,
    )
    parked = GaugeMetricFamily(
        "senki_projection_parked_events",
        "Events a generation of a read model could not take, parked for it on the shard "
        "(their streams wait there; `senki projections retry` after a fix).",
        labels=GENERATION,
    )
    degraded = GaugeMetricFamily(
        "senki_projection_degraded_position",
        "The first parked position of a degraded generation on the shard (only while degraded).",
        labels=GENERATION,
    )
    stalled = GaugeMetricFamily(
        "senki_projection_stalled",
        "1 while a generation is behind its log and has not moved for longer than "
        "SENKI_PROJECTION_STALL_S (degraded: see the projector's log), else 0.",
        labels=GENERATION,
    )
    still = GaugeMetricFamily(
        "senki_projection_still_seconds",
        "Seconds since a generation's position last moved or was found current.",
        labels=GENERATION,
    )
    for p in reading.positions:
        labels = [p.projection, str(p.generation), p.role, str(p.shard)]
        stalled.add_metric(labels, 1 if p.stalled else 0)
        still.add_metric(labels, p.still_s)
        position.add_metric(labels, p.position)  # read on home: known while the shard is down
        if p.lag is not None:
            lag.add_metric(labels, p.lag)
        parked.add_metric(labels, p.parked)
        if p.parked_at is not None:
            degraded.add_metric(labels, p.parked_at)
    yield from (up, heads, position, lag, parked, degraded, stalled, still)
