"""Encounter commands through the application service on real PostgreSQL.

Given an open Glorious Drive encounter, each command is one load → decide → save: optimistic
concurrency on the version, idempotent retries, snapshots that rebuild the same state.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from domain.encounter import aggregate as encounter
from domain.rules.errors import RuleViolation
from infra.services.encounters import Actor
from infra.services.executor import Executor, Idempotency, StaleVersion
from infra.services.runtime import Runtime
from infra.store.ledger import ConcurrencyConflict
from tests.support.runtime import start_runtime
from tests.unit.encounter.table import sheet, weapon

pytestmark = pytest.mark.postgres

GM, P1 = Actor("gm", is_gm=True), Actor("p1")


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


def opened_fight(runtime: Runtime) -> uuid.UUID:
    service = runtime.encounters
    answer = service.open(GM, ruleset_id="glorious_drive", options={}, battle_map={})
    fight = uuid.UUID(answer.id)
    joins: list[tuple[str, str, str, dict[str, Any]]] = [
        ("ace", "p1", "pc", sheet(1, 1, reaction=10, weapons=[weapon()])),
        ("grunt", "gm", "enemy", sheet(3, 1, reaction=2)),
    ]
    for combatant, controller, side, body in joins:
        service.command(
            fight,
            GM,
            "JoinCombatant",
            {
                "combatant_id": combatant,
                "name": combatant,
                "side": side,
                "controller": controller,
                "sheet": body,
            },
        )
    return fight


def test_given_an_open_fight_when_initiative_is_rolled_then_dice_precede_the_ruling(
    runtime: Runtime,
) -> None:
    fight = opened_fight(runtime)
    answer = runtime.encounters.command(fight, GM, "RollInitiative", {})
    assert answer.events[:2] == ["CommandIssued", "EncounterDiceRolled"]
    assert "GD-INIT-1" in answer.rulings[0].rule_ids
    state, version = runtime.encounters.state(fight)
    assert version == answer.version
    assert state.rules.order == ("ace", "grunt")


def test_a_stale_if_match_is_refused_with_the_current_version(runtime: Runtime) -> None:
    fight = opened_fight(runtime)
    _, now = runtime.encounters.state(fight)  # opened, then two joins (each recorded + joined)
    with pytest.raises(StaleVersion) as refused:
        runtime.encounters.command(fight, GM, "RollInitiative", {}, expected_version=1)
    assert refused.value.current == now == 5


def test_a_command_out_of_turn_cites_the_rule_and_appends_nothing(runtime: Runtime) -> None:
    fight = opened_fight(runtime)
    _, before = runtime.encounters.state(fight)
    with pytest.raises(RuleViolation) as refused:
        runtime.encounters.command(fight, P1, "Cleanup", {"combatant_id": "ace"})
    assert refused.value.rule_id == "GD-TURN-1"
    assert runtime.encounters.state(fight)[1] == before


def test_a_retried_command_with_the_same_key_appends_once(runtime: Runtime) -> None:
    fight = opened_fight(runtime)
    key = Idempotency("gm:roll-1", "fingerprint")
    first = runtime.encounters.command(fight, GM, "RollInitiative", {}, idempotency=key)
    again = runtime.encounters.command(fight, GM, "RollInitiative", {}, idempotency=key)
    assert again == first
    assert runtime.encounters.state(fight)[1] == first.version


def test_two_commands_on_one_version_exactly_one_succeeds(runtime: Runtime) -> None:
    fight = opened_fight(runtime)
    _, version = runtime.encounters.state(fight)
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def roll() -> None:
        barrier.wait()
        try:
            runtime.encounters.command(fight, GM, "RollInitiative", {}, expected_version=version)
            outcomes.append("ok")
        except (StaleVersion, ConcurrencyConflict, RuleViolation):
            outcomes.append("refused")

    threads = [threading.Thread(target=roll) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ok", "refused", "refused", "refused"]


def test_a_snapshot_rebuilds_the_same_state_as_the_events(runtime: Runtime) -> None:
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    state, version = runtime.encounters.state(fight)
    snapshots = encounter.KIND.snapshot
    assert snapshots is not None
    runtime.ledger.save_snapshot(
        fight, version, f"snapshot:encounter:{snapshots.version}", snapshots.dump(state)
    )
    from_snapshot, _ = runtime.encounters.state(fight)
    replayed = encounter.KIND.rebuild(fight, (r.event for r in runtime.ledger.read(fight)))
    assert from_snapshot == state == replayed


def test_after_the_reveal_every_server_die_recomputes(runtime: Runtime) -> None:
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    runtime.encounters.reveal(fight, GM)
    state, _ = runtime.encounters.state(fight)
    checks = encounter.audit(state, encounter.rolls_of(r.event for r in runtime.ledger.read(fight)))
    assert checks
    assert all(check.verified for check in checks)


def test_a_cached_state_never_hides_what_another_process_appended(runtime: Runtime) -> None:
    """Two API processes share a database: each caches states, neither may serve a stale one."""
    from infra.services.encounters import EncounterService
    from infra.services.executor import Executor

    fight = opened_fight(runtime)
    elsewhere = EncounterService(
        Executor(runtime.ledger), runtime.dice_key, runtime.encounters.clock
    )
    _, cached_here = runtime.encounters.state(fight)  # cached in this process
    elsewhere.command(fight, GM, "RollInitiative", {})  # appended by the other process
    state, version = runtime.encounters.state(fight)
    assert version > cached_here
    assert state.rules.order == ("ace", "grunt")


class _CountingLooks(Executor):
    """An API process that counts its looks for a stored answer (each one a read)."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime.ledger)
        self.looks = 0

    def _earlier_answer(self, idempotency: Idempotency | None, shard: int) -> Any:
        self.looks += 1
        return super()._earlier_answer(idempotency, shard)


