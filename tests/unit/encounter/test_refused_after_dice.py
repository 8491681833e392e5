"""Issue 33 §1 for encounter commands: a command refused after its server dice were drawn is
recorded with those dice, and answered without any number they gave.

Given an encounter of a test-only ruleset whose commands refuse after drawing (risky_toss.py),
when such a command is issued, then its dice and `CommandRefusedAfterDice` are its outcome
(their sequences used up, each verifiable after the reveal), and the next command draws the
next sequence's dice; a refusal before any die, or after dice entered by hand, changes nothing
(as before).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import pytest

from domain.dice import commitment, fair_die
from domain.encounter import aggregate
from domain.encounter.commands import OpenEncounter, RevealSeed
from domain.encounter.record import CommandIssued, issued
from domain.encounter.replay import replay
from domain.errors import WrongState
from domain.events import DomainEvent
from domain.rules.errors import RuleViolation
from domain.rules.records import CommandRefusedAfterDice, EncounterDiceRolled, RulingRecorded
from domain.rules.ruleset import Command, CommandContext
from projections.render import render
from tests.unit.encounter.risky_toss import Bet, Dare, Flip, Peek, registered, risky_toss
from tests.unit.encounter.table import AT, ENCOUNTER, GM, SEED


@pytest.fixture(autouse=True)
def _risky_toss() -> Iterator[None]:
    with registered(risky_toss()):
        yield


class Toss:
    """A risky-toss encounter in progress: every event so far and the state they lead to."""

    def __init__(self) -> None:
        opened = OpenEncounter(ruleset_id="risky_toss", commitment=commitment(SEED))
        self.events: list[DomainEvent] = aggregate.decide(
            aggregate.KIND.initial(ENCOUNTER), opened, GM
        )
        self.state = aggregate.KIND.rebuild(ENCOUNTER, self.events)

    def do(
        self, command: Command, *, by: CommandContext = GM, faces: Sequence[int] | None = None
    ) -> list[DomainEvent]:
        outcome = issued(self.state, command, by, server_seed=SEED, hand_faces=faces)
        self.state = outcome.state
        self.events += outcome.events
        return outcome.events


def seed_showing(face: int, roll_seq: int, sides: int = 2) -> CommandContext:
    """The GM's context with a client seed whose first die at `roll_seq` shows `face`."""
    client_seed = next(
        s
        for s in (f"s{n}" for n in range(100))
        if fair_die(SEED, ENCOUNTER, roll_seq, 0, sides, s) == face
    )
    return GM.model_copy(update={"client_seed": client_seed})


def test_a_flip_refused_by_its_own_die_is_recorded_with_that_die() -> None:
    toss = Toss()
    tails = seed_showing(2, roll_seq=0)
    events = toss.do(Flip(), by=tails)
    assert [type(e) for e in events] == [
        CommandIssued,
        EncounterDiceRolled,
        CommandRefusedAfterDice,
    ]
    rolled, refused = events[1], events[2]
    assert isinstance(rolled, EncounterDiceRolled)
    assert isinstance(refused, CommandRefusedAfterDice)
    assert (rolled.result.roll_seq, rolled.result.total, rolled.result.source) == (0, 2, "server")
    assert rolled.result.client_seed == tails.client_seed
    assert (refused.command_type, refused.rule_id, refused.roll_seqs) == ("Flip", "RT-2", (0,))
    assert toss.state.roll_count == 1
    assert toss.state.rulings == 0  # nothing the refused command decided is kept


def test_after_a_refusal_the_next_command_draws_the_next_sequences_die() -> None:
    toss = Toss()
    toss.do(Flip(), by=seed_showing(2, roll_seq=0))
    events = toss.do(Flip(), by=seed_showing(1, roll_seq=1))
    (rolled,) = [e for e in events if isinstance(e, EncounterDiceRolled)]
    assert rolled.result.roll_seq == 1
    assert rolled.result.total == fair_die(SEED, ENCOUNTER, 1, 0, 2, rolled.result.client_seed)
    assert [type(e) for e in events][-1] is RulingRecorded


