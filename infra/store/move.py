"""Moving a campaign to another shard (`senki campaigns move`): copy, fence, verify, switch.

Every stream of the campaign (the campaign's own and each one the directory places with it)
goes from its shard (the source) to the target shard in these steps, each safe to interrupt
and run again, since each one's outcome is read back from the databases, never remembered:

1. mark: a row per stream in the target's `events_N_copies` (infra/sql/move.sql): the
   projector skips those streams' events there, copies of events it already projected;
2. copy: the stream's events, in version order, appended on the target through its normal
   append function, so the target's chain links them at new positions; versions the target
   already has are skipped (a re-run goes on where the last one stopped);
3. fence: in one transaction holding the source's write lock (no append in flight), a row
   per stream in the source's `events_N_moved`: from then on the source refuses appends to
   them (SQLSTATE SKMOV), in every process, whatever placement it has cached;
4. tail: what was written before the fence is copied too, and the idempotency records that
   answer for the campaign's streams (a retried request must find its first answer there);
5. verify: per stream, the (version, topic, state) sequence is the same on both shards, and
   the target's whole chain verifies; then the copies' extent is recorded (`upto_version`),
   so the projector takes the stream's later events from the target;
6. switch: a `senki.relocations` row per stream on the home database: every process now
   finds the campaign on the target (writers refused by the fence try again there).

Snapshots are not copied: each is sealed to its event's position and chain link on the
source (infra/store/snapshot_seal.py), so the target would refuse it; the first loads there
replay the events and take new ones. The source keeps its rows (append-only: deleting them
would break its chain, which `senki verify` still checks), fenced for ever and unread, as
the directory no longer points there. A stream placed on the source while the move ran is
found by a sweep after the switch and moved the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from psycopg.sql import SQL, Identifier

from domain.aggregate import NotFound
from infra.store.ledger import Ledger, Shard
from infra.store.names import SCHEMA

log = logging.getLogger("senki.store.move")
STEPS = ("mark", "copy", "fence", "tail", "answers", "verify", "projector", "switch")
Hook = Callable[[str], None]  # called with each step's name before it runs (tests interrupt)
_BATCH = 500  # events per append on the target
_SWEEPS = 3


class MoveRefused(RuntimeError):
    """The move cannot be made as asked; the message says why and what to do."""


class MoveFailed(RuntimeError):
    """The copy does not match its source: the placement was not switched."""


@dataclass
class MoveReport:
    """What one run did: streams moved, events and answers copied, and how long it took."""

    campaign_id: UUID
    target: int
    sources: set[int] = field(default_factory=set)
    streams: int = 0
    events_copied: int = 0
    answers_copied: int = 0
    seconds: float = 0.0
    projector_waited: bool = True

    @property
    def already_there(self) -> bool:
        return self.streams == 0


def move_campaign(
    ledger: Ledger,
    campaign_id: UUID,
    target: int,
    *,
    hook: Hook | None = None,
    projector_wait_s: float = 30.0,
) -> MoveReport:
    """Move every stream of the campaign to shard `target`; run again after any failure."""
    started = time.monotonic()
    if not 0 <= target < len(ledger.shards):
        raise MoveRefused(
            f"there is no shard {target}: this deployment has shards 0 to "
            f"{len(ledger.shards) - 1} (add one first: docs/scaling.md, Growing and moving)"
        )
    if len(ledger.shards) == 1:
        raise MoveRefused("the log has one shard: there is nowhere to move a campaign to")
    report = MoveReport(campaign_id, target)
    step = hook or (lambda _: None)
    _require_campaign(ledger, campaign_id)
    for _ in range(_SWEEPS):
        away = _streams_elsewhere(ledger, campaign_id, target)
        if not away:
            break
        for source in sorted(set(away.values())):
            streams = sorted(s for s, at in away.items() if at == source)
            _move_group(
                ledger,
                streams,
                source=source,
                target=target,
                step=step,
                report=report,
                projector_wait_s=projector_wait_s,
            )
            report.sources.add(source)
            report.streams += len(streams)
    else:
        if _streams_elsewhere(ledger, campaign_id, target):
            raise MoveFailed(
                "streams of the campaign keep being created on its old shard: run the move again"
            )
    report.seconds = time.monotonic() - started
    return report


def _move_group(
    ledger: Ledger,
    streams: Sequence[UUID],
    *,
    source: int,
    target: int,
    step: Hook,
    report: MoveReport,
    projector_wait_s: float,
) -> None:
    src, dst = ledger.shards[source], ledger.shards[target]
    _refuse_return(dst, streams, target)
    step("mark")
    _mark_copies(dst, streams, source)
    step("copy")
    report.events_copied += sum(_copy(src, dst, stream) for stream in streams)
    step("fence")
    fence_position = _fence(src, streams, target)
    step("tail")
    report.events_copied += sum(_copy(src, dst, stream) for stream in streams)
    step("answers")
    report.answers_copied += _copy_answers(src, dst, streams)
    step("verify")
    extents = _verify(ledger, src, dst, streams, target)
    _record_extents(dst, extents)
    step("projector")
    report.projector_waited &= _wait_for_projector(ledger, source, fence_position, projector_wait_s)
    step("switch")
    _switch(ledger, streams, source, target)


def _require_campaign(ledger: Ledger, campaign_id: UUID) -> None:
    shard = ledger.placements.lookup(campaign_id)
    if not ledger.shards[shard].recorder.select_events(campaign_id, limit=1):
        raise NotFound(f"no campaign {campaign_id}: check the id (GET /v1/campaigns/{{id}})")


def _streams_elsewhere(ledger: Ledger, campaign_id: UUID, target: int) -> dict[UUID, int]:
    """Each stream of the campaign, by the directory, that is not on `target` yet."""
    query = SQL("SELECT stream_id FROM {0}.placements WHERE campaign_id = %s").format(
        Identifier(SCHEMA)
    )
    with ledger.placements.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (campaign_id,))
        streams = {campaign_id, *(row["stream_id"] for row in cursor.fetchall())}
    where = {stream: ledger.placements.lookup(stream) for stream in streams}
    return {stream: shard for stream, shard in where.items() if shard != target}


def _table(shard: Shard, suffix: str) -> SQL:
    return shard.table(f"{shard.tables.events}{suffix}")


def _refuse_return(dst: Shard, streams: Sequence[UUID], target: int) -> None:
    query = SQL("SELECT stream_id FROM {0} WHERE stream_id = ANY(%s) LIMIT 1").format(
        _table(dst, "_moved")
    )
    with dst.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (list(streams),))
        row = cursor.fetchone()
    if row is not None:
        raise MoveRefused(
            f"stream {row['stream_id']} was moved away from shard {target} before, and its old "
            "rows there are fenced for ever: move the campaign to another shard"
        )


def _mark_copies(dst: Shard, streams: Sequence[UUID], source: int) -> None:
    insert = SQL(
        "INSERT INTO {0} (stream_id, from_shard) SELECT s, %s FROM unnest(%s::uuid[]) s "
        "ON CONFLICT (stream_id) DO NOTHING"
    ).format(_table(dst, "_copies"))
    with dst.datastore.transaction(commit=True) as cursor:
        cursor.execute(insert, (source, list(streams)))


def _highest_version(shard: Shard, stream: UUID) -> int:
    query = SQL("SELECT max(originator_version) AS v FROM {0} WHERE originator_id = %s").format(
        shard.table(shard.tables.events)
    )
    with shard.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (stream,))
        row = cursor.fetchone()
    return 0 if row is None or row["v"] is None else int(row["v"])


def _copy(src: Shard, dst: Shard, stream: UUID) -> int:
    """Append the source's events of `stream` the target lacks, oldest first; how many."""
    have = _highest_version(dst, stream)
    events = src.recorder.select_events(stream, gt=have or None)
    for start in range(0, len(events), _BATCH):
        batch = [
            StoredEvent(stream, e.originator_version, e.topic, e.state)
            for e in events[start : start + _BATCH]
        ]
        dst.recorder.insert_events(batch)
    return len(events)


