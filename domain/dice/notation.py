"""Parse dice notation as Japanese tables type it (BCDice style): `2D6+3>=10 攻撃`.

Grammar, after folding full-width characters (NFKC); `d` and `D` are the same letter::

    input      = notation [whitespace comment]
    notation   = ["-"] term {("+" | "-") term} [comparison]
    term       = [count] "D" sides | "D66" | integer
    comparison = (">=" | "<=" | "<>" | ">" | "<" | "=") ["-"] integer

`D66` without a count is the two-d6 table roll; `1D66` is one 66-sided die, as in BCDice.
A leading minus and a leading constant are allowed because rules write `hp + 1D100`.
"""

from __future__ import annotations

import unicodedata

from domain.dice.errors import DiceSyntaxError
from domain.dice.expression import (
    COMPARE_OPS,
    MAX_COMMENT,
    MAX_DICE,
    MAX_MODIFIER,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TEXT,
    MIN_SIDES,
    Comparison,
    Constant,
    D66Term,
    DiceExpression,
    DiceTerm,
    Term,
)

_DIGITS = frozenset("0123456789")  # not str.isdigit: int() would also take e.g. "٣"
_DIE_LETTERS = frozenset("Dd")
# Signs that NFKC leaves alone but Japanese input methods and word processors produce.
_EXTRA_FOLDS = str.maketrans({"≧": ">=", "≦": "<=", "≥": ">=", "≤": "<=", "≠": "<>", "−": "-"})
# Checked before any other work so a huge paste costs nothing; the margin is for whitespace.
_MAX_INPUT = MAX_TEXT + MAX_COMMENT + 20


def parse(text: str) -> DiceExpression:
    """Read dice notation; raise DiceSyntaxError (and nothing else) if it cannot be rolled."""
    notation, comment = _split_comment(text)
    source = unicodedata.normalize("NFKC", notation).translate(_EXTRA_FOLDS)
    if len(source) > MAX_TEXT:
        hint = f"at most {MAX_TEXT} characters before the comment"
        raise DiceSyntaxError(source, f"notation too long ({len(source)} characters)", None, hint)
    terms, comparison = _Parser(source).expression()
    return DiceExpression(terms, comparison, comment)


def _split_comment(text: str) -> tuple[str, str]:
    """Everything after the first whitespace (including a full-width space) is the comment."""
    if len(text) > _MAX_INPUT:
        hint = f"at most {MAX_TEXT} characters of notation and {MAX_COMMENT} of comment"
        raise DiceSyntaxError(text, f"input too long ({len(text)} characters)", None, hint)
    parts = text.split(maxsplit=1)
    if not parts:
        raise DiceSyntaxError("", "empty dice expression", None, "write e.g. 2D6+3")
    comment = parts[1].strip() if len(parts) == 2 else ""
    if len(comment) > MAX_COMMENT:
        hint = f"at most {MAX_COMMENT} characters"
        raise DiceSyntaxError(parts[0], f"comment too long ({len(comment)} characters)", None, hint)
    return parts[0], comment


class _Parser:
    """Recursive descent over the normalised notation; `pos` is the index being read."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0

    def expression(self) -> tuple[tuple[Term, ...], Comparison | None]:
        terms = [self.term(negative=self.take("-"))]
        while (sign := self.peek()) in ("+", "-"):
            if len(terms) == MAX_TERMS:
                raise self.error("too many terms", self.pos, f"at most {MAX_TERMS} per roll")
            self.pos += 1
            terms.append(self.term(negative=sign == "-"))
        comparison = self.comparison() if self.peek() in ("<", ">", "=") else None
        if self.pos < len(self.source):
            if comparison is None:
                raise self.unexpected("'+', '-', a comparison such as '>=' or the end")
            raise self.unexpected("the end (put a space before a comment)")
        self.check_whole(terms)
        return tuple(terms), comparison

    def term(self, *, negative: bool) -> Term:
        start = self.pos
        count_text = self.digits()
        if self.peek() not in _DIE_LETTERS:
            if not count_text:
                raise self.unexpected("a number or NdX")
            return self.constant(int(count_text), start, negative)
        self.pos += 1
        sides_at = self.pos
        sides_text = self.digits()
        if not sides_text:
            hint = f"write e.g. {count_text or 1}D6"
            raise self.error("a die needs a number of sides after 'D'", sides_at, hint)
        if not count_text and sides_text == "66":
            return D66Term(negative)
        count = int(count_text) if count_text else 1
        return self.dice(count, int(sides_text), start, sides_at, negative)

    def dice(self, count: int, sides: int, start: int, sides_at: int, negative: bool) -> DiceTerm:
        if count < 1:
            raise self.error("a roll needs at least 1 die", start, f"write e.g. 1D{sides}")
        if count > MAX_DICE:
            raise self.error(f"too many dice ({count})", start, f"at most {MAX_DICE} dice per roll")
        if sides < MIN_SIDES:
            hint = f"write e.g. {count}D6"
            raise self.error(f"a die needs at least {MIN_SIDES} sides", sides_at, hint)
        if sides > MAX_SIDES:
            hint = f"at most {MAX_SIDES} sides per die"
            raise self.error(f"too many sides ({sides})", sides_at, hint)
        return DiceTerm(count, sides, negative)

    def constant(self, value: int, start: int, negative: bool) -> Constant:
        if value > MAX_MODIFIER:
            hint = f"modifiers are within ±{MAX_MODIFIER}"
            raise self.error(f"modifier {value} is too large", start, hint)
        return Constant(-value if negative else value)

    def comparison(self) -> Comparison:
        op_at = self.pos
        op = next(op for op in COMPARE_OPS if self.source.startswith(op, op_at))
        self.pos += len(op)
        if op == "=" and self.peek() in ("<", ">"):  # a common slip for ">=" and "<="
            swapped = self.peek() + "="
            hint = f"write {self.source[:op_at]}{swapped}{self.source[self.pos + 1 :]}"
            raise self.error(f"'={self.peek()}' is not a comparison", op_at, hint)
        start = self.pos
        negative = self.take("-")
        digits = self.digits()
        if not digits:
            hint = f"write e.g. {self.source[:op_at]}{op}10"
            raise self.error(f"'{op}' needs a number to compare with", self.pos, hint)
        if int(digits) > MAX_MODIFIER:
            hint = f"targets are within ±{MAX_MODIFIER}"
            raise self.error(f"target {digits} is too large", start, hint)
        return Comparison(op, -int(digits) if negative else int(digits))

    def check_whole(self, terms: list[Term]) -> None:
        dice = sum(len(term.die_sides) for term in terms)
        if dice == 0:
            raise self.error("no dice to roll", None, "write e.g. 1D6+3")
        if dice > MAX_DICE:
            hint = f"at most {MAX_DICE} dice per roll"
            raise self.error(f"too many dice in one roll ({dice})", None, hint)

    def peek(self) -> str:
        return self.source[self.pos : self.pos + 1]

    def take(self, char: str) -> bool:
        if self.peek() != char:
            return False
        self.pos += 1
        return True

    def digits(self) -> str:
        start = self.pos
        while self.peek() in _DIGITS:
            self.pos += 1
        return self.source[start : self.pos]

    def error(self, problem: str, position: int | None, hint: str) -> DiceSyntaxError:
        return DiceSyntaxError(self.source, problem, position, hint)

    def unexpected(self, expected: str) -> DiceSyntaxError:
        found = repr(self.peek()) if self.peek() else "end of notation"
        return self.error(f"unexpected {found}", self.pos, f"expected {expected}")
