"""The typed, frozen dice expression (BCDice style): `2D6+3>=10 攻撃`.

`domain.dice.notation.parse` builds one from what a player typed. Every expression that `parse`
returns is within the limits below, and its `canonical` text parses back to an equal expression.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_DICE = 200  # per term and per expression: a bound on work and on the size of a roll event
MAX_SIDES = 10_000
MIN_SIDES = 2  # a one-sided "die" is a constant pretending to be random
MAX_TERMS = 20
MAX_MODIFIER = 1_000_000  # also bounds the comparison target
MAX_TEXT = 200  # characters of notation, after full-width folding
MAX_COMMENT = 200

CompareOp = Literal[">=", "<=", "<>", ">", "<", "="]
# Longest first, so that ">=" is not read as ">" followed by "=".
COMPARE_OPS: tuple[CompareOp, ...] = (">=", "<=", "<>", ">", "<", "=")


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """`NDx`: `count` dice with `sides` faces each, added (or subtracted when `negative`)."""

    count: int
    sides: int
    negative: bool = False

    @property
    def text(self) -> str:
        return f"{self.count}D{self.sides}"

    @property
    def die_sides(self) -> tuple[int, ...]:
        return (self.sides,) * self.count


@dataclass(frozen=True, slots=True)
class D66Term:
    """`D66`: two d6 read as tens then units digit (11..66), in the order rolled, unsorted."""

    negative: bool = False

    @property
    def text(self) -> str:
        return "D66"

    @property
    def die_sides(self) -> tuple[int, ...]:
        return (6, 6)


@dataclass(frozen=True, slots=True)
class Constant:
    """An integer modifier; its sign is the sign of `value`."""

    value: int

    @property
    def negative(self) -> bool:
        return self.value < 0

    @property
    def text(self) -> str:
        return str(abs(self.value))

    @property
    def die_sides(self) -> tuple[int, ...]:
        return ()


Term = DiceTerm | D66Term | Constant


@dataclass(frozen=True, slots=True)
class Comparison:
    """A success test of the total against `target`, e.g. `>=10`."""

    op: CompareOp
    target: int

    @property
    def text(self) -> str:
        return f"{self.op}{self.target}"

    def holds(self, total: int) -> bool:
        match self.op:
            case ">=":
                return total >= self.target
            case "<=":
                return total <= self.target
            case ">":
                return total > self.target
            case "<":
                return total < self.target
            case "=":
                return total == self.target
            case "<>":
                return total != self.target


@dataclass(frozen=True, slots=True)
class DiceExpression:
    """A parsed roll: signed terms, an optional success comparison and a free-text comment."""

    terms: tuple[Term, ...]
    comparison: Comparison | None = None
    comment: str = ""

    @property
    def term_notations(self) -> tuple[str, ...]:
        """Each term as it appears in the canonical text, sign included (`2D6`, `+3`, `-1D4`)."""
        return tuple(_signed(term, first=index == 0) for index, term in enumerate(self.terms))

    @property
    def canonical(self) -> str:
        """The notation without the comment: `1D6` not `D6`, upper-case `D`, ASCII only."""
        compare = self.comparison.text if self.comparison else ""
        return "".join(self.term_notations) + compare

    @property
    def die_sides(self) -> tuple[int, ...]:
        """The sides of every die in rolling order (D66 is two d6)."""
        return tuple(sides for term in self.terms for sides in term.die_sides)

    def __str__(self) -> str:
        return f"{self.canonical} {self.comment}" if self.comment else self.canonical


def _signed(term: Term, *, first: bool) -> str:
    if term.negative:
        return "-" + term.text
    return term.text if first else "+" + term.text
