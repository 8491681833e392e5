"""Load → decide → save, once, for every command of every aggregate.

Load, on the happy path, reads nothing: a command is decided on the state this process last
knew the stream at (the state its own last command reached, or its last read), and the append
names that version. If another process appended since, the append is refused and the command
decided again on the log's state; so is a refusal by the rules, which a stale state could
give wrongly (`Executor._attempt`).

Optimistic concurrency: the save names the version it decided on; if another command got
there first, a command without an If-Match version is decided again on the fresh state (safe:
deciding is pure), one with If-Match is refused as stale. Idempotency: the first answer is
stored with the events under the request's key. The key is not looked up before deciding (a
read per command on the happy path): a retry decides again, and its append is refused by the
key's unique index (DuplicateRequest), or its decision is refused (stale, conflicting, against
the rules) because the first attempt moved the state on; only then is the stored answer read,
and returned if there is one. Either way a retry appends nothing.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar, cast
from uuid import UUID

from pydantic import BaseModel

from domain.aggregate import AggregateKind, Decided, NotFound
from domain.events import DomainEvent
from infra.store.ledger import (
    ConcurrencyConflict,
    DuplicateRequest,
    Ledger,
    StreamMoved,
    StreamWrite,
)
from infra.store.mapper import Recorded
from infra.store.recorder import IdempotencyRecord

S = TypeVar("S")
# A command's answer: a typed, frozen model (infra/services/answers.py), or, for the services
# that still answer plain JSON (encounters, disputes, roll logs), a `Response`.
A = TypeVar("A")
Response = dict[str, Any]
# What a decider hands back: the events, or the events with the state it reached (Decided),
# which the executor then keeps instead of evolving every event again.
Decision = Decided[S] | list[DomainEvent]
_ATTEMPTS = 5
_Key = tuple[str, UUID]  # a cached state's kind and stream id


def as_stored(answer: Response) -> Any:
    """A plain-JSON answer is restored as it was stored."""
    return answer


def stored(answer: object) -> Response | bytes:
    """An answer as its idempotency record keeps it: JSON (a typed answer straight to JSON
    text: no dict of it is built just to be encoded again)."""
    if isinstance(answer, BaseModel):
        return answer.model_dump_json().encode()
    return cast(Response, answer)


class StaleVersion(RuntimeError):
    """The client's If-Match version is not the aggregate's current version (HTTP 412)."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(
            f"you acted on version {expected}, but it is now at version {current}: "
            "reload it, check what changed, and send the command again with If-Match: "
            f"{current}"
        )
        self.expected = expected
        self.current = current


class IdempotencyKeyReused(RuntimeError):
    """The same Idempotency-Key came with a different request (HTTP 422)."""


@dataclass(frozen=True)
class Idempotency:
    """A caller-scoped key and a fingerprint of the request it was first used for; `shared`:
    the scope is every anonymous caller's, so whoever sends the key again is not known to be
    the one who sent it first."""

    key: str
    fingerprint: str
    shared: bool = False


# Names the ids of streams created under an idempotency key (see `new_stream_id`).
_CREATED_UNDER_KEY = uuid.UUID("6d1f3f0e-5b5a-4c1e-9a43-73656e6b6921")


def new_stream_id(idempotency: Idempotency | None) -> uuid.UUID:
    """The id of a stream a request creates: derived from the request's idempotency key.

    A retried create then names the same stream, so it lands on the same shard, where the
    first answer was stored with the events; without a key, a fresh random id.
    """
    if idempotency is None:
        return uuid.uuid4()
    return uuid.uuid5(_CREATED_UNDER_KEY, idempotency.key)


@dataclass(frozen=True)
class Write:
    """How a write is guarded: the If-Match version, and the request's idempotency key."""

    expected_version: int | None = None
    idempotency: Idempotency | None = None


NO_GUARD = Write()


@dataclass(frozen=True)
class _Command(Generic[S, A]):
    """One command as `Executor.execute` runs it, attempt after attempt."""

    kind: AggregateKind[S]
    stream_id: UUID
    decide: Callable[[S], Decision[S]]
    respond: Callable[[S, int], A]
    restore: Callable[[Response], A]
    expected_version: int | None
    idempotency: Idempotency | None
    new: bool
    loaded: Loaded[S] | None = None
    placed: Callable[[A, Sequence[int]], A] | None = None