def _fence(src: Shard, streams: Sequence[UUID], target: int) -> int:
    """Fence the streams on the source under its write lock; the source's head position then."""
    events = src.table(src.tables.events)
    moved = _table(src, "_moved")
    with src.datastore.transaction(commit=True) as cursor:
        cursor.execute(SQL("SET LOCAL lock_timeout = '10s'"))
        lock = src.table(src.tables.write_lock)
        cursor.execute(SQL("LOCK TABLE {0} IN EXCLUSIVE MODE").format(lock))
        cursor.execute(SQL("SELECT coalesce(max(notification_id), 0) AS p FROM {0}").format(events))
        head = cursor.fetchone()
        position = int(head["p"]) if head else 0
        cursor.execute(
            SQL(
                "INSERT INTO {0} (stream_id, to_shard, upto_version, fence_position) "
                "SELECT s, %s, coalesce((SELECT max(e.originator_version) FROM {1} e "
                "WHERE e.originator_id = s), 0), %s FROM unnest(%s::uuid[]) s "
                "ON CONFLICT (stream_id) DO NOTHING"
            ).format(moved, events),
            (target, position, list(streams)),
        )
        # A re-run after the fence committed: the first fence's position stands.
        cursor.execute(
            SQL("SELECT max(fence_position) AS p FROM {0} WHERE stream_id = ANY(%s)").format(moved),
            (list(streams),),
        )
        fenced = cursor.fetchone()
    return int(fenced["p"]) if fenced and fenced["p"] is not None else position