def test_a_die_already_ruled_on_is_recorded_with_the_refusal_that_followed_it() -> None:
    toss = Toss()
    events = toss.do(Bet(), by=seed_showing(1, roll_seq=0))  # heads ruled, then the bet's die
    assert [e.event_type for e in events] == [
        "CommandIssued",
        "EncounterDiceRolled",
        "EncounterDiceRolled",
        "CommandRefusedAfterDice",
    ]
    refused = events[-1]
    assert isinstance(refused, CommandRefusedAfterDice)
    assert refused.roll_seqs == (0, 1)
    assert (toss.state.roll_count, toss.state.rulings) == (2, 0)


def test_a_refusal_by_no_game_rule_after_dice_is_recorded_without_a_rule() -> None:
    toss = Toss()
    refused = toss.do(Dare())[-1]
    assert isinstance(refused, CommandRefusedAfterDice)
    assert (refused.command_type, refused.rule_id, refused.roll_seqs) == ("Dare", None, (0,))


def test_a_refusal_before_any_die_changes_nothing() -> None:
    toss = Toss()
    before = toss.state
    with pytest.raises(RuleViolation) as refused:
        toss.do(Peek())
    assert refused.value.rule_id == "RT-3"
    assert toss.state == before


def test_a_refusal_after_dice_entered_by_hand_changes_nothing() -> None:
    """Faces typed in came with the request: the refusal depends on nothing off the record."""
    toss = Toss()
    before = toss.state
    with pytest.raises(RuleViolation, match="RT-2"):
        toss.do(Flip(), faces=[2])
    with pytest.raises(WrongState):
        toss.do(Dare(), faces=[6])
    assert toss.state == before


def test_the_refused_commands_dice_verify_after_the_reveal() -> None:
    toss = Toss()
    toss.do(Flip(), by=seed_showing(2, roll_seq=0))
    toss.do(Bet(), by=seed_showing(1, roll_seq=1))
    toss.do(Dare())
    toss.do(Flip(), by=seed_showing(1, roll_seq=4))
    toss.do(RevealSeed(server_seed=SEED.hex()))
    rolls = aggregate.rolls_of(toss.events)
    assert [r.roll_seq for r in rolls] == [0, 1, 2, 3, 4]
    checks = aggregate.audit(toss.state, rolls)
    assert all(c.verified for c in checks), checks


def test_the_refusals_log_line_names_the_rule_and_no_number_a_die_gave() -> None:
    toss = Toss()
    refused = toss.do(Bet(), by=seed_showing(1, roll_seq=0))[-1]
    en, ja = render(refused)
    assert en.startswith("gm: RT-2: Bet was refused after its dice were drawn")
    assert "RT-2" in ja
    assert "ダイスを振った後に却下" in ja
    for line in (en, ja):
        assert not re.findall(r"\d", line.replace("RT-2", "")), line


def test_a_refused_command_replays_to_the_same_refusal_and_is_listed_unapplied() -> None:
    toss = Toss()
    toss.do(Flip(), by=seed_showing(1, roll_seq=0))
    toss.do(Flip(), by=seed_showing(2, roll_seq=1))
    toss.do(Flip(), by=seed_showing(1, roll_seq=2))
    replayed = replay(ENCOUNTER, toss.events, seed=SEED)
    assert replayed.complete
    assert replayed.divergence is None
    assert replayed.extra_dice == []
    (skipped,) = replayed.unapplied
    assert (skipped.command, skipped.command_type, skipped.reason, skipped.rule_id) == (
        1,
        "Flip",
        "refused",
        "RT-2",
    )
    assert not re.findall(r"\d", skipped.message.replace("RT-2", ""))
    assert replayed.state is not None
    assert replayed.state.roll_count == toss.state.roll_count
    assert replayed.state.rulings == toss.state.rulings == 2


def test_the_refusal_event_is_stamped_with_who_refused_and_when() -> None:
    toss = Toss()
    refused = toss.do(Dare(), by=CommandContext(at=AT, by="gm", is_gm=True))[-1]
    assert (refused.at, refused.by) == (AT, "gm")
