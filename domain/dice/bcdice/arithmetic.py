"""Integer arithmetic as BCDice's commands read it: `+ - * /`, parentheses, rounding suffixes.

Division rounds down unless a suffix says otherwise: `U` or `C` up, `R` to nearest (halves away
from zero), `F` down. Exact fractions are used, so no float ever decides a rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from domain.dice.bcdice.limits import MAX_NESTING, DiceRefused, checked
from domain.dice.bcdice.tokens import Stream

Rounding = Literal["", "U", "R", "F"]  # "" = the game system's default (DiceBot: down)
ROUNDING_TOKENS: dict[str, Rounding] = {"U": "U", "C": "U", "R": "R", "F": "F"}


class ZeroDivision(ArithmeticError):
    """A division by zero where BCDice raises one (everywhere but add dice)."""


def divide(dividend: int, divisor: int, rounding: Rounding) -> int:
    exact = Fraction(dividend, divisor)
    if rounding == "U":
        return math.ceil(exact)
    if rounding == "R":
        magnitude = math.floor(abs(exact) + Fraction(1, 2))
        return -magnitude if exact < 0 else magnitude
    return math.floor(exact)


@dataclass(frozen=True, slots=True)
class Number:
    value: int

    def eval(self) -> int:
        return self.value

    def output(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Negative:
    body: Expr

    def eval(self) -> int:
        return -self.body.eval()

    def output(self) -> str:
        return "-" + self.body.output()


@dataclass(frozen=True, slots=True)
class Parenthesis:
    body: Expr

    def eval(self) -> int:
        return self.body.eval()

    def output(self) -> str:
        return f"({self.body.output()})"


@dataclass(frozen=True, slots=True)
class BinaryOp:
    lhs: Expr
    op: Literal["+", "-", "*"]
    rhs: Expr

    def eval(self) -> int:
        left, right = self.lhs.eval(), self.rhs.eval()
        if self.op == "+":
            return checked(left + right)
        if self.op == "-":
            return checked(left - right)
        return checked(left * right)

    def output(self) -> str:
        return f"{self.lhs.output()}{self.op}{self.rhs.output()}"


@dataclass(frozen=True, slots=True)
class Divide:
    lhs: Expr
    rhs: Expr
    rounding: Rounding
    label: str  # as BCDice prints it after the divisor: "", "C", "R" or "F"

    def eval(self) -> int:
        left, right = self.lhs.eval(), self.rhs.eval()
        if right == 0:
            raise ZeroDivision
        return divide(left, right, self.rounding)

    def output(self) -> str:
        return f"{self.lhs.output()}/{self.rhs.output()}{self.label}"


Expr = Number | Negative | Parenthesis | BinaryOp | Divide
_LABELS = {"U": "C", "C": "C", "R": "R", "F": "F"}  # BCDice prints U as C outside add dice


class ArithmeticParser:
    """`add` of BCDice's smaller grammars, over a token stream shared with the caller."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.depth = 0

    def add(self) -> Expr:
        node = self.mul()
        while self.stream.peek_kind() in ("+", "-"):
            op = self.stream.take().kind
            node = BinaryOp(node, "+" if op == "+" else "-", self.mul())
        return node

    def mul(self) -> Expr:
        node = self.unary()
        while self.stream.peek_kind() in ("*", "/"):
            if self.stream.take().kind == "*":
                node = BinaryOp(node, "*", self.unary())
                continue
            divisor = self.unary()
            suffix = self.stream.peek_kind()
            if suffix in ROUNDING_TOKENS:
                self.stream.take()
                node = Divide(node, divisor, ROUNDING_TOKENS[suffix], _LABELS[suffix])
            else:
                node = Divide(node, divisor, "", "")
        return node

    def unary(self) -> Expr:
        kind = self.stream.peek_kind()
        if kind == "+":
            self.stream.take()
            return self.unary()
        if kind == "-":
            self.stream.take()
            return Negative(self.unary())
        return self.term()

    def term(self) -> Expr:
        token = self.stream.take()
        if token.kind == "NUMBER":
            return Number(token.number)
        if token.kind != "(":
            raise self.stream.error()
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise DiceRefused(f"parentheses nest deeper than {MAX_NESTING}")
        inner = self.add()
        self.stream.expect(")")
        self.depth -= 1
        return Parenthesis(inner)
