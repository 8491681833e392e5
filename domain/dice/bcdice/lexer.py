"""BCDice's common-command lexer: numbers, comparison operators, and every other character alone.

Only the text before the first whitespace is read (the rest is a comment). Letters are
upper-cased; a comparison is normalised the way BCDice does (`=>` is `>=`, `!=` is `<>`), and a
run of `<>!=` that is none of them becomes a comparison token with no operator, which the
parsers refuse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.dice.bcdice.limits import DiceRefused

_TOKEN = re.compile(r"([0-9]+)|([<>!=]+)|(.)", re.DOTALL)
MAX_DIGITS = 15  # beyond this BCDice's JavaScript build loses integer precision


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "NUMBER", "CMP", or the upper-cased character itself
    number: int = 0
    op: str | None = None  # for CMP: "<=", ">=", "!=", "<", ">", "==" or None


_CHARS = {c: Token(c) for c in "+-*/()[]?@DBRUTYZCSKHLMAXIN"}


def first_word(text: str) -> str:
    """The command part: leading whitespace skipped, cut at the next whitespace."""
    parts = text.split(maxsplit=1)
    return parts[0] if parts else ""


def normalise_comparison(run: str) -> str | None:
    if "<=" in run or "=<" in run:
        return "<="
    if ">=" in run or "=>" in run:
        return ">="
    if "<>" in run or "!=" in run or "=!" in run:
        return "!="
    for op, normal in (("<", "<"), (">", ">"), ("=", "==")):
        if op in run:
            return normal
    return None


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for number, comparison, other in _TOKEN.findall(first_word(text)):
        if number:
            if len(number.lstrip("0")) > MAX_DIGITS:
                raise DiceRefused(f"the number {number[:20]}… is too large (at most 15 digits)")
            tokens.append(Token("NUMBER", number=int(number)))
        elif comparison:
            tokens.append(Token("CMP", op=normalise_comparison(comparison)))
        else:
            tokens.append(_CHARS.get(other) or Token(other.upper()))
    return tokens
