"""Application service for roll logs: open, roll, reveal, audit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from domain import roll_log, roll_logs
from domain.aggregate import NotFound
from domain.dice import Verification, commitment, derive_server_seed
from domain.dice.bcdice import DiceRefused
from domain.events import DomainEvent
from infra.services.executor import Executor, Idempotency, new_stream_id
from infra.services.roll_answers import (
    RollAnswer,
    RollLogPublic,
    log_public,
    roll_placed,
    rolled,
)
from infra.store.ledger import ConcurrencyConflict
from infra.store.stream_page import placed_topics

# The events that each record one roll (`roll_log.evolve`).
_ROLL_EVENTS = {roll_log.DiceRolled.event_type, roll_log.DiceRollRefused.event_type}


class RollRefusedAndRecorded(DiceRefused):
    """A roll refused after its dice were drawn; it is recorded, and `answer` carries it."""

    def __init__(self, answer: RollAnswer) -> None:
        roll = answer.roll
        assert roll is not None
        assert roll.refused is not None
        super().__init__(
            f"refused and recorded as roll {roll.roll_seq} of roll log {answer.roll_log.id} "
            f"(its dice are verifiable after the reveal): {roll.refused}"
        )
        self.answer = answer


@dataclass(frozen=True)
class LogPage:
    table_log: roll_logs.ListedLog | None  # the one that takes rolls now
    logs: list[tuple[roll_logs.ListedLog, roll_log.RollLog]]
    total: int
    next_offset: int | None


class RollLogService:
    """Free rolls at the table, with the same verifiable dice encounters use."""

    def __init__(
        self, executor: Executor, master_key: bytes, clock: Callable[[], datetime]
    ) -> None:
        self.executor = executor
        self.master_key = master_key
        self.clock = clock

    def open(
        self,
        name: str,
        *,
        by: str,
        campaign_id: UUID | None = None,
        secret: bool = False,
        idempotency: Idempotency | None = None,
    ) -> RollLogPublic:
        """Open a log and publish the commitment to its server seed; a campaign's log is
        listed first (a retry lists it once), so every log it has can be found by name."""
        log_id = new_stream_id(idempotency)
        if campaign_id is not None:
            at = self.clock()
            self._list(
                campaign_id,
                lambda state: roll_logs.list_opened(
                    state, campaign_id, log_id, name, secret=secret, at=at, by=by
                ),
            )
        return self._create(
            log_id, name, by=by, campaign_id=campaign_id, secret=secret, idempotency=idempotency
        )

    def _create(
        self,
        log_id: UUID,
        name: str,
        *,
        by: str,
        campaign_id: UUID | None,
        secret: bool = False,
        idempotency: Idempotency | None = None,
    ) -> RollLogPublic:
        seed = derive_server_seed(self.master_key, log_id)
        events = roll_log.open_log(
            name, commitment(seed), at=self.clock(), by=by, campaign_id=campaign_id, secret=secret
        )
        return self.executor.create(
            roll_log.KIND,
            log_id,
            events,
            log_public,
            restore=RollLogPublic.model_validate,
            idempotency=idempotency,
            campaign_id=campaign_id,
        )

    def table_log(self, campaign_id: UUID, *, by: str) -> tuple[UUID, RollLogPublic | None]:
        """The campaign's table log that takes rolls now, and its opening if this call opened
        it (the first roll at the table, or the first after the GM revealed the last one's
        seed). Two first rolls at once name the same log; one opens it, both roll in it."""
        listed = self._known_list(campaign_id).table_log
        if listed is None:
            return roll_logs.table_log_of(campaign_id), self._open_table(campaign_id, 0, by=by)
        log_id = listed.log_id
        try:
            state = self.executor.known(roll_log.KIND, log_id).state
        except NotFound:  # listed, but its opening never landed: open it now
            return log_id, self._open_table(campaign_id, listed.generation, by=by)
        if state.revealed_seed is None:
            return log_id, None
        after = listed.generation + 1
        return roll_logs.table_log_of(campaign_id, after), self._open_table(
            campaign_id, after, by=by
        )

    def _open_table(self, campaign_id: UUID, generation: int, *, by: str) -> RollLogPublic | None:
        at = self.clock()
        self._list(
            campaign_id,
            lambda state: roll_logs.list_table_log(state, campaign_id, generation, at=at, by=by),
        )
        log_id = roll_logs.table_log_of(campaign_id, generation)
        try:
            return self._create(log_id, roll_logs.TABLE_LOG_NAME, by=by, campaign_id=campaign_id)
        except ConcurrencyConflict:
            return None  # a twin request opened it first: roll in it all the same

    def at_table(
        self, campaign_id: UUID, *, by: str, roll: Callable[[UUID], RollAnswer]
    ) -> tuple[RollAnswer, RollLogPublic | None]:
        """`roll` in the campaign's table log, and the table log's opening if this opened it."""
        log_id, opened = self.table_log(campaign_id, by=by)
        try:
            return roll(log_id), opened
        except roll_log.RollLogClosed:
            # The GM revealed the table log's seed since this process last looked: the next
            # generation takes the roll (the reveal is read now, so this asks once).
            log_id, opened = self.table_log(campaign_id, by=by)
            return roll(log_id), opened

    def listed(self, campaign_id: UUID) -> roll_logs.RollLogs:
        """The campaign's roll logs as listed now (read from the log: a read route's answer)."""
        stream = roll_logs.stream_of(campaign_id)
        try:
            return self.executor.load(roll_logs.KIND, stream).state
        except NotFound:
            return roll_logs.KIND.initial(stream)

    def page(self, campaign_id: UUID, *, offset: int = 0, limit: int = 50) -> LogPage:
        """A page of the campaign's logs, the table log that takes rolls first, then every
        other newest first, each with its state (a listed log whose opening never landed,
        its request failed, is left out)."""
        listed = self.listed(campaign_id)
        current = listed.table_log
        rest = [log for log in reversed(listed.logs) if log is not current]
        ordered = [current, *rest] if current is not None else rest
        found: list[tuple[roll_logs.ListedLog, roll_log.RollLog]] = []
        for log in ordered[offset : offset + limit]:
            try:
                found.append((log, self.executor.load(roll_log.KIND, log.log_id).state))
            except NotFound:
                continue
        more = offset + limit < len(ordered)
        return LogPage(current, found, len(ordered), offset + limit if more else None)

    def _known_list(self, campaign_id: UUID) -> roll_logs.RollLogs:
        stream = roll_logs.stream_of(campaign_id)
        try:
            return self.executor.known(roll_logs.KIND, stream).state
        except NotFound:
            return roll_logs.KIND.initial(stream)

    def _list(
        self, campaign_id: UUID, decide: Callable[[roll_logs.RollLogs], list[DomainEvent]]
    ) -> None:
        """Add to the campaign's list; the first listing opens the list on the campaign's
        shard, and a twin that opened it first is simply decided on again."""
        stream = roll_logs.stream_of(campaign_id)
        for _ in range(2):
            try:
                self.executor.known(roll_logs.KIND, stream)
            except NotFound:
                events = decide(roll_logs.KIND.initial(stream))
                try:
                    self.executor.create(
                        roll_logs.KIND, stream, events, _nothing, campaign_id=campaign_id
                    )
                    return
                except ConcurrencyConflict:
                    continue
            self.executor.execute(roll_logs.KIND, stream, decide, _nothing)
            return
        raise AssertionError("unreachable: a list that exists is decided on, not created")

    def roll(
        self,
        log_id: UUID,
        expression: str,
        *,
        by: str,
        purpose: str = "table roll",
        client_seed: str | None = None,
        secret: bool = False,
        hand_faces: list[int] | None = None,
        system: str = "DiceBot",
        table: roll_log.KeptTable | None = None,
        idempotency: Idempotency | None = None,
    ) -> RollAnswer:
        """Roll server dice in the log (or record `hand_faces`); the response carries the roll.

        A roll refused after its dice were drawn is recorded, then raised as
        `RollRefusedAndRecorded` (a retry with the same key gets the same refusal)."""
        seed = derive_server_seed(self.master_key, log_id)
        answer = self.executor.execute(
            roll_log.KIND,
            log_id,
            lambda state: roll_log.roll_dice(
                state,
                expression,
                server_seed=seed,
                client_seed=client_seed,
                purpose=purpose,
                at=self.clock(),
                by=by,
                secret=secret,
                hand_faces=hand_faces,
                system=system,
                table=table,
            ),
            lambda state, version: rolled(state, version, by),
            restore=RollAnswer.model_validate,
            idempotency=idempotency,
            placed=roll_placed,
        )
        if answer.roll is not None and answer.roll.position is None:
            # A retry's answer, stored before the append placed its event: read it back.
            at = self.placed(log_id)[2].get(answer.roll.roll_seq)
            answer = roll_placed(answer, [at]) if at is not None else answer
        if answer.roll is not None and answer.roll.refused is not None:
            raise RollRefusedAndRecorded(answer)
        return answer

    def reveal(
        self, log_id: UUID, *, by: str, idempotency: Idempotency | None = None
    ) -> RollLogPublic:
        """Publish the server seed; no more rolls after this."""
        seed = derive_server_seed(self.master_key, log_id)
        return self.executor.execute(
            roll_log.KIND,
            log_id,
            lambda state: roll_log.reveal(state, seed, at=self.clock(), by=by),
            log_public,
            restore=RollLogPublic.model_validate,
            idempotency=idempotency,
        )

    def get(self, log_id: UUID) -> tuple[roll_log.RollLog, int]:
        """The log and every roll in it, with its version."""
        loaded = self.executor.load(roll_log.KIND, log_id)
        return loaded.state, loaded.version

    def public(self, log_id: UUID) -> RollLogPublic:
        """The log as an opening or a reveal answers it: no roll in it."""
        state, version = self.get(log_id)
        return log_public(state, version)

    def placed(self, log_id: UUID) -> tuple[roll_log.RollLog, int, dict[int, int]]:
        """The log, its version, and the log position of the event that recorded each roll
        (by roll sequence). Each roll is one event, in order (`roll_log.evolve`): the k-th
        roll event's position is the k-th roll's. Read after the state, so every roll it
        holds has its event among the rows."""
        loaded = self.executor.load(roll_log.KIND, log_id)
        rolls = [
            position
            for topic, position in placed_topics(self.executor.ledger, log_id)
            if topic.rpartition(".v")[0] in _ROLL_EVENTS
        ]
        state = loaded.state
        # not strict: the rows may hold rolls appended since the state was read
        at = {r.roll_seq: p for r, p in zip(state.rolls, rolls, strict=False)}
        return state, loaded.version, at

    def audit(self, log_id: UUID) -> tuple[roll_log.RollLog, list[Verification]]:
        """Recompute every roll of a revealed log."""
        state = self.executor.load(roll_log.KIND, log_id).state
        return state, roll_log.audit(state)


def _nothing(_: object, __: int) -> dict[str, object]:
    """A listing answers nothing of its own: the opening or the roll beside it answers."""
    return {}
