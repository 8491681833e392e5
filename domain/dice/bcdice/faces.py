"""Where dice come from: a `FaceSource` answers each die the evaluator asks for, in order.

The evaluator never draws randomness itself, so server dice (commit–reveal), physical dice typed
in by hand and a test's fixed dice all plug in the same way; `Roller` records every die as
BCDice's `rands` entry `{kind, sides, value}` and applies BCDice's limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.dice.bcdice.limits import (
    MAX_RANDS,
    MAX_SIDES,
    MAX_TIMES,
    MAX_WORK,
    DiceRefused,
    work_refused,
)
from domain.dice.errors import DiceEntryError
from domain.dice.fair import client_seed_field, die_from, die_index_field, roll_message_head


class Rand(BaseModel):
    """One die as rolled, in BCDice-API's shape: a d`sides` that showed `value`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["normal"] = "normal"
    sides: int
    value: int


class FaceSource(Protocol):
    def face(self, index: int, sides: int) -> int:
        """The face (1..sides) of die `index` (0-based, in rolling order), a d`sides`."""
        ...


class ServerFaces:
    """Commit–reveal server dice: die i is `fair_die(seed, stream, roll_seq, i, sides, client)`."""

    def __init__(
        self, server_seed: bytes, stream_id: UUID, roll_seq: int, client_seed: str | None
    ) -> None:
        self.server_seed = server_seed
        self.stream_id = stream_id
        self.roll_seq = roll_seq
        self.client_seed = client_seed
        # fair_die's message, its parts shared by every die of the roll built once
        self.head = roll_message_head(stream_id, roll_seq)
        self.seed_field = client_seed_field(client_seed)

    def face(self, index: int, sides: int) -> int:
        if sides == 1:  # BCDice rolls a d1 (1D1, a choice's last item): its one face, no draw
            return 1
        prefix = self.head + die_index_field(index) + self.seed_field
        return die_from(self.server_seed, prefix, sides)


class HandFaceError(DiceEntryError):
    """Faces typed in by hand that do not fit the roll; names the die concerned."""


class HandFaces:
    """Physical dice typed in by the GM, one face per die in the order the dice are rolled."""

    def __init__(self, faces: Sequence[int]) -> None:
        self.faces = list(faces)

    def face(self, index: int, sides: int) -> int:
        if index >= len(self.faces):
            raise HandFaceError(
                f"die {index + 1} (a d{sides}) has no face: {len(self.faces)} given, "
                "and this roll needs more; enter one face per die in rolling order"
            )
        value = self.faces[index]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= sides:
            raise HandFaceError(
                f"die {index + 1} is a d{sides} and cannot show {value!r}; "
                f"enter a face from 1 to {sides}"
            )
        return value

    def check_all_used(self, used: int) -> None:
        if used != len(self.faces):
            raise HandFaceError(
                f"too many faces: the roll used {used} dice but {len(self.faces)} faces were "
                f"given; face {used + 1} ({self.faces[used]!r}) belongs to no die"
            )


class DrawnThenRefused(DiceRefused):
    """Refused after dice were drawn: those dice decided it, so it is recorded with them."""

    def __init__(self, reason: str, rands: tuple[Rand, ...]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rands = rands


class Roller:
    """BCDice's Randomizer over a face source: its limits, the command's work, every die."""

    def __init__(self, source: FaceSource) -> None:
        self.source = source
        self.rands: list[Rand] = []
        self.work = 0

    def spend(self, units: int) -> None:
        """Count `units` of work (a die, an item) against the command's budget."""
        self.expect(units)
        self.work += units

    def expect(self, units: int) -> None:
        """Refuse now, before any of it is done, work that would pass the command's budget."""
        if self.work + units > MAX_WORK:
            raise work_refused()

    def roll_once(self, sides: int) -> int:
        if sides <= 0 or sides > MAX_SIDES:
            return 0  # BCDice: such a die shows 0 and is not a die it rolled
        if len(self.rands) >= MAX_RANDS:
            raise too_many_dice()
        self.spend(1)
        value = self.source.face(len(self.rands), sides)
        self.rands.append(Rand(sides=sides, value=value))
        return value

    def roll_barabara(self, times: int, sides: int) -> list[int]:
        if len(self.rands) + times > MAX_RANDS:
            raise too_many_dice()
        if times <= 0 or times > MAX_TIMES:
            return []  # BCDice rolls nothing for such a group
        return [self.roll_once(sides) for _ in range(times)]

    def roll_index(self, size: int) -> int:
        return self.roll_once(size) - 1

    def roll_d66(self, sort: Literal["none", "asc", "desc"]) -> int:
        first, second = self.roll_once(6), self.roll_once(6)
        if sort == "asc":
            first, second = min(first, second), max(first, second)
        elif sort == "desc":
            first, second = max(first, second), min(first, second)
        return first * 10 + second


def group_dice(drawn: int, times: int, sides: int, *, capped: bool = True) -> int:
    """The dice drawn once `times` d`sides` follow `drawn`, refused before any is drawn where
    the Roller would refuse them: a group BCDice rolls at once (`roll_barabara`, `capped`: none
    past 200 dice), or one by one (`roll_once`: upper dice)."""
    if capped and drawn + times > MAX_RANDS:
        raise too_many_dice()
    rolled = (not capped or 0 < times <= MAX_TIMES) and 0 < sides <= MAX_SIDES
    count = max(times, 0) if rolled else 0
    if drawn + count > MAX_RANDS:
        raise too_many_dice()
    return drawn + count


def check_groups(roller: Roller, groups: list[tuple[int, int]], *, capped: bool = True) -> None:
    """Refuse, before drawing, groups whose first dice alone pass BCDice's dice limit."""
    drawn = len(roller.rands)
    for times, sides in groups:
        drawn = group_dice(drawn, times, sides, capped=capped)
    roller.expect(drawn - len(roller.rands))


def too_many_dice() -> DiceRefused:
    return DiceRefused(
        f"too many dice: at most {MAX_RANDS} dice in one command (as BCDice); "
        "roll fewer dice or split the command"
    )