def test_a_retry_that_raced_its_committing_first_attempt_gets_its_answer_not_a_412(
    runtime: Runtime,
) -> None:
    """Given a command committed under a key at If-Match v, when its retry (same key, same
    If-Match) finds the stream at v+n (on another process, which never saw the first answer),
    then it answers as the first attempt did: a 412 would tell the client to send the command
    again, which would apply it twice."""
    from infra.services.encounters import EncounterService

    fight = opened_fight(runtime)
    _, version = runtime.encounters.state(fight)
    key = Idempotency("gm:initiative-1", "fingerprint")
    first = runtime.encounters.command(
        fight, GM, "RollInitiative", {}, expected_version=version, idempotency=key
    )
    racing = EncounterService(_CountingLooks(runtime), runtime.dice_key, runtime.encounters.clock)
    again = racing.command(
        fight, GM, "RollInitiative", {}, expected_version=version, idempotency=key
    )
    assert again == first
    assert runtime.encounters.state(fight)[1] == first.version
    with pytest.raises(StaleVersion):  # a different request at that version is still stale
        racing.command(fight, GM, "RollInitiative", {}, expected_version=version)


def test_a_first_request_under_a_key_never_looks_for_an_earlier_answer(runtime: Runtime) -> None:
    """Given a command under a new key, when it is decided and appended, then no stored answer
    is read first: the key's unique index, in the append itself, is what catches a repeat."""
    from infra.services.encounters import EncounterService

    fight = opened_fight(runtime)
    counting = _CountingLooks(runtime)
    service = EncounterService(counting, runtime.dice_key, runtime.encounters.clock)
    service.command(fight, GM, "RollInitiative", {}, idempotency=Idempotency("gm:1", "fp"))
    assert counting.looks == 0


def test_a_retry_after_the_state_moved_on_gets_the_first_answer_and_appends_nothing(
    runtime: Runtime,
) -> None:
    """Given RollInitiative committed under a key (no If-Match), when it is sent again with the
    key and initiative is no longer legal (GD procedure), then the first answer comes back,
    not the rule refusal, and nothing is appended; another key gets the refusal."""
    fight = opened_fight(runtime)
    key = Idempotency("gm:initiative-2", "fingerprint")
    first = runtime.encounters.command(fight, GM, "RollInitiative", {}, idempotency=key)
    again = runtime.encounters.command(fight, GM, "RollInitiative", {}, idempotency=key)
    assert again == first
    assert runtime.encounters.state(fight)[1] == first.version
    with pytest.raises(RuleViolation):
        runtime.encounters.command(
            fight, GM, "RollInitiative", {}, idempotency=Idempotency("gm:other", "fingerprint")
        )


def test_a_command_decided_on_the_state_its_caller_read_reads_the_stream_no_more(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given the state the API read to authorise a command, when the command is decided on
    it, then the stream is not read again."""
    fight = opened_fight(runtime)
    loaded = runtime.encounters.state(fight)
    reads: list[uuid.UUID] = []
    real_read = runtime.ledger.read

    def counted(stream_id: uuid.UUID, **kwargs: Any) -> Any:
        reads.append(stream_id)
        return real_read(stream_id, **kwargs)

    monkeypatch.setattr(runtime.ledger, "read", counted)
    answer = runtime.encounters.command(
        fight, GM, "RollInitiative", {}, expected_version=loaded[1], loaded=loaded
    )
    assert answer.version > loaded[1]
    assert reads == []


def test_a_command_decided_on_a_state_another_command_moved_on_is_decided_again(
    runtime: Runtime,
) -> None:
    """Given a state read before another command appended (no If-Match), when a command is
    decided on it, then the append is refused on its version and the command is decided again
    on the fresh state: nothing is lost or applied on the old state."""
    fight = opened_fight(runtime)
    old = runtime.encounters.state(fight)
    moved = runtime.encounters.command(fight, GM, "RollInitiative", {})
    with pytest.raises(RuleViolation):  # initiative is rolled: refused on the fresh state
        runtime.encounters.command(fight, GM, "RollInitiative", {}, loaded=old)
    assert runtime.encounters.state(fight)[1] == moved.version


def test_a_command_read_by_the_api_is_recorded_as_its_payload_would_be(
    runtime: Runtime,
) -> None:
    """Given two fights, when one gets RollInitiative as the API read it (a domain command, not
    validated again) and the other by name and payload, then both record the same
    CommandIssued and the same effects; a command of another ruleset's class is read as this
    encounter's own (WZ's RollInitiative has a field GD's forbids: refused, nothing appended)."""
    from pydantic import ValidationError

    from domain.encounter.record import CommandIssued
    from domain.rules.glorious_drive import commands as gd
    from domain.rules.wizardry_round import commands as wz

    read, named = opened_fight(runtime), opened_fight(runtime)
    by_object = runtime.encounters.command(read, GM, "RollInitiative", gd.RollInitiative())
    by_name = runtime.encounters.command(named, GM, "RollInitiative", {})
    assert by_object.events == by_name.events

    def issued(fight: uuid.UUID) -> list[dict[str, Any]]:
        recorded = runtime.executor.ledger.read(fight)
        return [
            r.event.model_dump(exclude={"at"})
            for r in recorded
            if isinstance(r.event, CommandIssued)
        ]

    assert issued(read) == issued(named)
    before = runtime.encounters.state(read)[1]
    with pytest.raises(ValidationError):
        runtime.encounters.command(
            read, GM, "RollInitiative", wz.RollInitiative(representative="fighter")
        )
    assert runtime.encounters.state(read)[1] == before
