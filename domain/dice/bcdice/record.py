"""A table roll as recorded: the command as typed, BCDice's answer, the dice and their source.

Server dice are the log's commit–reveal dice in rolling order (die i is `fair_die(…, i, …)`),
so after the reveal anyone can roll the command again from the seed and get the same record.
A roll recorded before the BCDice language (v1 `DiceRolled`) keeps its old record in `legacy`
and is verified the old way. A server roll refused after its dice were drawn (`RefusedRoll`)
is recorded too, with those dice, and verified by refusing it again from the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.dice.bcdice.faces import (
    DrawnThenRefused,
    FaceSource,
    HandFaceError,
    HandFaces,
    Rand,
    ServerFaces,
)
from domain.dice.bcdice.limits import DiceRefused
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.systems import BY_ID
from domain.dice.bcdice.user_table import ROLLABLE, SYSTEM_ID  # BY_ID and user tables
from domain.dice.errors import DiceEntryError
from domain.dice.results import RollResult
from domain.dice.roll import HAND_UNVERIFIABLE, Verification
from domain.dice.roll import verify as verify_legacy


class NotACommand(DiceEntryError):
    """Text that BCDice would not roll (plain chat): nothing to record."""


class TableRoll(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    roll_seq: int = Field(ge=0)
    command: str  # as typed, comment included: it is what is rolled again to verify
    system: str = "DiceBot"  # the game system that read the command (BCDice-API's id)
    purpose: str
    source: Literal["server", "hand"]
    client_seed: str | None
    text: str
    total: int | None
    success: bool
    failure: bool
    critical: bool
    fumble: bool
    secret: bool
    rands: tuple[Rand, ...]
    legacy: RollResult | None = None  # the v1 record this was read from, if any

    @property
    def expression(self) -> str:
        if self.system == SYSTEM_ID:  # a table's whole text is what was rolled: no comment
            return self.command
        return self.command.split(maxsplit=1)[0] if self.command.split() else ""

    @property
    def comment(self) -> str:
        if self.system == SYSTEM_ID:
            return ""
        parts = self.command.split(maxsplit=1)
        return parts[1].strip() if len(parts) == 2 else ""


class RefusedRoll(DiceRefused):
    """A server roll refused after its dice were drawn: `roll` records it, dice included."""

    def __init__(self, roll: TableRoll, reason: str) -> None:
        super().__init__(reason)
        self.roll = roll
        self.reason = reason


REFUSED_TEXT = "refused: "  # a refused roll's text: this, then the reason


def _refused(command: str, refusal: DrawnThenRefused) -> BcdiceResult:
    # BCDice's `S` prefix makes any command secret; a refused one stays as secret as it asked.
    secret = command.lstrip()[:1].upper() == "S"
    return BcdiceResult(text=REFUSED_TEXT + refusal.reason, secret=secret, rands=refusal.rands)


class UnknownSystem(DiceEntryError):
    """A game system id this build does not offer."""


def _evaluated(command: str, source: FaceSource, system: str = "DiceBot") -> BcdiceResult:
    game = ROLLABLE.get(system)
    if game is None:
        raise UnknownSystem(f"no game system {system!r}; offered: {', '.join(BY_ID)}")
    result = game.evaluate(command, source)
    if result is None:
        raise NotACommand(
            f"{command[:60]!r} is not a dice command; write e.g. 2D6+3>=10, 3B6, D66, choice[a,b]"
        )
    return result


def _record(  # one field each, named
    result: BcdiceResult,
    *,
    command: str,
    roll_seq: int,
    purpose: str,
    source: Literal["server", "hand"],
    client_seed: str | None,
    system: str,
) -> TableRoll:
    return TableRoll(
        roll_seq=roll_seq,
        command=command,
        system=system,
        purpose=purpose,
        source=source,
        client_seed=client_seed,
        **result.model_dump(),
    )


def roll_server(  # the commit–reveal layout's inputs, named
    command: str,
    *,
    server_seed: bytes,
    stream_id: UUID,
    roll_seq: int,
    purpose: str,
    client_seed: str | None = None,
    system: str = "DiceBot",
) -> TableRoll:
    """A server roll; `RefusedRoll` (its record inside) when refused after drawing dice."""
    faces = ServerFaces(server_seed, stream_id, roll_seq, client_seed)
    try:
        result = _evaluated(command, faces, system)
    except DrawnThenRefused as refusal:
        result, failed = _refused(command, refusal), True
    else:
        failed = False
    record = _record(
        result,
        command=command,
        roll_seq=roll_seq,
        purpose=purpose,
        source="server",
        client_seed=client_seed,
        system=system,
    )
    if failed:
        raise RefusedRoll(record, record.text.removeprefix(REFUSED_TEXT))
    return record


def roll_by_hand(
    command: str, faces: Sequence[int], *, roll_seq: int, purpose: str, system: str = "DiceBot"
) -> TableRoll:
    """Physical dice typed in, one face per die in rolling order; every face must be used."""
    hand = HandFaces(faces)
    result = _evaluated(command, hand, system)
    hand.check_all_used(len(result.rands))
    return _record(
        result,
        command=command,
        roll_seq=roll_seq,
        purpose=purpose,
        source="hand",
        client_seed=None,
        system=system,
    )


def from_legacy(old: RollResult) -> TableRoll:
    """A v1 record read in today's shape; its old record stays for verification."""
    command = f"{old.expression} {old.comment}" if old.comment else old.expression
    return TableRoll(
        roll_seq=old.roll_seq,
        command=command,
        purpose=old.purpose,
        source=old.source,
        client_seed=old.client_seed,
        text=old.text,
        total=old.total,
        success=old.success is True,
        failure=old.success is False,
        critical=False,
        fumble=False,
        secret=False,
        rands=tuple(Rand(sides=r.sides, value=r.value) for r in old.rands),
        legacy=old,
    )


