"""What a roll records: every face first, then what was computed from the faces.

`Rand` has the shape BCDice-API returns in `rands: [{kind, sides, value}]`, so table tools
that already read BCDice output can read Senki's. `evaluate` is the one place where faces
become a total, a success and a text line, so rolling, hand entry and verification agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.dice.expression import Constant, D66Term, DiceExpression, DiceTerm, Term

SUCCESS = "成功"
FAILURE = "失敗"
_STEP = " ＞ "  # BCDice's separator between the steps of a result line


class Rand(BaseModel):
    """One die as rolled: a d`sides` that showed `value`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["normal"] = "normal"
    sides: int
    value: int


class TermResult(BaseModel):
    """One term of the expression: its signed notation, its faces and what it adds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    notation: str  # as in the canonical text, sign included: "2D6", "+3", "-1D4"
    faces: tuple[int, ...]
    subtotal: int  # signed: "-1D4" showing 3 adds -3


class RollResult(BaseModel):
    """A recorded roll; tuples rather than lists so a recorded roll cannot be edited in place."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    roll_seq: int = Field(ge=0)
    expression: str  # canonical notation, without the comment
    comment: str
    purpose: str  # why it was rolled, usually a rule ID such as "GD-INIT-1"
    source: Literal["server", "hand"]
    client_seed: str | None
    rands: tuple[Rand, ...]
    terms: tuple[TermResult, ...]
    total: int
    success: bool | None  # None when the expression has no comparison
    text: str  # BCDice-style line: "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"


class Evaluation(BaseModel):
    """Everything that follows from an expression and its faces."""

    model_config = ConfigDict(frozen=True)

    rands: tuple[Rand, ...]
    terms: tuple[TermResult, ...]
    total: int
    success: bool | None
    text: str


def evaluate(expression: DiceExpression, faces: Sequence[int]) -> Evaluation:
    """Apply faces (one per die, in rolling order, already checked) to the expression."""
    rands = tuple(Rand(sides=s, value=v) for s, v in zip(expression.die_sides, faces, strict=True))
    terms: list[TermResult] = []
    used = 0
    for term, notation in zip(expression.terms, expression.term_notations, strict=True):
        own = tuple(faces[used : used + len(term.die_sides)])
        used += len(own)
        terms.append(TermResult(notation=notation, faces=own, subtotal=_subtotal(term, own)))
    total = sum(term.subtotal for term in terms)
    success = expression.comparison.holds(total) if expression.comparison else None
    text = _text(expression, terms, total, success)
    return Evaluation(rands=rands, terms=tuple(terms), total=total, success=success, text=text)


def _subtotal(term: Term, faces: tuple[int, ...]) -> int:
    match term:
        case Constant():
            return term.value
        case D66Term():
            value = faces[0] * 10 + faces[1]  # tens die first, as rolled: never sorted
        case DiceTerm():
            value = sum(faces)
    return -value if term.negative else value


def _is_one_die(expression: DiceExpression) -> bool:
    """One die, or one D66, alone: BCDice then skips the per-die step of the text line."""
    match expression.terms:
        case (D66Term(),):
            return True
        case (DiceTerm(count=1),):
            return True
    return False


def _text(
    expression: DiceExpression, terms: list[TermResult], total: int, success: bool | None
) -> str:
    steps = [f"({expression.canonical})"]
    if not _is_one_die(expression):
        steps.append("".join(_term_step(term, first=i == 0) for i, term in enumerate(terms)))
    steps.append(str(total))
    if success is not None:
        steps.append(SUCCESS if success else FAILURE)
    return _STEP.join(steps)


def _term_step(term: TermResult, *, first: bool) -> str:
    sign = "-" if term.notation.startswith("-") else ("" if first else "+")
    shown = f"{abs(term.subtotal)}"
    if term.faces:
        shown += "[" + ",".join(str(face) for face in term.faces) + "]"
    return sign + shown
