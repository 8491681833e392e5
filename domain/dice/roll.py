"""Roll server dice, record dice rolled at the table, and check recorded rolls after the reveal."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.dice.errors import DiceEntryError, DiceSyntaxError
from domain.dice.expression import DiceExpression
from domain.dice.fair import fair_die, verify_commitment
from domain.dice.notation import parse
from domain.dice.results import Evaluation, RollResult, evaluate

HAND_UNVERIFIABLE = "entered by hand: physical dice cannot be recomputed from the seed"


def roll(
    expr: str | DiceExpression,
    *,
    server_seed: bytes,
    stream_id: UUID,
    roll_seq: int,
    purpose: str,
    client_seed: str | None = None,
) -> RollResult:
    """Roll server dice: die i of the roll (D66 counts two) is `fair_die(..., die_index=i)`."""
    expression = _checked(expr)
    canonical, die_sides = _shape(expression)
    faces = tuple(
        fair_die(server_seed, stream_id, roll_seq, index, sides, client_seed)
        for index, sides in enumerate(die_sides)
    )
    return _record(
        expression,
        _evaluated(expression, faces),
        roll_seq=roll_seq,
        purpose=purpose,
        source="server",
        client_seed=client_seed,
        canonical=canonical,
    )


@functools.lru_cache(maxsize=256)
def _shape(expression: DiceExpression) -> tuple[str, tuple[int, ...]]:
    """An expression's canonical text and die sides, once per expression (both are derived
    anew on each access, and a fight rolls the same few expressions all along)."""
    return expression.canonical, expression.die_sides


@functools.lru_cache(maxsize=4096)
def _evaluated(expression: DiceExpression, faces: tuple[int, ...]) -> Evaluation:
    """`evaluate`, once per expression and faces: a 1D100 shows one of 100 faces all fight
    long, and an Evaluation is frozen, so one serves every roll that shows the same."""
    return evaluate(expression, faces)


def enter_by_hand(
    expr: str | DiceExpression, faces: Sequence[int], *, roll_seq: int, purpose: str
) -> RollResult:
    """Record physical dice the GM typed in, one face per die in order; marked as by hand."""
    expression = _checked(expr)
    _check_faces(expression, faces)
    outcome = evaluate(expression, list(faces))
    return _record(
        expression, outcome, roll_seq=roll_seq, purpose=purpose, source="hand", client_seed=None
    )


class Verification(BaseModel):
    """The outcome of recomputing one recorded roll from the revealed seed."""

    model_config = ConfigDict(frozen=True)

    roll_seq: int
    problems: tuple[str, ...] = ()  # each a discrepancy: tampering, a wrong seed or stream
    unverifiable: str | None = None  # why the faces could not be recomputed (not a failure)

    @property
    def ok(self) -> bool:
        """Nothing wrong was found (a hand-entered roll can be ok without being verified)."""
        return not self.problems

    @property
    def verified(self) -> bool:
        """Every face was recomputed from the seed and everything derived from them matches."""
        return self.ok and self.unverifiable is None


def verify(
    result: RollResult, *, server_seed: bytes, stream_id: UUID, commitment: str | None = None
) -> Verification:
    """Recompute a recorded roll; a changed face, total, success or a wrong seed is reported."""
    problems: list[str] = []
    if commitment is not None and not verify_commitment(server_seed, commitment):
        problems.append("the revealed server seed does not match the published commitment")
    try:
        expression = parse(result.expression)
    except DiceSyntaxError as error:
        problems.append(f"the recorded expression cannot be read: {error}")
        return Verification(roll_seq=result.roll_seq, problems=tuple(problems))
    if expression.canonical != result.expression:
        problems.append(f"expression {result.expression!r} is not canonical")
    problems += _recompute(result, expression, server_seed, stream_id)
    unverifiable = HAND_UNVERIFIABLE if result.source == "hand" else None
    return Verification(
        roll_seq=result.roll_seq, problems=tuple(problems), unverifiable=unverifiable
    )


def _recompute(
    result: RollResult, expression: DiceExpression, server_seed: bytes, stream_id: UUID
) -> list[str]:
    sides = expression.die_sides
    if len(result.rands) != len(sides):
        return [f"{len(result.rands)} dice recorded but {result.expression} rolls {len(sides)}"]
    if result.source == "server":
        faces = [
            fair_die(server_seed, stream_id, result.roll_seq, index, side, result.client_seed)
            for index, side in enumerate(sides)
        ]
    else:  # the recorded faces are all there is; still check what was derived from them
        faces = [rand.value for rand in result.rands]
        try:
            _check_faces(expression, faces)
        except DiceEntryError as error:
            return [str(error)]
    return _differences(result, evaluate(expression, faces))


def _differences(result: RollResult, expected: Evaluation) -> list[str]:
    problems = [
        f"die {index}: recorded {got.value} on a d{got.sides}, "
        f"recomputed {want.value} on a d{want.sides}"
        for index, (got, want) in enumerate(zip(result.rands, expected.rands, strict=True), 1)
        if got != want
    ]
    if result.terms != expected.terms:
        problems.append("the per-term faces or subtotals differ from the dice")
    for name in ("total", "success", "text"):
        recorded, recomputed = getattr(result, name), getattr(expected, name)
        if recorded != recomputed:
            problems.append(f"{name}: recorded {recorded!r}, recomputed {recomputed!r}")
    return problems


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> DiceExpression:
    """`parse`, once per text: rulesets roll the same few expressions ("1D6") all fight long,
    and an expression is frozen, so one parse serves every roll of it."""
    return parse(text)


def _checked(expr: str | DiceExpression) -> DiceExpression:
    if isinstance(expr, str):
        return _parsed(expr)
    # An expression built in code rather than parsed might break the limits: re-read it.
    return dataclasses.replace(parse(expr.canonical), comment=expr.comment)


def _check_faces(expression: DiceExpression, faces: Sequence[int]) -> None:
    sides = expression.die_sides
    if len(faces) != len(sides):
        raise DiceEntryError(
            f"{expression.canonical}: expected {len(sides)} die faces "
            f"(one per die, in order), got {len(faces)}"
        )
    for index, (face, side) in enumerate(zip(faces, sides, strict=True), 1):
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= side:
            raise DiceEntryError(
                f"{expression.canonical}: die {index} is a d{side} and cannot show {face!r}; "
                f"enter a face from 1 to {side}"
            )


def _record(
    expression: DiceExpression,
    outcome: Evaluation,
    *,
    roll_seq: int,
    purpose: str,
    source: Literal["server", "hand"],
    client_seed: str | None,
    canonical: str | None = None,
) -> RollResult:
    return RollResult(
        roll_seq=roll_seq,
        expression=expression.canonical if canonical is None else canonical,
        comment=expression.comment,
        purpose=purpose,
        source=source,
        client_seed=client_seed,
        rands=outcome.rands,
        terms=outcome.terms,
        total=outcome.total,
        success=outcome.success,
        text=outcome.text,
    )