@dataclass(frozen=True)
class Loaded(Generic[S]):
    state: S
    version: int


class Executor:
    """Runs commands against the ledger; one instance per process."""

    def __init__(self, ledger: Ledger, *, cache_size: int = 1024) -> None:
        self.ledger = ledger
        # Latest known state per stream, as this process read it or as its last command here
        # reached it (Decided.state). States are frozen, so threads may share them. `load`
        # still reads every event after the cached version (never stale); a command decides on
        # the cached state without a read (`known`), and its append, naming that version, is
        # refused if another process moved the stream on: then the entry is dropped and the
        # command decided again on what the log says (`_attempt`). Keyed by kind and id: an
        # id of another kind (a roll log's read as an encounter) must find nothing here.
        self._cache: OrderedDict[_Key, tuple[int, Any]] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()

    def load(
        self, kind: AggregateKind[S], stream_id: UUID, *, upto: int | None = None
    ) -> Loaded[S]:
        """The aggregate at its latest version (or at `upto`): the cached or snapshot state,
        then every newer event."""
        state, version = kind.initial(stream_id), 0
        shard = self.ledger.shard_of(stream_id)
        start = self._cached(kind, stream_id, upto) or self._snapshot(kind, stream_id, shard, upto)
        if start is not None:
            version, state = start
        for recorded in self.ledger.read(stream_id, shard=shard, after=version, upto=upto):
            state, version = kind.evolve(state, recorded.event), recorded.version
        if not kind.exists(state):
            raise NotFound(f"no {kind.name.replace('_', ' ')} {stream_id}")
        if upto is None:
            self._remember(kind, stream_id, version, state)
        return Loaded(state, version)

    def known(self, kind: AggregateKind[S], stream_id: UUID) -> Loaded[S]:
        """The latest state this process knows, without a read when it holds one: good enough
        to decide a command on (its append names the version, so a stale one is refused and
        decided again) and to authorise one (who a stream belongs to never changes), not to
        answer a read with."""
        found = self._cached(kind, stream_id, None)
        if found is None:
            return self.load(kind, stream_id)
        return Loaded(found[1], found[0])

    def at_least(self, kind: AggregateKind[S], stream_id: UUID, version: int) -> Loaded[S]:
        """The aggregate at `version` or newer: the cached state when it is that new (a
        cached state is the log's at its version), else loaded."""
        found = self._cached(kind, stream_id, None)
        if found is None or found[0] < version:
            return self.load(kind, stream_id)
        return Loaded(found[1], found[0])

    def through(
        self, kind: AggregateKind[S], stream_id: UUID, read: Sequence[Recorded]
    ) -> Loaded[S]:
        """The aggregate at least as new as the last of `read` (its events just read, in
        order): the cached state when it is that new, or brought forward by those events;
        else loaded. A cached state is the log's at its version, so one this new is as good
        as a load after the read."""
        held = self.held_through(kind, stream_id, read)
        return self.load(kind, stream_id) if held is None else held

    def held_through(
        self, kind: AggregateKind[S], stream_id: UUID, read: Sequence[Recorded]
    ) -> Loaded[S] | None:
        """`through` without a load: None when this process does not hold the aggregate
        at least as new as the version before `read`."""
        found = self._cached(kind, stream_id, None)
        if not read or found is None or found[0] < read[0].version - 1:
            return None
        version, state = found
        for recorded in read:
            if recorded.version > version:
                state, version = kind.evolve(state, recorded.event), recorded.version
        self._remember(kind, stream_id, version, state)
        return Loaded(state, version)

    def _forget(self, kind: AggregateKind[Any], stream_id: UUID, version: int) -> None:
        """Drop a cached state found stale at `version` (a newer one stays)."""
        key = (kind.name, stream_id)
        with self._cache_lock:
            known = self._cache.get(key)
            if known is not None and known[0] <= version:
                del self._cache[key]

    def _cached(
        self, kind: AggregateKind[Any], stream_id: UUID, upto: int | None
    ) -> tuple[int, Any] | None:
        key = (kind.name, stream_id)
        with self._cache_lock:
            found = self._cache.get(key)
            if found is None or (upto is not None and found[0] > upto):
                return None
            self._cache.move_to_end(key)
            return found

    def _drop(self, kind: AggregateKind[Any], stream_id: UUID) -> None:
        """Drop whatever state is cached (the stream moved to another shard)."""
        with self._cache_lock:
            self._cache.pop((kind.name, stream_id), None)

    def _remember(
        self, kind: AggregateKind[Any], stream_id: UUID, version: int, state: object
    ) -> None:
        key = (kind.name, stream_id)
        with self._cache_lock:
            known = self._cache.get(key)
            if known is not None and known[0] > version:
                return  # another thread saw a newer version
            self._cache[key] = (version, state)
            self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _snapshot(
        self, kind: AggregateKind[S], stream_id: UUID, shard: int, upto: int | None
    ) -> tuple[int, S] | None:
        """The newest snapshot whose seal checks (the ledger refuses, logs and counts any other
        one: infra/store/snapshot_seal.py), or None to replay from the first event."""
        if kind.snapshot is None:
            return None
        found = self.ledger.latest_snapshot(stream_id, snapshot_topic(kind), shard=shard, upto=upto)
        return None if found is None else (found[0], kind.snapshot.load(found[1]))

    def _maybe_snapshot(
        self, kind: AggregateKind[S], stream_id: UUID, before: int, state: S, after: int
    ) -> None:
        """Snapshot when a save crosses a multiple of `every`, so a load replays < `every`."""
        if kind.snapshot is None or after // kind.snapshot.every == before // kind.snapshot.every:
            return
        self.ledger.save_snapshot(stream_id, after, snapshot_topic(kind), kind.snapshot.dump(state))

    def create(
        self,
        kind: AggregateKind[S],
        stream_id: UUID,
        events: Sequence[DomainEvent],
        respond: Callable[[S, int], A],
        *,
        restore: Callable[[Response], A] = as_stored,
        idempotency: Idempotency | None = None,
        campaign_id: UUID | None = None,
        placed: Callable[[A, Sequence[int]], A] | None = None,
    ) -> A:
        """Start a new stream with its first events, on its campaign's shard of the log
        (a campaign, or a stream without one, is placed by its own id)."""
        self.ledger.place(stream_id, campaign_id=campaign_id)
        return self.execute(
            kind,
            stream_id,
            lambda _: list(events),
            respond,
            restore=restore,
            idempotency=idempotency,
            new=True,
            placed=placed,
        )

    def execute(
        self,
        kind: AggregateKind[S],
        stream_id: UUID,
        decide: Callable[[S], Decision[S]],
        respond: Callable[[S, int], A],
        *,
        restore: Callable[[Response], A] = as_stored,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
        new: bool = False,
        loaded: Loaded[S] | None = None,
        placed: Callable[[A, Sequence[int]], A] | None = None,
    ) -> A:
        """Decide on the current state and save the events with the response, atomically.

        `loaded`: the state the caller has just read (the API reads it to authorise the
        command), decided on by the first attempt instead of reading the stream again. Safe
        however old it is: the append names its version, so a state another command has moved
        on is refused (ConcurrencyConflict) and the next attempt reads the stream.

        `respond` builds the answer from the state reached; it is stored as JSON with the
        events, and a retry gets that stored answer back through `restore` (a typed answer's
        `model_validate`), so both answer the same.

        `placed`: given the answer and the log positions the append returned (one per event,
        in order), the answer with them; the stored answer is written with the events, before
        they have positions, so a retry's answer has none.
        """
        shard = self.ledger.shard_of(stream_id)
        command = _Command(
            kind,
            stream_id,
            decide,
            respond,
            restore,
            expected_version,
            idempotency,
            new,
            loaded,
            placed,
        )
        for attempt in range(_ATTEMPTS):
            if attempt:
                command = replace(command, loaded=None)
            try:
                return self._attempt(command, shard)
            except StreamMoved:
                # The campaign was moved (senki campaigns move): once the directory names its
                # new shard, decide again there; while the move still verifies, a 503.
                moved_to = self.ledger.placements.lookup(stream_id)
                self._drop(kind, stream_id)
                if moved_to == shard or attempt == _ATTEMPTS - 1:
                    raise
                shard = moved_to
            except DuplicateRequest:
                # The key is taken: this is a retry (or a concurrent twin) of an answered
                # request, and the events just decided were not appended.
                answer = self._earlier_answer(idempotency, shard)
                assert answer is not None  # the request that took the key committed it
                return restore(answer)
            except (StaleVersion, ConcurrencyConflict) as refused:
                # Maybe this very request moved it: a retry after its first attempt committed
                # must get that answer, not a 412 or 409.
                earlier = self._earlier_answer(idempotency, shard)
                if earlier is not None:
                    return restore(earlier)
                guarded = expected_version is not None or new
                if isinstance(refused, StaleVersion) or guarded or attempt == _ATTEMPTS - 1:
                    raise
            except (ValueError, LookupError):
                # A refusal (a rule, a missing stream) may only mean the first attempt of this
                # request committed and moved the state on: then its answer stands.
                earlier = self._earlier_answer(idempotency, shard)
                if earlier is not None:
                    return restore(earlier)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(self, command: _Command[S, A], shard: int) -> A:
        """Decide on the state the caller read or this process knows (no read), and save it;
        if that state proves stale (the append is refused, or the rules refuse a command the
        current state might allow), read the log and decide once more."""
        kind, stream_id = command.kind, command.stream_id
        expected = command.expected_version
        loaded = command.loaded
        if loaded is None and not command.new:
            loaded = self.known(kind, stream_id)
        if loaded is None or (expected is not None and loaded.version < expected):
            # A fresh read: never a 412 on an old state, and what it decides stands.
            return self._save(command, self._current(kind, stream_id, command.new), shard)
        try:
            return self._save(command, loaded, shard)
        except (ConcurrencyConflict, ValueError, LookupError):
            # Maybe only the state was stale (another process appended since): forget it and
            # decide on the log's. A conflict or refusal on the current state is the answer.
            self._forget(kind, stream_id, loaded.version)
            current = self._current(kind, stream_id, command.new)
            if current.version == loaded.version:
                raise
            return self._save(command, current, shard)

    def _save(self, command: _Command[S, A], loaded: Loaded[S], shard: int) -> A:
        """Check the If-Match version, decide, append with the answer; remember the state."""
        kind, stream_id = command.kind, command.stream_id
        expected = command.expected_version
        if expected is not None and loaded.version != expected:
            raise StaleVersion(expected, loaded.version)
        events, after = _outcome(kind, loaded.state, command.decide(loaded.state))
        response = command.respond(after, loaded.version + len(events))
        key = command.idempotency
        record = IdempotencyRecord(key.key, key.fingerprint, stored(response)) if key else None
        positions = self.ledger.append(
            [StreamWrite(stream_id, loaded.version, events)], shard=shard, idempotency=record
        )
        saved = loaded.version + len(events)
        self._remember(kind, stream_id, saved, after)
        self._maybe_snapshot(kind, stream_id, loaded.version, after, saved)
        return response if command.placed is None else command.placed(response, positions)

    def _current(self, kind: AggregateKind[S], stream_id: UUID, new: bool) -> Loaded[S]:
        if new:
            if self.ledger.read(stream_id, upto=1):  # routed: placed by `create`
                raise ConcurrencyConflict(stream_id, 0)
            return Loaded(kind.initial(stream_id), 0)
        return self.load(kind, stream_id)

    def _earlier_answer(self, idempotency: Idempotency | None, shard: int) -> Response | None:
        """The first answer to this key; kept on the shard of the stream the request wrote."""
        if idempotency is None:
            return None
        answer = self.ledger.answer_for(idempotency.key, shard=shard)
        if answer is None:
            return None
        if answer.fingerprint != idempotency.fingerprint:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was already used for a different request; "
                "use a new key for a new request"
            )
        return answer.response


def _outcome(
    kind: AggregateKind[S], state: S, decision: Decision[S]
) -> tuple[list[DomainEvent], S]:
    """The events decided and the state they lead to: as the decider reached it, or folded."""
    if isinstance(decision, Decided):
        return decision.events, decision.state
    for event in decision:
        state = kind.evolve(state, event)
    return decision, state


def snapshot_topic(kind: AggregateKind[Any]) -> str:
    """The topic a kind's snapshots are stored under: its name and its snapshot version."""
    assert kind.snapshot is not None
    return f"snapshot:{kind.name}:{kind.snapshot.version}"
