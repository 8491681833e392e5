"""The small commands: calc `C(1+2)`, `D66` (and `D66N`/`D66A`/`D66S`/`D66D`), `BCDiceVersion`."""

from __future__ import annotations

import re

from domain.dice.bcdice.arithmetic import ArithmeticParser, Parenthesis, ZeroDivision
from domain.dice.bcdice.faces import Roller
from domain.dice.bcdice.lexer import first_word, tokenize
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.tokens import NotThisCommand, Stream

BCDICE_VERSION = "3.16.1"  # the BCDice whose behaviour this follows (npm bcdice 4.9.0)
_D66 = re.compile(r"(S)?D66([ANSD])?", re.IGNORECASE)
_D66_SORT = {"A": "asc", "S": "asc", "D": "desc", "N": "none", None: "none"}


def calc(command: str, roller: Roller) -> BcdiceResult | None:
    try:
        stream = Stream(tokenize(command))
        parser = ArithmeticParser(stream)
        secret = stream.take_if("S")
        stream.expect("C")
        expr = parser.add()
        stream.expect_end()
    except NotThisCommand:
        return None
    shown = expr.output() if isinstance(expr, Parenthesis) else f"({expr.output()})"
    total: int | None
    try:
        total = expr.eval()
        value = str(total)
    except ZeroDivision:
        total, value = None, "ゼロ除算が発生したため計算できませんでした"
    return BcdiceResult(text=f"c{shown} ＞ {value}", total=total, secret=secret)


def d66(command: str, roller: Roller) -> BcdiceResult | None:
    match = _D66.fullmatch(first_word(command).upper())
    if match is None:
        return None
    suffix = match.group(2)
    value = roller.roll_d66(_D66_SORT[suffix])  # type: ignore[arg-type]
    return BcdiceResult(
        text=f"(D66{suffix or ''}) ＞ {value}", total=value, secret=match.group(1) is not None
    )


def version(command: str, roller: Roller) -> BcdiceResult | None:
    try:
        stream = Stream(tokenize(command))
        for letter in "BCDICEVERSION":
            stream.expect(letter)
        stream.expect_end()
    except NotThisCommand:
        return None
    return BcdiceResult(text=f"BCDice {BCDICE_VERSION}")