def verify(roll: TableRoll, *, server_seed: bytes, stream_id: UUID) -> Verification:
    """Roll the command again (from the seed, or from the recorded hand faces) and compare;
    a refused roll must be refused again, for the same reason, with the same dice."""
    if roll.legacy is not None:
        return verify_legacy(roll.legacy, server_seed=server_seed, stream_id=stream_id)
    unverifiable = HAND_UNVERIFIABLE if roll.source == "hand" else None
    source: FaceSource
    if roll.source == "server":
        source = ServerFaces(server_seed, stream_id, roll.roll_seq, roll.client_seed)
    else:
        source = HandFaces([rand.value for rand in roll.rands])
    try:
        again = _evaluated(roll.command, source, roll.system)
    except DrawnThenRefused as refusal:
        again = _refused(roll.command, refusal)
    except (DiceEntryError, HandFaceError) as error:
        problems = (f"the recorded command cannot be rolled again: {error}",)
        return Verification(roll_seq=roll.roll_seq, problems=problems, unverifiable=unverifiable)
    found = _differences(roll, again)
    return Verification(roll_seq=roll.roll_seq, problems=found, unverifiable=unverifiable)


def _differences(roll: TableRoll, again: BcdiceResult) -> tuple[str, ...]:
    problems = [
        f"die {index}: recorded {got.value} on a d{got.sides}, "
        f"recomputed {want.value} on a d{want.sides}"
        for index, (got, want) in enumerate(zip(roll.rands, again.rands, strict=False), 1)
        if got != want
    ]
    if len(roll.rands) != len(again.rands):
        problems.append(f"{len(roll.rands)} dice recorded, {len(again.rands)} rolled again")
    for name in ("text", "total", "success", "failure", "critical", "fumble", "secret"):
        recorded, recomputed = getattr(roll, name), getattr(again, name)
        if recorded != recomputed:
            problems.append(f"{name}: recorded {recorded!r}, recomputed {recomputed!r}")
    return tuple(problems)
