"""Issue 33 §1, as properties: no answer, and no word of it, depends on a die not on the record.

Given a roll log and any commands (some refused before their dice, some after), when the next
roll is rolled, then its dice are the ones the seed gives for the next sequence: a refusal
after drawing used its sequence up, one before drawing drew nothing. And a refusal says the
same whatever the dice: it quotes no number a die produced.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from domain import roll_log
from domain.dice import commitment, derive_server_seed, fair_die
from domain.dice.bcdice import DiceRefused, evaluate, roll_server
from domain.dice.bcdice.command import MAX_REPEAT_TEXT, REPEAT_LIMIT
from domain.dice.bcdice.limits import (
    MAX_COMMAND,
    MAX_NESTING,
    MAX_RANDS,
    MAX_UPPER_GROUP,
    MAX_WORK,
)
from domain.dice.bcdice.record import RefusedRoll
from domain.dice.errors import DiceEntryError

AT = datetime(2026, 12, 7, tzinfo=UTC)
KEY = bytes(range(32))
LOG = uuid.UUID("00000000-0000-4000-8000-000000000033")
SEED = derive_server_seed(KEY, LOG)
# The numbers a refusal may say: its limits', and (below) the command's own and its lengths.
LIMITS = {MAX_COMMAND, MAX_NESTING, MAX_RANDS, MAX_UPPER_GROUP, MAX_WORK, MAX_REPEAT_TEXT}
LIMITS |= {REPEAT_LIMIT, 2, 53, 15}  # ±2**53, 15 digits

_BIG = st.sampled_from(["999999999999999", "99999999", "3"])
_SIDES = st.sampled_from(["1", "2", "6", "66", "100", "10000", "20000"])
_COUNT = st.integers(0, 300).map(str)
COMMANDS = st.one_of(
    st.builds("{}D{}*{}*{}".format, _COUNT, _SIDES, _BIG, _BIG),
    st.builds("({}D{}-{})*{}".format, _COUNT, _SIDES, _BIG, _BIG),
    st.builds("{}D{}KH{}+{}".format, _COUNT, _SIDES, _COUNT, _COUNT),
    st.builds("1U10000[{}]".format, st.sampled_from(["2", "3", "9000"])),  # chains past budget
    st.builds("{}U{}[{}]".format, _COUNT, _SIDES, st.sampled_from(["2", "5"])),
    st.builds("{}R{}[{}]>=3".format, _COUNT, _SIDES, st.sampled_from(["2", "5"])),
    st.builds("{}B{}>={}".format, _COUNT, _SIDES, _COUNT),
    st.builds("{}TY{}".format, _COUNT, _SIDES),
    st.builds("choice[{}-{}]".format, _COUNT, _BIG),
    st.builds("x{} {}D{}".format, st.integers(0, 120), _COUNT, _SIDES),
    st.builds("C({}/({}-{}))".format, _COUNT, _COUNT, _COUNT),
    st.builds("{}D66".format, st.integers(0, 6000)),
    st.sampled_from(["D66", "(" * 25 + "1D6)", "hello", "1D6+" * 600, "S1U10000[2]"]),
)
SEEDS = st.one_of(st.none(), st.text(alphabet="abc123", max_size=4))
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _state(events: list[roll_log.DomainEvent]) -> roll_log.RollLog:
    opened = roll_log.RollLogOpened(name="t", commitment=commitment(SEED), at=AT, by="gm")
    return roll_log.KIND.rebuild(LOG, [opened, *events])


def _roll(state: roll_log.RollLog, command: str, seed: str | None) -> list[roll_log.DomainEvent]:
    return roll_log.roll_dice(
        state, command, server_seed=SEED, client_seed=seed, purpose="t", at=AT, by="aoi"
    )


@SLOW
@given(st.lists(st.tuples(COMMANDS, SEEDS), max_size=4))
# the peek, then a reroll chain past the budget with seed "c" (refused after drawing)
@example([("1D100*999999999999999*999999999999999", "a"), ("1U10000[2]", "c")])
def test_the_next_roll_shows_the_next_sequences_dice_whatever_was_refused_before(
    earlier: list[tuple[str, str | None]],
) -> None:
    events: list[roll_log.DomainEvent] = []
    for command, seed in earlier:
        with contextlib.suppress(DiceEntryError):  # refused before drawing: no die drawn
            events += _roll(_state(events), command, seed)
    state = _state(events)
    (rolled,) = _roll(state, "1D100<=5", "peek")
    assert isinstance(rolled, roll_log.DiceRolled)
    assert rolled.result.roll_seq == len(events)
    assert rolled.result.rands[0].value == fair_die(SEED, LOG, len(events), 0, 100, "peek")
    revealed = roll_log.DiceSeedRevealed(server_seed=SEED.hex(), at=AT, by="gm")
    audit = roll_log.audit(_state([*events, rolled, revealed]))
    assert all(check.verified for check in audit), audit


def _lengths(command: str) -> set[int]:
    """The lengths a refusal may quote: the command's, its words', what follows its first."""
    rest = command.split(maxsplit=1)[1:]
    return {len(command), *(len(word) for word in command.split()), *map(len, rest)}


class NoDice:
    """A face source that has no dice: drawing one fails the test."""

    def face(self, index: int, sides: int) -> int:
        raise AssertionError(f"die {index} (a d{sides}) was drawn before the refusal")


def _outcome(command: str, seed: str) -> tuple[str, str]:
    try:
        roll_server(
            command, server_seed=SEED, stream_id=LOG, roll_seq=0, purpose="t", client_seed=seed
        )
    except RefusedRoll as refused:
        return "refused after drawing", refused.reason
    except DiceRefused as refused:
        return "refused before drawing", str(refused)
    except DiceEntryError:
        return "not a command", ""
    return "rolled", ""


@SLOW
@example("1U10000[2]", ["c", "a"])  # refused after drawing with "c", rolled with "a"
@given(COMMANDS, st.lists(st.text(alphabet="xyz", min_size=1, max_size=3), min_size=2, max_size=2))
def test_a_refusal_says_the_same_whatever_the_dice_and_quotes_none(
    command: str, seeds: list[str]
) -> None:
    outcomes = [_outcome(command, seed) for seed in seeds]
    before = [o for o in outcomes if o[0] == "refused before drawing"]
    # A refusal before drawing cannot depend on the dice: the other seed is refused alike,
    # and so is a roll with no dice at all to draw.
    assert not before or before == outcomes
    if before:
        with pytest.raises(DiceRefused) as without_dice:
            evaluate(command, NoDice())
        assert str(without_dice.value) == before[0][1]
    said = {text for kind, text in outcomes if kind.startswith("refused")}
    allowed = LIMITS | {int(n) for n in re.findall(r"\d+", command)} | _lengths(command)
    for text in said:
        assert {int(n) for n in re.findall(r"\d+", text)} <= allowed, text
