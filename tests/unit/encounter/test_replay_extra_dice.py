"""Issue 33 §1 for a what-if replay's extra dice: no answer depends on a die not on the record.

A replay's extra dice (those the original never rolled) come only from the revealed seed, when
every die of the encounter is public, on a labelled stream of their own; before the reveal the
replay stops, naming the die, and draws nothing.
"""

from __future__ import annotations

import uuid

import pytest

from domain.dice import fair_die
from domain.encounter.replay_dice import ExtraDice, MissingDie

ENCOUNTER = uuid.UUID("00000000-0000-4000-8000-000000000021")
SEED = bytes(range(32))


def test_before_the_reveal_an_extra_die_is_named_and_none_is_drawn() -> None:
    extra = ExtraDice.for_encounter(ENCOUNTER, None)
    with pytest.raises(MissingDie, match="a 1D6 for GD-INJ-1 was never rolled"):
        extra.draw(6, "GD-INJ-1")
    assert extra.drawn == []


def test_after_the_reveal_extra_dice_are_the_seeds_on_their_own_stream() -> None:
    extra = ExtraDice.for_encounter(ENCOUNTER, SEED)
    faces = [extra.draw(6, "GD-INJ-1"), extra.draw(100, "GD-CHK-1")]
    label = uuid.uuid5(ENCOUNTER, "senki/replay-extra-dice/v1")
    assert label != ENCOUNTER  # never a die of the encounter's own sequences
    assert faces == [fair_die(SEED, label, 0, 0, 6, None), fair_die(SEED, label, 1, 0, 100, None)]
    assert [d["sequence"] for d in extra.drawn] == [0, 1]
