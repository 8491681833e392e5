"""Counting dice: barabara `3B6>=4`, reroll `2R6[4]>=3` / `2R6>=3@4`, tally `20TY6` / `20TZ6`.

Their numbers (`(1+1)B6`, targets `>=2+1`) are BCDice's small arithmetic; a comparison counts the
dice that meet it (`成功数N`).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.dice.bcdice.arithmetic import ArithmeticParser, Expr
from domain.dice.bcdice.faces import Roller, check_groups
from domain.dice.bcdice.lexer import tokenize
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.tokens import NotThisCommand, Stream

_OP_TEXT = {"!=": "<>", "==": "="}
REROLL_LIMIT = 10_000  # BCDice's: rounds of rerolling at most
TALLY_MAX_SIDES = 20


def holds(value: int, op: str, target: int) -> bool:
    match op:
        case "<=":
            return value <= target
        case ">=":
            return value >= target
        case "<":
            return value < target
        case ">":
            return value > target
        case "==":
            return value == target
    return value != target


def op_text(op: str | None) -> str:
    return "" if op is None else _OP_TEXT.get(op, op)


@dataclass
class Group:
    times: int
    sides: int


def notations(parser: ArithmeticParser, letter: str) -> list[tuple[Expr, Expr]]:
    """`term LETTER term {"+" term LETTER term}`: the groups of dice of one command."""
    stream = parser.stream
    found = [_notation(parser, letter)]
    while stream.peek_kind() == "+":
        saved = stream.pos
        stream.take()
        try:
            found.append(_notation(parser, letter))
        except NotThisCommand:
            stream.pos = saved  # a "+" that starts something else (an upper roll's modifier)
            break
    return found


def _notation(parser: ArithmeticParser, letter: str) -> tuple[Expr, Expr]:
    times = parser.term()
    parser.stream.expect(letter)
    return times, parser.term()


def comparison(parser: ArithmeticParser) -> tuple[str | None, Expr | None]:
    if parser.stream.peek_kind() != "CMP":
        return None, None
    op = parser.stream.take().op
    if op is None:
        raise parser.stream.error()
    return op, parser.add()


def barabara(command: str, roller: Roller) -> BcdiceResult | None:
    try:
        stream = Stream(tokenize(command))
        parser = ArithmeticParser(stream)
        secret = stream.take_if("S")
        groups = notations(parser, "B")
        op, target_node = comparison(parser)
        stream.expect_end()
    except NotThisCommand:
        return None
    dice_groups = [Group(t.eval(), s.eval()) for t, s in groups]
    target = target_node.eval() if target_node is not None else None
    check_groups(roller, [(g.times, g.sides) for g in dice_groups])
    dice = [v for g in dice_groups for v in roller.roll_barabara(g.times, g.sides)]
    notation = "+".join(f"{g.times}B{g.sides}" for g in dice_groups)
    steps = [
        f"({notation}{op_text(op)}{'' if target is None else target})",
        ",".join(map(str, dice)),
    ]
    total = None
    if op is not None and target is not None:
        total = sum(1 for v in dice if holds(v, op, target))
        steps.append(f"成功数{total}")
    return BcdiceResult(text=" ＞ ".join(steps), total=total, secret=secret)


def tally(command: str, roller: Roller) -> BcdiceResult | None:
    try:
        stream = Stream(tokenize(command))
        parser = ArithmeticParser(stream)
        secret = stream.take_if("S")
        times_node = parser.term()
        stream.expect("T")
        zeros = stream.take().kind
        if zeros not in ("Y", "Z"):
            raise stream.error()
        sides_node = parser.term()
        stream.expect_end()
    except NotThisCommand:
        return None
    times, sides = times_node.eval(), sides_node.eval()
    if times <= 0 or sides <= 0:
        return None
    notation = f"({times}T{zeros}{sides})"
    if sides > TALLY_MAX_SIDES:
        text = f"{notation} ＞ 面数は1以上、{TALLY_MAX_SIDES}以下としてください"
        return BcdiceResult(text=text)  # BCDice does not mark this refusal secret
    values = roller.roll_barabara(times, sides)
    counts = [
        f"[{face}]×{values.count(face)}"
        for face in range(1, sides + 1)
        if zeros == "Z" or values.count(face)
    ]
    text = " ＞ ".join([notation, ",".join(map(str, values)), ", ".join(counts)])
    return BcdiceResult(text=text, secret=secret)
