"""Roll logs, in the words of docs/architecture.md "Dice you can verify": given events, when,
then."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from domain import roll_log
from domain.dice import commitment, derive_server_seed

AT = datetime(2026, 11, 30, tzinfo=UTC)
KEY = bytes(range(32))
LOG = uuid.UUID("00000000-0000-4000-8000-000000000001")
SEED = derive_server_seed(KEY, LOG)


def given(*events: roll_log.DomainEvent) -> roll_log.RollLog:
    return roll_log.KIND.rebuild(LOG, events)


def opened() -> roll_log.RollLogOpened:
    return roll_log.RollLogOpened(name="table", commitment=commitment(SEED), at=AT, by="gm")


def test_when_dice_are_rolled_then_the_roll_sequence_counts_earlier_rolls() -> None:
    state = given(opened())
    first = roll_log.roll_dice(
        state, "2D6", server_seed=SEED, client_seed=None, purpose="test", at=AT, by="gm"
    )
    state = given(opened(), *first)
    second = roll_log.roll_dice(
        state, "1D100", server_seed=SEED, client_seed="p1", purpose="test", at=AT, by="gm"
    )
    assert isinstance(second[0], roll_log.DiceRolled)
    assert second[0].result.roll_seq == 1
    assert second[0].result.client_seed == "p1"


def test_given_a_revealed_seed_when_rolling_then_it_is_refused() -> None:
    revealed = roll_log.reveal(given(opened()), SEED, at=AT, by="gm")
    with pytest.raises(roll_log.RollLogClosed):
        roll_log.roll_dice(
            given(opened(), *revealed),
            "1D6",
            server_seed=SEED,
            client_seed=None,
            purpose="test",
            at=AT,
            by="gm",
        )


def test_given_a_revealed_log_every_roll_recomputes() -> None:
    events: list[roll_log.DomainEvent] = [opened()]
    for expression in ["2D6+3", "1D100<=65", "D66"]:
        events += roll_log.roll_dice(
            given(*events),
            expression,
            server_seed=SEED,
            client_seed=None,
            purpose="test",
            at=AT,
            by="gm",
        )
    events += roll_log.reveal(given(*events), SEED, at=AT, by="gm")
    assert all(check.verified for check in roll_log.audit(given(*events)))


def test_given_an_edited_face_the_audit_names_that_roll() -> None:
    events: list[roll_log.DomainEvent] = [opened()]
    events += roll_log.roll_dice(
        given(*events), "2D6", server_seed=SEED, client_seed=None, purpose="test", at=AT, by="gm"
    )
    rolled = events[-1]
    assert isinstance(rolled, roll_log.DiceRolled)
    face = rolled.result.rands[0]
    edited = rolled.result.model_copy(
        update={
            "rands": (
                face.model_copy(update={"value": face.value % 6 + 1}),
                *rolled.result.rands[1:],
            )
        }
    )
    events[-1] = roll_log.DiceRolled(result=edited, at=AT, by="gm")
    events += roll_log.reveal(given(*events), SEED, at=AT, by="gm")
    checks = roll_log.audit(given(*events))
    assert not checks[0].ok


def test_given_a_seed_that_does_not_match_the_commitment_the_audit_fails() -> None:
    wrong = roll_log.DiceSeedRevealed(server_seed=(b"x" * 32).hex(), at=AT, by="gm")
    with pytest.raises(ValueError, match="commitment"):
        roll_log.audit(given(opened(), wrong))


def test_same_events_rebuild_the_same_state() -> None:
    events: list[roll_log.DomainEvent] = [opened()]
    events += roll_log.roll_dice(
        given(*events),
        "3D6<=10",
        server_seed=SEED,
        client_seed=None,
        purpose="test",
        at=AT,
        by="gm",
    )
    assert given(*events) == given(*events)


def _runaway() -> list[roll_log.DomainEvent]:
    """A reroll chain that client seed "c" runs past the command's work budget (5,000 dice)."""
    return roll_log.roll_dice(
        given(opened()),
        "1U10000[2]",
        server_seed=SEED,
        client_seed="c",
        purpose="t",
        at=AT,
        by="aoi",
    )


def test_when_a_roll_is_refused_after_its_dice_then_it_is_recorded_and_the_next_roll_follows() -> (
    None
):
    refused = _runaway()
    assert isinstance(refused[0], roll_log.DiceRollRefused)
    assert refused[0].result.roll_seq == 0
    assert "too much work" in refused[0].reason
    assert len(refused[0].result.rands) == 5_000
    state = given(opened(), *refused)
    assert state.refused == {0: refused[0].reason}
    after = roll_log.roll_dice(
        state, "1D6", server_seed=SEED, client_seed=None, purpose="t", at=AT, by="aoi"
    )
    assert after[0].result.roll_seq == 1
    revealed = roll_log.reveal(given(opened(), *refused, *after), SEED, at=AT, by="gm")
    checks = roll_log.audit(given(opened(), *refused, *after, *revealed))
    assert [check.verified for check in checks] == [True, True]


def test_when_a_refused_rolls_recorded_die_is_changed_then_the_audit_names_it() -> None:
    (refused,) = _runaway()
    assert isinstance(refused, roll_log.DiceRollRefused)
    rands = (refused.result.rands[0].model_copy(update={"value": 1}), *refused.result.rands[1:])
    forged = refused.model_copy(
        update={"result": refused.result.model_copy(update={"rands": rands})}
    )
    revealed = roll_log.DiceSeedRevealed(server_seed=SEED.hex(), at=AT, by="gm")
    (check,) = roll_log.audit(given(opened(), forged, revealed))
    assert not check.verified
    assert check.problems[0].startswith("die 1: recorded 1")
