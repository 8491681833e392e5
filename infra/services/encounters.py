"""Application service for encounters: every command is load → decide → save, in one transaction.

The server seed of an encounter is derived from the master key and never stored; only its
commitment is, at opening. Commands name the version they were decided on (If-Match), and
the response carries what was appended so a client can show the rulings at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from domain.aggregate import Decided
from domain.dice import RollResult, Verification, commitment, derive_server_seed
from domain.encounter import aggregate as encounter
from domain.encounter.commands import RevealSeed
from domain.encounter.record import issued
from domain.events import DomainEvent, JsonObject
from domain.rules.records import CommandRefusedAfterDice, refusal_line
from domain.rules.ruleset import Command, CommandContext
from infra.services.encounter_answers import CommandAnswer, command_answer, placed
from infra.services.executor import (
    Executor,
    Idempotency,
    Loaded,
    StaleVersion,
    new_stream_id,
)
from infra.store.ledger import ConcurrencyConflict
from infra.store.mapper import Recorded
from infra.store.stream_page import read_page

_SEEDS_KEPT = 4096


class RefusedAfterDice(ValueError):
    """A command refused after its server dice were drawn (issue 33 §1): its dice and the
    refusal are recorded (`CommandRefusedAfterDice`), then it is answered as refused. The
    message is the rule and a fixed sentence: nothing in it depends on what a die showed."""

    def __init__(self, answer: CommandAnswer) -> None:
        refusal = answer.facts[-1].payload
        rule_id = refusal.get("rule_id")
        self.rule_id = rule_id if isinstance(rule_id, str) else None
        self.version = answer.version
        en, _ = refusal_line(str(refusal.get("command_type")), self.rule_id)
        super().__init__(f"{en}; reload the encounter and go on from there")
        self.answer = answer


def refused_after_dice(answer: CommandAnswer) -> bool:
    """Whether the command this answers was refused after drawing its dice (a retry's stored
    answer says so too, and is refused alike)."""
    return bool(answer.events) and answer.events[-1] == CommandRefusedAfterDice.event_type


@dataclass(frozen=True)
class Actor:
    """Who is acting: a campaign member id, and whether they are the GM of this table."""

    member_id: str
    is_gm: bool = False


class EncounterService:
    """Runs Encounter commands; one per process."""

    def __init__(self, executor: Executor, master_key: bytes, clock: Callable[[], datetime]):
        self.executor = executor
        self.master_key = master_key
        self.clock = clock
        self._seeds: dict[UUID, bytes] = {}

    def seed_of(self, encounter_id: UUID) -> bytes:
        # Asked twice a command, an HMAC each time; the seed is a pure function of the key
        # and the id, so it is kept once derived (for a bounded number of encounters; this
        # process derives any of them from the key anyway).
        seed = self._seeds.get(encounter_id)
        if seed is None:
            if len(self._seeds) >= _SEEDS_KEPT:
                self._seeds.clear()
            seed = self._seeds[encounter_id] = derive_server_seed(self.master_key, encounter_id)
        return seed

    def open(
        self,
        actor: Actor,
        *,
        ruleset_id: str,
        options: JsonObject,
        battle_map: JsonObject,
        encounter_id: UUID | None = None,
        campaign_id: UUID | None = None,
        scenario_id: UUID | None = None,
        dice: str = "server",
        idempotency: Idempotency | None = None,
    ) -> CommandAnswer:
        """Open an encounter and publish the commitment to its dice seed; `dice`: whose dice
        (server, hand, per_roll; issue 19)."""
        encounter_id = encounter_id or new_stream_id(idempotency)
        payload = {
            "ruleset_id": ruleset_id,
            "options": options,
            "battle_map": battle_map,
            "commitment": commitment(self.seed_of(encounter_id)),
            "campaign_id": campaign_id,
            "scenario_id": scenario_id,
            "dice": dice,
        }
        command = encounter.parse_command(
            encounter.KIND.initial(encounter_id), "OpenEncounter", payload
        )
        events = encounter.decide(
            encounter.KIND.initial(encounter_id), command, self._context(actor)
        )
        return self.executor.create(
            encounter.KIND,
            encounter_id,
            events,
            _respond([]),
            restore=CommandAnswer.model_validate,
            idempotency=idempotency,
            campaign_id=campaign_id,
        )

    def command(
        self,
        encounter_id: UUID,
        actor: Actor,
        command_type: str,
        payload: Command | JsonObject,
        *,
        expected_version: int | None = None,
        client_seed: str | None = None,
        hand_faces: Sequence[int] | None = None,
        hand: bool | None = None,
        idempotency: Idempotency | None = None,
        loaded: tuple[encounter.Encounter, int] | None = None,
    ) -> CommandAnswer:
        """Any encounter or ruleset command: by name and payload, or as the API has read it
        already (`payload` a Command, not validated again). `loaded`: the state and version
        the caller has just read, decided on without reading the stream again
        (`Executor.execute` says why that is safe)."""
        appended: list[DomainEvent] = []

        def decide(state: encounter.Encounter) -> Decided[encounter.Encounter]:
            # `issued` records the command itself before its effects, so it can be replayed.
            outcome = issued(
                state,
                _read(state, command_type, payload, self.seed_of(encounter_id)),
                self._context(actor, client_seed),
                server_seed=self.seed_of(encounter_id),
                hand_faces=hand_faces,
                hand=hand,
            )
            appended[:] = outcome.events
            return outcome

        try:
            answer = self.executor.execute(
                encounter.KIND,
                encounter_id,
                decide,
                _respond(appended),
                restore=CommandAnswer.model_validate,
                expected_version=expected_version,
                idempotency=idempotency,
                loaded=None if loaded is None else Loaded(*loaded),
                placed=placed,
            )
        except ConcurrencyConflict:
            if expected_version is None:
                raise
            # Another command on the same version won the append: to this client that is
            # exactly a stale If-Match (412), not a conflict it could retry blindly.
            raise StaleVersion(expected_version, self.state(encounter_id)[1]) from None
        answer = self._placed_back(encounter_id, answer)
        if refused_after_dice(answer):
            raise RefusedAfterDice(answer)
        return answer

    def _placed_back(self, encounter_id: UUID, answer: CommandAnswer) -> CommandAnswer:
        """A retry's answer (stored with the events, before the append placed them) with its
        facts' positions read back, so that it answers as the first attempt did."""
        facts = answer.facts
        if not facts or all(fact.position is not None for fact in facts):
            return answer
        page = read_page(
            self.executor.ledger, encounter_id, after=facts[0].version - 1, limit=len(facts)
        )
        return placed(answer, [r.position or 0 for r in page])

    def reveal(
        self, encounter_id: UUID, actor: Actor, *, idempotency: Idempotency | None = None
    ) -> CommandAnswer:
        """The GM publishes the seed: from now on anyone can recompute every die."""
        return self.command(
            encounter_id, actor, "RevealSeed", {"server_seed": "0" * 64}, idempotency=idempotency
        )

    def state(self, encounter_id: UUID, *, version: int | None = None) -> tuple[Any, int]:
        """The encounter now, or as it stood at `version`."""
        loaded = self.executor.load(encounter.KIND, encounter_id, upto=version)
        return loaded.state, loaded.version

    def at_least(self, encounter_id: UUID, version: int) -> encounter.Encounter:
        """The encounter at `version` or newer, without a read when this process holds it
        (after its own command, say)."""
        return self.executor.at_least(encounter.KIND, encounter_id, version).state

    def through(self, encounter_id: UUID, read: Sequence[Recorded]) -> encounter.Encounter:
        """The encounter at least as new as the last of its events just `read`, without a
        read of its own when this process holds it (`Executor.through`)."""
        return self.executor.through(encounter.KIND, encounter_id, read).state

    def held_through(
        self, encounter_id: UUID, read: Sequence[Recorded]
    ) -> encounter.Encounter | None:
        """`through` without any read: None when this process does not hold the encounter
        as it stood before `read`."""
        held = self.executor.held_through(encounter.KIND, encounter_id, read)
        return None if held is None else held.state

    def known(self, encounter_id: UUID) -> tuple[encounter.Encounter, int]:
        """The encounter as this process last knew it, without a read when it can: to
        authorise and decide a command on (`Executor.known` says why that is safe), never to
        answer a read with."""
        loaded = self.executor.known(encounter.KIND, encounter_id)
        return loaded.state, loaded.version

    def audit(
        self, encounter_id: UUID
    ) -> tuple[encounter.Encounter, list[RollResult], list[Verification]]:
        """Every recorded die, recomputed from the revealed seed."""
        recorded = self.executor.ledger.read(encounter_id)
        state = encounter.KIND.rebuild(encounter_id, (r.event for r in recorded))
        rolls = encounter.rolls_of(r.event for r in recorded)
        return state, rolls, encounter.audit(state, rolls)

    def _context(self, actor: Actor, client_seed: str | None = None) -> CommandContext:
        return CommandContext(
            at=self.clock(), by=actor.member_id, is_gm=actor.is_gm, client_seed=client_seed
        )


def _read(
    state: encounter.Encounter, command_type: str, payload: Command | JsonObject, seed: bytes
) -> Command:
    """The command: as the API read it, or read here from its name and payload. The seed is
    only ever revealed as the encounter's own, whatever the client sent."""
    if isinstance(payload, Command):
        if isinstance(payload, RevealSeed):
            return RevealSeed(server_seed=seed.hex())
        if type(payload) is encounter.command_class(state, payload.command_type):
            return payload
        # Read as another ruleset's command of that name: read it as this encounter's own.
        command_type, payload = payload.command_type, payload.model_dump(mode="json")
    if command_type == "RevealSeed":
        payload = payload | {"server_seed": seed.hex()}
    return encounter.parse_command(state, command_type, payload)


def _respond(appended: list[DomainEvent]) -> Callable[[encounter.Encounter, int], CommandAnswer]:
    """The answer (also what a retried request gets back) to the events `appended` holds
    once the command has been decided."""

    def respond(state: encounter.Encounter, version: int) -> CommandAnswer:
        return command_answer(state, version, appended)

    return respond
