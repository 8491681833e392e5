"""Application service for roll logs: open, roll, reveal, audit."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from uuid import UUID

from domain import roll_log
from domain.dice import Verification, commitment, derive_server_seed
from domain.dice.bcdice import DiceRefused
from infra.services.executor import Executor, Idempotency, new_stream_id
from infra.services.roll_answers import (
    RollAnswer,
    RollLogPublic,
    log_public,
    roll_placed,
    rolled,
)
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
        """Open a log and publish the commitment to its server seed."""
        log_id = new_stream_id(idempotency)
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
