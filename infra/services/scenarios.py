"""Application service for scenarios: open, join, start (HP in), close (HP out, exactly once).

Closing writes to several streams: the scenario's close and every participant's carried HP
(GD-HPS-1) on the pilot's sheet and on the unit they last fought in. They go in one
`Ledger.append`, so a table never sees a closed scenario whose pilots still have their old
HP; a retry (same Idempotency-Key) gets the first answer, and a second close decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from uuid import UUID

from domain.aggregate import NotFound
from domain.campaign import campaign, character, scenario, unit
from domain.campaign import character_commands as ch
from domain.campaign import scenario_commands as sc
from domain.campaign import unit_commands as uc
from domain.campaign.character import Character
from domain.campaign.scenario import ParticipantOutcome, Scenario
from domain.campaign.unit import Unit
from domain.events import DomainEvent
from domain.rules.glorious_drive.options import GloriousDriveOptions
from infra.services import answers
from infra.services.answers import ScenarioPublic
from infra.services.executor import (
    NO_GUARD,
    Executor,
    Idempotency,
    IdempotencyKeyReused,
    StaleVersion,
    Write,
    new_stream_id,
    stored,
)
from infra.store.ledger import ConcurrencyConflict, DuplicateRequest, StreamWrite
from infra.store.recorder import IdempotencyRecord

_ATTEMPTS = 5


class ScenarioService:
    """Scenario commands and reads; one per process."""

    def __init__(self, executor: Executor, clock: Callable[[], datetime]) -> None:
        self.executor = executor
        self.clock = clock

    def open(
        self, campaign_id: UUID, by: str, name: str, idempotency: Idempotency | None = None
    ) -> ScenarioPublic:
        """A GM opens a scenario of the campaign."""
        owner = self.executor.load(campaign.KIND, campaign_id).state
        scenario_id = new_stream_id(idempotency)
        events = sc.open_scenario(
            scenario.KIND.initial(scenario_id),
            owner,
            sc.OpenScenario(name=name),
            at=self.clock(),
            by=by,
        )
        return self.executor.create(
            scenario.KIND,
            scenario_id,
            events,
            describe,
            restore=ScenarioPublic.model_validate,
            idempotency=idempotency,
            campaign_id=campaign_id,
        )

    def get(self, scenario_id: UUID) -> tuple[Scenario, int]:
        """The scenario and its version."""
        loaded = self.executor.load(scenario.KIND, scenario_id)
        return loaded.state, loaded.version

    def join(
        self, scenario_id: UUID, by: str, command: sc.JoinScenario, write: Write = NO_GUARD
    ) -> ScenarioPublic:
        """A pilot joins, on foot or in a unit of their own, while the scenario is open."""

        def decide(state: Scenario) -> list[DomainEvent]:
            pilot = self._character(command.character_id)
            core = None if command.unit_id is None else self._unit(command.unit_id)
            return sc.join(state, command, pilot, core, at=self.clock(), by=by)

        return self._run(scenario_id, decide, write)

    def start(self, scenario_id: UUID, by: str, write: Write = NO_GUARD) -> ScenarioPublic:
        """GD-HPS-2/3: every pilot and unit enters at the pilot's carried ratio."""

        def decide(state: Scenario) -> list[DomainEvent]:
            pilots = {p.character_id: self._character(p.character_id) for p in state.participants}
            units = {
                p.unit_id: self._unit(p.unit_id)
                for p in state.participants
                if p.unit_id is not None
            }
            options = self._options(state.campaign_id)
            return sc.start(state, pilots, units, options, at=self.clock(), by=by)

        return self._run(scenario_id, decide, write)

    def close(
        self, scenario_id: UUID, by: str, command: sc.CloseScenario, write: Write = NO_GUARD
    ) -> ScenarioPublic:
        """GD-HPS-1/3: the close and every carried HP, in one atomic append, exactly once."""
        shard = self.executor.ledger.shard_of(scenario_id)  # the campaign's: every carry's too
        earlier = self._earlier_answer(write.idempotency, shard)
        if earlier is not None:
            return earlier
        for attempt in range(_ATTEMPTS):
            try:
                writes, response = self._closing(scenario_id, by, command, write.expected_version)
            except StaleVersion:
                # A retry that raced its own first attempt gets that answer, not a 412.
                earlier = self._earlier_answer(write.idempotency, shard)
                if earlier is None:
                    raise
                return earlier
            record = _record(write.idempotency, response)
            try:
                if writes or record:
                    self.executor.ledger.append(writes, shard=shard, idempotency=record)
            except DuplicateRequest:
                answer = self._earlier_answer(write.idempotency, shard)
                assert answer is not None  # the concurrent request committed it
                return answer
            except ConcurrencyConflict:
                # A pilot's or unit's sheet changed meanwhile: decide again on fresh sheets.
                # If the scenario itself changed, the If-Match check above refuses it.
                if attempt == _ATTEMPTS - 1:
                    raise
                continue
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def _closing(
        self, scenario_id: UUID, by: str, command: sc.CloseScenario, expected: int | None
    ) -> tuple[list[StreamWrite], ScenarioPublic]:
        """Decide the close (nothing if closed already) and the carries still to be made."""
        loaded = self.executor.load(scenario.KIND, scenario_id)
        if expected is not None and loaded.version != expected:
            raise StaleVersion(expected, loaded.version)
        at = self.clock()
        closing = sc.close(loaded.state, command, at=at, by=by)
        closed = loaded.state
        for event in closing:
            closed = scenario.KIND.evolve(closed, event)
        writes = [
            *_write(scenario_id, loaded.version, closing),
            *self._carries(closed, at=at, by=by),
        ]
        return writes, describe(closed, loaded.version + len(closing))

    def _carries(self, closed: Scenario, *, at: datetime, by: str) -> list[StreamWrite]:
        """Each outcome on its pilot's sheet, and on the unit's when they last fought in one."""
        options = self._options(closed.campaign_id)
        writes: list[StreamWrite] = []
        for outcome in closed.outcomes:
            pilot = self.executor.load(character.KIND, outcome.character_id)
            carried = ch.apply_scenario_result(
                pilot.state, closed.id, outcome, options, at=at, by=by
            )
            writes += _write(outcome.character_id, pilot.version, carried)
            if outcome.fought_in != outcome.character_id:
                writes += self._unit_carry(closed.id, outcome, options, at=at, by=by)
        return writes

    def _unit_carry(
        self,
        scenario_id: UUID,
        outcome: ParticipantOutcome,
        options: GloriousDriveOptions,
        *,
        at: datetime,
        by: str,
    ) -> list[StreamWrite]:
        core = self.executor.load(unit.KIND, outcome.fought_in)
        kept = uc.apply_scenario_result(core.state, scenario_id, outcome, options, at=at, by=by)
        return _write(outcome.fought_in, core.version, kept)

    def _earlier_answer(self, idempotency: Idempotency | None, shard: int) -> ScenarioPublic | None:
        if idempotency is None:
            return None
        answer = self.executor.ledger.answer_for(idempotency.key, shard=shard)
        if answer is None:
            return None
        if answer.fingerprint != idempotency.fingerprint:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was already used for a different request; "
                "use a new key for a new request"
            )
        return ScenarioPublic.model_validate(answer.response)

    def _character(self, character_id: UUID) -> Character:
        return self.executor.load(character.KIND, character_id).state

    def _unit(self, unit_id: UUID) -> Unit:
        return self.executor.load(unit.KIND, unit_id).state

    def _options(self, campaign_id: UUID | None) -> GloriousDriveOptions:
        if campaign_id is None:
            raise NotFound("the scenario names no campaign")
        return self.executor.load(campaign.KIND, campaign_id).state.gd_options()

    def _run(
        self, scenario_id: UUID, decide: Callable[[Scenario], list[DomainEvent]], write: Write
    ) -> ScenarioPublic:
        return self.executor.execute(
            scenario.KIND,
            scenario_id,
            decide,
            describe,
            restore=ScenarioPublic.model_validate,
            expected_version=write.expected_version,
            idempotency=write.idempotency,
        )


def _write(stream_id: UUID, version: int, events: Sequence[DomainEvent]) -> list[StreamWrite]:
    return [StreamWrite(stream_id, version, events)] if events else []


def _record(idempotency: Idempotency | None, response: ScenarioPublic) -> IdempotencyRecord | None:
    if idempotency is None:
        return None
    return IdempotencyRecord(idempotency.key, idempotency.fingerprint, stored(response))


describe = answers.scenario  # a scenario as stored (infra/services/answers.py)
