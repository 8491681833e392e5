"""Hearing every append to the event log, to know when a state held in memory is still the latest.

The event store NOTIFYs `events_<shard>` in the transaction of every append, with the ids of
the streams it appended to as the payload (infra/store/recorder.py), so a connection that
LISTENs hears each commit moments after it happened. The watch turns that into a generation
number that grows on every append heard, and remembers the generation at which each stream was
last appended to: a stream's state read from the log after taking ticket g is still the latest
while no append to that stream, and nothing that voids every ticket, came after g. Anything
that makes the watch unsure voids every ticket, so caches only ever miss more, never serve a
stale state:

- the listening connection was lost or not yet opened: no ticket at all (read the database);
- it has not proved itself alive (a NOTIFY or a heartbeat query) within `trust_s`: no ticket,
  so a connection that hangs without failing bounds how long a revocation can go unheard;
- this process wrote and the write failed (it may have appended first): `bump()` at once;
- a NOTIFY without stream ids (an append of very many streams), or more streams remembered
  than `streams_kept`.
A write of this process voids the tickets of the streams it appended to at once (the ledger
tells `wrote` after the commit), without waiting for its own NOTIFY to come back.

That NOTIFY, when it comes back, is dropped: it would only void again what `wrote` voided and
wake every live stream of its encounter a second time, for an empty read. The ledger tells
`expecting` the streams of an append before sending it (and `not_expected` if it failed);
a NOTIFY is dropped only when every stream it names is still expected. That is exact enough
to be safe because PostgreSQL delivers NOTIFYs in commit order: a NOTIFY heard while one of
this process's appends to the same streams, sent on this very connection's watch, has not
yet been heard committed no later than that append, which `wrote` (or the failure's void)
covers. Each NOTIFY heard takes its streams out of the expected set, dropped or not, and
losing the connection empties it: a mistake only ever wakes more.
"""

from __future__ import annotations

import logging
import os
import selectors
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

log = logging.getLogger(__name__)
_CONNECT: dict[str, Any] = {
    "autocommit": True,
    "connect_timeout": 5,
    "application_name": "senki-append-watch",
}


@dataclass(frozen=True)
class WatchOptions:
    heartbeat_s: float = 0.5  # a quiet connection runs `SELECT 1` this often
    trust_s: float = 2.0  # no tickets if the connection was last heard longer ago than this
    retry_s: float = 1.0  # wait before listening again after the connection was lost
    streams_kept: int = 100_000  # generations of the streams last appended to


