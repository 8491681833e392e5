"""Disputes, what-if replays and time travel of encounters (issue 6), over the ledger.

A replay reads the stored stream and never writes. Dice the original never rolled come only
from the *revealed* seed: before the reveal the server keeps its own seed to itself here too,
or a what-if would leak tomorrow's dice.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

from domain.encounter import aggregate as encounter
from domain.encounter import disputes, history
from domain.encounter.replay import Amendment, ReplayResult, replay
from domain.events import DomainEvent, JsonObject
from infra.services.encounter_answers import DisputeAnswer
from infra.services.encounters import Actor
from infra.services.executor import Executor, Idempotency


class DisputeService:
    """Disputes and replays of encounters; one per process."""

    def __init__(self, executor: Executor, clock: Callable[[], datetime]) -> None:
        self.executor = executor
        self.clock = clock

    def events(self, encounter_id: UUID) -> list[DomainEvent]:
        return [r.event for r in self.executor.ledger.read(encounter_id)]

    def what_if(
        self,
        encounter_id: UUID,
        *,
        options: JsonObject | None = None,
        amendment: Amendment | None = None,
    ) -> ReplayResult:
        """Re-run the recorded commands under other options or with one command amended."""
        loaded = self.executor.load(encounter.KIND, encounter_id)  # cached: no second rebuild
        events = self.events(encounter_id)[: loaded.version]
        state = loaded.state
        seed = bytes.fromhex(state.revealed_seed) if state.revealed_seed else None
        return replay(
            encounter_id, events, options=options, amendment=amendment, seed=seed, original=state
        )

    def at_point(
        self, encounter_id: UUID, turn: int, phase: str | None, step: str | None
    ) -> tuple[encounter.Encounter, int]:
        state = history.at_point(encounter_id, self.events(encounter_id), turn, phase, step)
        return state, state.version

    def file(
        self,
        encounter_id: UUID,
        actor: Actor,
        ruling_version: int,
        reason: str,
        idempotency: Idempotency | None = None,
    ) -> DisputeAnswer:
        """Any player or the GM disputes a ruling, with a reason."""
        dispute_id = secrets.token_hex(4)
        events = self.events(encounter_id)
        return self._save(
            encounter_id,
            lambda state: disputes.file_dispute(
                state,
                events,
                ruling_version,
                reason,
                dispute_id,
                at=self.clock(),
                by=actor.member_id,
            ),
            idempotency,
            dispute_id,
        )

    def uphold(
        self,
        encounter_id: UUID,
        actor: Actor,
        dispute_id: str,
        note: str,
        idempotency: Idempotency | None = None,
    ) -> DisputeAnswer:
        return self._save(
            encounter_id,
            lambda state: disputes.uphold(
                state, dispute_id, note, is_gm=actor.is_gm, at=self.clock(), by=actor.member_id
            ),
            idempotency,
            dispute_id,
        )

    def amend(
        self,
        encounter_id: UUID,
        actor: Actor,
        dispute_id: str,
        note: str,
        *,
        options: JsonObject,
        amendment: Amendment | None,
        idempotency: Idempotency | None = None,
    ) -> DisputeAnswer:
        """The GM adopts a replay: its differences are appended as corrections."""
        result = self.what_if(encounter_id, options=options, amendment=amendment)
        return self._save(
            encounter_id,
            lambda state: disputes.amend(
                state,
                dispute_id,
                result,
                note,
                amendment=amendment,
                options=options,
                is_gm=actor.is_gm,
                at=self.clock(),
                by=actor.member_id,
            ),
            idempotency,
            dispute_id,
            result.differences,
        )

    def _save(
        self,
        encounter_id: UUID,
        decide: Callable[[encounter.Encounter], list[DomainEvent]],
        idempotency: Idempotency | None,
        dispute_id: str,
        corrections: dict[str, Any] | None = None,
    ) -> DisputeAnswer:
        def respond(state: encounter.Encounter, version: int) -> DisputeAnswer:
            return DisputeAnswer(
                id=str(state.id), version=version, dispute_id=dispute_id, corrections=corrections
            )

        return self.executor.execute(
            encounter.KIND,
            encounter_id,
            decide,
            respond,
            restore=DisputeAnswer.model_validate,
            idempotency=idempotency,
        )
