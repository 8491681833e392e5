"""Dice for a replay: the original faces in order, then a labelled sequence from the seed.

A replay re-runs each recorded command with the dice that command originally drew, in the
order drawn. A die the replay needs beyond those (or of other sides) was never rolled: it is
derived from the revealed seed in a separate sequence (its own stream label), so a replay is
reproducible and never passes off an invented die as a recorded one. Before the seed is
revealed, such a die cannot be had: the replay stops and names it.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from domain.dice import RollResult, enter_by_hand, fair_die
from domain.rules.records import Dice, DiceSource, EncounterDiceRolled


class MissingDie(LookupError):
    """The replay needs a die the original never rolled, and the seed is not revealed."""

    def __init__(self, purpose: str, sides: int) -> None:
        super().__init__(
            f"a 1D{sides} for {purpose} was never rolled; reveal the seed to derive it"
        )
        self.purpose = purpose
        self.sides = sides


@dataclass
class ExtraDice:
    """The separate, labelled sequence of dice a replay derived from the seed."""

    stream_id: uuid.UUID
    seed: bytes | None
    drawn: list[dict[str, int | str]] = field(default_factory=list)

    @staticmethod
    def for_encounter(encounter_id: uuid.UUID, seed: bytes | None) -> ExtraDice:
        return ExtraDice(uuid.uuid5(encounter_id, "senki/replay-extra-dice/v1"), seed)

    def draw(self, sides: int, purpose: str) -> int:
        if self.seed is None:
            raise MissingDie(purpose, sides)
        face = fair_die(self.seed, self.stream_id, len(self.drawn), 0, sides, None)
        self.drawn.append(
            {"sequence": len(self.drawn), "sides": sides, "face": face, "purpose": purpose}
        )
        return face


class ReplayDice(Dice):
    """The dice of one replayed command."""

    def __init__(
        self,
        stream_id: uuid.UUID,
        next_roll_seq: int,
        originals: Sequence[RollResult],
        extra: ExtraDice,
        *,
        by: str,
        at: datetime,
    ) -> None:
        super().__init__(DiceSource(stream_id=stream_id, next_roll_seq=next_roll_seq), by=by, at=at)
        self._originals = list(originals)
        self._extra = extra
        self._from_seed = False

    def draw(self, sides: int, purpose: str) -> int:
        face = self._original_face(sides)
        label = "original"
        if face is None:
            face = self._extra.draw(sides, purpose)
            label = f"extra #{len(self._extra.drawn) - 1}"
            self._from_seed = True
        result = enter_by_hand(
            f"1D{sides}", [face], roll_seq=self._seq, purpose=f"{purpose} (replay: {label} die)"
        )
        self._record(EncounterDiceRolled.stamped({"result": result}, at=self._at, by=self._by))
        return face

    @property
    def drew_server_dice(self) -> bool:
        """Whether a die standing for one from the seed was drawn (an original server die, or
        an extra derived from the revealed seed): a refusal then is recorded with its dice in
        the replay, as the live command's would be."""
        return self._from_seed

    def _original_face(self, sides: int) -> int | None:
        while self._originals:
            original = self._originals.pop(0)
            if len(original.rands) == 1 and original.rands[0].sides == sides:
                self._from_seed |= original.source == "server"
                return original.rands[0].value
            # A die of other sides means the replay took another path here: from now on
            # this command's dice come from the labelled sequence.
            self._originals.clear()
        return None