class AppendWatch:
    """One LISTENing connection per process, on a thread of its own, started on first use."""

    def __init__(
        self,
        url: str,
        *,
        shards: int,
        options: WatchOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        shard_urls: Sequence[str] = (),
    ) -> None:
        self.url = url
        self.channels = [f"events_{shard}" for shard in range(shards)]
        # With a cluster per shard (docs/scaling.md) each shard's appends NOTIFY on its own
        # cluster: one connection LISTENs on each, and losing any of them voids every ticket.
        self.clusters: dict[str, list[str]] = {}
        for shard, channel in enumerate(self.channels):
            where = shard_urls[shard] if shard_urls else url
            self.clusters.setdefault(where, []).append(channel)
        self.options = options or WatchOptions()
        self.clock = clock
        self.generation = 0
        self.voided_at = 0  # the generation of the last event that voided every ticket
        self._appended: dict[UUID, int] = {}  # stream → generation of its last append heard
        # Streams of this process's appends sent while listening whose NOTIFY is not heard yet.
        self._expected: set[UUID] = set()
        self.listening = False
        self.heard_at = float("-inf")
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake_read, self._wake_write = os.pipe()
        # Told, on whatever thread heard it, of the streams appended to (None: maybe any):
        # how the live streams wake on an append instead of polling (api/live.py).
        self.listeners: list[Callable[[list[UUID] | None], None]] = []

    def ticket(self) -> int | None:
        """The current generation, or None when the watch cannot vouch for anything."""
        self._start()
        generation = self.generation  # read before the checks: a bump in between only misses
        if not self.listening or self.clock() - self.heard_at > self.options.trust_s:
            return None
        return generation

    def still(self, ticket: int, stream_id: UUID | None = None) -> bool:
        """Nothing was appended to the stream (to any stream, without one), or could have
        been unheard, since `ticket` was taken."""
        current = self.ticket()
        if current is None or stream_id is None:
            return current == ticket
        return self.voided_at <= ticket and self._appended.get(stream_id, 0) <= ticket

    def bump(self) -> None:
        """Something may have changed: every ticket taken so far is void."""
        with self._changed:
            self.generation += 1
            self.voided_at = self.generation
            self._changed.notify_all()
        self.tell(None)

    def appended(self, payload: str) -> None:
        """An append was heard: void the tickets of the streams it names (all, if none),
        unless it is the echo of this process's own append (which `wrote` told)."""
        try:
            streams = [UUID(text) for text in payload.split(",")] if payload else []
        except ValueError:
            streams = []  # not ours to read: assume the worst
        if not streams:
            self.bump()
            return
        with self._changed:
            echo = self._expected.issuperset(streams)
            self._expected.difference_update(streams)
        if not echo:
            self.wrote(streams)

    def expecting(self, streams: list[UUID]) -> None:
        """This process is about to append to these streams: their NOTIFY will be its echo."""
        with self._changed:
            if self.listening:  # else the NOTIFY may go unheard, or be heard on a later LISTEN
                self._expected.update(streams)
                if len(self._expected) > self.options.streams_kept:
                    self._expected.clear()

    def not_expected(self, streams: list[UUID]) -> None:
        """The append to these streams failed: a NOTIFY naming them is no echo to drop. And one
        already dropped as its echo may have been the very append it lost to, which no
        `wrote` of this process will now cover: void the streams' tickets (and wake their
        streams) as if it had been heard."""
        with self._changed:
            self._expected.difference_update(streams)
        self.wrote(streams)

    def wrote(self, streams: list[UUID]) -> None:
        """These streams were appended to (heard, or written by this very process): void
        their tickets, and only theirs; then wake whoever listens."""
        self.voided(streams)
        self.tell(streams)

    def voided(self, streams: list[UUID], *, since: int | None = None) -> int | None:
        """Void the streams' tickets, waking no one (`tell` does). With `since`, a ticket
        taken before this process appended to them: the new ticket if nothing else was heard
        appended to them (or voided every ticket) since then, else None. So a state built
        from this very append is the latest as of that ticket: an append by another process
        that committed after it and was heard before this call would otherwise be covered by
        the new ticket, and missed."""
        with self._changed:
            clean = (
                since is not None
                and self.listening
                and self.voided_at <= since
                and all(self._appended.get(stream, 0) <= since for stream in streams)
            )
            self.generation += 1
            for stream in streams:
                self._appended[stream] = self.generation
            if len(self._appended) > self.options.streams_kept:
                self._appended.clear()
                self.voided_at = self.generation
            self._changed.notify_all()
            return self.generation if clean else None

    def tell(self, streams: list[UUID] | None) -> None:
        """Wake the listeners of `streams` (None: every stream may have changed)."""
        for listener in self.listeners:
            try:
                listener(streams)
            except Exception:  # a listener's bug must not stop the watch or fail a write
                log.exception("append watch: a listener failed")

    def wait_past(self, ticket: int, timeout: float) -> bool:
        """Block until the generation moved past `ticket` (an append was heard), or timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self.generation > ticket, timeout)

    def wait_listening(self, timeout: float) -> bool:
        """Block until tickets are given out (the connection listens), or timeout."""
        self._start()
        with self._changed:
            return self._changed.wait_for(lambda: self.ticket() is not None, timeout)

    def stop(self) -> None:
        """Stop listening for good (tickets are refused from now on) and close the connection.
        Safe to call again."""
        with self._changed:
            if self._stop.is_set():
                return
            self._stop.set()
        os.write(self._wake_write, b"x")
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=10)
        self._set_listening(False)
        for end in (self._wake_read, self._wake_write):
            os.close(end)

    def _start(self) -> None:
        if self._thread is not None or self._stop.is_set():
            return
        with self._changed:  # a reentrant lock: ticket() may be called holding it
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="append-watch", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                with ExitStack() as opened:
                    conns = {
                        opened.enter_context(psycopg.connect(url, **_CONNECT)): channels
                        for url, channels in self.clusters.items()
                    }
                    failures = 0
                    self._listen(conns)
            except psycopg.Error as error:
                # Once per outage, not once per retry: the caches are bypassed meanwhile.
                failures += 1
                if failures == 1:
                    log.warning("append watch cannot listen (%s); caches bypassed", error)
            except Exception:  # a bug here must not end the thread (caches stay bypassed)
                log.exception("append watch failed; caches bypassed")
            finally:
                self._set_listening(False)
            self._wait(self.options.retry_s)

    def _listen(self, conns: dict[psycopg.Connection[Any], list[str]]) -> None:
        for conn, channels in conns.items():
            conn.add_notify_handler(lambda notify: self._heard(notify.payload))
            for channel in channels:
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        # From here on every commit is heard; what was read before may be stale.
        self._set_listening(True)
        by_fileno = {conn.fileno(): conn for conn in conns}
        last = dict.fromkeys(conns, self.clock())  # when each connection last proved alive
        while not self._stop.is_set():
            for fileno in self._wait_any(self.options.heartbeat_s, list(by_fileno)):
                self._drain(by_fileno[fileno])  # a NOTIFY (or the server closing)
                last[by_fileno[fileno]] = self.clock()
            if self._stop.is_set():
                return
            for conn in conns:
                if self.clock() - last[conn] >= self.options.heartbeat_s:
                    conn.execute("SELECT 1")  # quiet: prove the connection is alive
                    self._drain(conn)
                    last[conn] = self.clock()
            # Trusted as far as the least recently heard connection: a cluster whose
            # connection hangs silently bounds the tickets even while another one is busy.
            self._heard(None)
            self.heard_at = min(last.values())

    def _drain(self, conn: psycopg.Connection[Any]) -> None:
        """Hear every NOTIFY that reached the socket (those read during a query already were,
        by the handler)."""
        conn.pgconn.consume_input()  # raises once the server has closed the connection
        while (notify := conn.pgconn.notifies()) is not None:
            self._heard(notify.extra.decode())

    def _wait_any(self, seconds: float, filenos: list[int]) -> list[int]:
        """Sleep up to `seconds`; the connections' sockets that became readable."""
        readable = _readable([self._wake_read, *filenos], seconds)
        if self._stop.is_set():
            return []
        return [fileno for fileno in readable if fileno != self._wake_read]

    def _wait(self, seconds: float, fileno: int | None = None) -> bool:
        """Sleep up to `seconds`; True if the connection's socket became readable."""
        watched = [self._wake_read] if fileno is None else [self._wake_read, fileno]
        readable = _readable(watched, seconds)
        return fileno is not None and fileno in readable and not self._stop.is_set()

    def _heard(self, payload: str | None) -> None:
        """The connection spoke: a heartbeat (None), or an append's NOTIFY and its payload."""
        self.heard_at = self.clock()
        if payload is not None:
            self.appended(payload)

    def _set_listening(self, listening: bool) -> None:
        with self._changed:
            self.generation += 1  # whatever was held while (not) listening is suspect now
            self.voided_at = self.generation
            self.listening = listening
            self._expected.clear()  # their NOTIFYs may have been sent to the lost connection
            self.heard_at = self.clock()
            self._changed.notify_all()
        self.tell(None)


def _readable(filenos: list[int], seconds: float) -> list[int]:
    """Which of `filenos` became readable within `seconds`. Not select(): a process holding
    over 1,024 connections (a thousand live streams) gets descriptors select() cannot watch,
    and the watch failed on every reconnect, leaving every cache bypassed for good."""
    with selectors.DefaultSelector() as chosen:
        for fileno in filenos:
            chosen.register(fileno, selectors.EVENT_READ)
        return [key.fd for key, _ in chosen.select(seconds)]
