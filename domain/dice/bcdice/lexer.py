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

_NUMBER = re.compile(r"[0-9]+")
_COMPARISON = re.compile(r"[<>!=]+")
MAX_DIGITS = 15  # beyond this BCDice's JavaScript build loses integer precision


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "NUMBER", "CMP", or the upper-cased character itself
    number: int = 0
    op: str | None = None  # for CMP: "<=", ">=", "!=", "<", ">", "==" or None


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
    source = first_word(text)
    tokens: list[Token] = []
    pos = 0
    while pos < len(source):
        if number := _NUMBER.match(source, pos):
            digits = number.group()
            if len(digits.lstrip("0")) > MAX_DIGITS:
                raise DiceRefused(f"the number {digits[:20]}… is too large (at most 15 digits)")
            tokens.append(Token("NUMBER", number=int(digits)))
            pos = number.end()
        elif run := _COMPARISON.match(source, pos):
            tokens.append(Token("CMP", op=normalise_comparison(run.group())))
            pos = run.end()
        else:
            tokens.append(Token(source[pos].upper()))
            pos += 1
    return tokens