def _copy_answers(src: Shard, dst: Shard, streams: Sequence[UUID]) -> int:
    """Copy the idempotency records whose answer names one of the streams (an answer carries
    the id of the stream it wrote); a key the target holds already is left as it is."""
    patterns = [f"%{stream}%" for stream in streams]
    select = SQL(
        "SELECT key, fingerprint, response::text AS response, recorded_at FROM {0} "
        "WHERE response::text LIKE ANY(%s)"
    ).format(src.table(src.tables.idempotency))
    # One statement for them all: a move runs beside busy writers, and a round trip per
    # answer would cost the fenced streams' clients a second per few hundred answers.
    insert = SQL(
        "INSERT INTO {0} (key, fingerprint, response, recorded_at) "
        "SELECT k, f, r::jsonb, t FROM unnest(%s::text[], %s::text[], %s::text[], "
        "%s::timestamptz[]) AS a(k, f, r, t) "
        "ON CONFLICT (key) DO NOTHING"
    ).format(dst.table(dst.tables.idempotency))
    with src.datastore.transaction(commit=False) as cursor:
        cursor.execute(select, (patterns,))
        rows = cursor.fetchall()
    if not rows:
        return 0
    with dst.datastore.transaction(commit=True) as cursor:
        cursor.execute(
            insert,
            (
                [row["key"] for row in rows],
                [row["fingerprint"] for row in rows],
                [row["response"] for row in rows],  # as JSON text: never parsed here
                [row["recorded_at"] for row in rows],
            ),
        )
        return max(cursor.rowcount, 0)


def _verify(
    ledger: Ledger, src: Shard, dst: Shard, streams: Sequence[UUID], target: int
) -> dict[UUID, tuple[int, int]]:
    """Each stream's fenced extent (version, source position), once both shards hold the
    same events up to it."""
    query = SQL(
        "SELECT stream_id, upto_version, fence_position FROM {0} WHERE stream_id = ANY(%s)"
    ).format(_table(src, "_moved"))
    with src.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (list(streams),))
        extents = {
            row["stream_id"]: (int(row["upto_version"]), int(row["fence_position"]))
            for row in cursor.fetchall()
        }
    for stream in streams:
        upto = extents[stream][0]
        theirs = [_shape(e) for e in src.recorder.select_events(stream, lte=upto)]
        ours = [_shape(e) for e in dst.recorder.select_events(stream, lte=upto)]
        if theirs != ours or len(ours) != upto:
            raise MoveFailed(
                f"stream {stream}: shard {target} holds {len(ours)} of its {upto} events, or "
                "holds them differently: the placement was not switched; run `senki verify`"
            )
    report = ledger.verify(shard=target)
    if not report.ok:
        first = report.first_break
        raise MoveFailed(
            f"shard {target}'s chain does not verify (position "
            f"{first.position if first else '?'}): the placement was not switched"
        )
    return extents


def _shape(event: StoredEvent) -> tuple[int, str, bytes]:
    return event.originator_version, event.topic, bytes(event.state)


def _record_extents(dst: Shard, extents: dict[UUID, tuple[int, int]]) -> None:
    """From now on the stream's events past its copies are its own, for the projector, once
    it has projected the source up to the fence."""
    update = SQL(
        "UPDATE {0} SET upto_version = %s, fence_position = %s WHERE stream_id = %s"
    ).format(_table(dst, "_copies"))
    with dst.datastore.transaction(commit=True) as cursor:
        for stream, (upto, position) in extents.items():
            cursor.execute(update, (upto, position, stream))


def _wait_for_projector(ledger: Ledger, source: int, position: int, wait_s: float) -> bool:
    """Wait (up to `wait_s`) until every live read model has projected the source past the
    fence, so that a moved stream's old events are projected before its new ones."""
    query = SQL(
        "SELECT min(t.position) AS p FROM senki_read.tracking t JOIN senki_read.projections p "
        "ON p.name = t.projection AND p.live_generation = t.generation WHERE t.shard = %s"
    )
    deadline = time.monotonic() + wait_s
    while True:
        with ledger.placements.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (source,))
            row = cursor.fetchone()
        reached = None if row is None else row["p"]
        if reached is None or int(reached) >= position:
            return True  # no read model yet, or every one is past the fence
        if time.monotonic() >= deadline:
            log.warning(
                "the read models are at %s on shard %d, short of the fence at %d: switching "
                "anyway (is a projector running?)",
                reached,
                source,
                position,
            )
            return False
        time.sleep(0.2)


def _switch(ledger: Ledger, streams: Sequence[UUID], source: int, target: int) -> None:
    insert = SQL(
        "INSERT INTO {0}.relocations (stream_id, campaign_id, from_shard, shard) "
        "SELECT s, p.campaign_id, %s, %s FROM unnest(%s::uuid[]) s "
        "LEFT JOIN {0}.placements p ON p.stream_id = s"
    ).format(Identifier(SCHEMA))
    with ledger.placements.datastore.transaction(commit=True) as cursor:
        cursor.execute(insert, (source, target, list(streams)))
    for stream in streams:
        ledger.placements.forget(stream)
