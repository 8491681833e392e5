"""Reroll dice (個数振り足し): `2R6[4]>=3`, `2R6>=3@4`, `3R10[<=2]>=5`, `2R6[>3]`.

Each die that meets the reroll condition (by default the success target's own comparison, else
`>=`) adds one more die of its group; then every die meeting the target counts as a success.
"""

from __future__ import annotations

from domain.dice.bcdice.arithmetic import ArithmeticParser, Expr
from domain.dice.bcdice.counting import REROLL_LIMIT, Group, holds, notations, op_text
from domain.dice.bcdice.faces import Roller, check_groups
from domain.dice.bcdice.lexer import first_word, tokenize
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.tokens import NotThisCommand, Stream

_BAD_CONDITION = (
    " ＞ 条件が間違っています。2R6>=5 あるいは 2R6[5] のように振り足し目標値を指定してください。"
)


def _threshold(parser: ArithmeticParser, closing: str | None) -> tuple[str | None, Expr]:
    stream = parser.stream
    op = None
    if stream.peek_kind() == "CMP":
        op = stream.take().op
        if op is None:
            raise stream.error()
    value = parser.add()
    if closing is not None:
        stream.expect(closing)
    return op, value


def _valid(op: str, threshold: int | None, sides: int) -> bool:
    """Whether rerolling ends: BCDice refuses a condition every face would meet."""
    if threshold is None:
        return False
    match op:
        case "<=":
            return threshold < sides
        case "<":
            return threshold <= sides
        case ">=":
            return threshold > 1
        case ">":
            return threshold >= 1
        case "!=":
            return 1 <= threshold <= sides
    return True


def roll(command: str, roller: Roller) -> BcdiceResult | None:
    try:
        stream = Stream(tokenize(command))
        parser = ArithmeticParser(stream)
        secret = stream.take_if("S")
        groups = notations(parser, "R")
        bracket = _threshold(parser, "]") if stream.take_if("[") else None
        op, target_node = None, None
        if stream.peek_kind() == "CMP":
            op = stream.take().op
            if op is None:
                raise stream.error()
            target_node = parser.add()
        at = _threshold(parser, None) if bracket is None and stream.take_if("@") else None
        stream.expect_end()
    except NotThisCommand:
        return None
    condition = bracket or at
    target = target_node.eval() if target_node is not None else None
    reroll_op = (condition[0] if condition else None) or op or ">="
    threshold = condition[1].eval() if condition else target
    queue = [Group(t.eval(), s.eval()) for t, s in groups]
    source = first_word(command)
    if not all(_valid(reroll_op, threshold, g.sides) for g in queue):
        return BcdiceResult(text=source + _BAD_CONDITION, secret=secret)
    assert threshold is not None
    check_groups(roller, [(g.times, g.sides) for g in queue])
    rounds = _rolls(queue, roller, reroll_op, threshold)
    dice = [v for group in rounds for v in group]
    successes = sum(1 for v in dice if holds(v, op, target)) if op and target is not None else 0
    notation = "+".join(f"{g.times}R{g.sides}" for g in queue[: len(groups)])
    shown_op = "" if reroll_op == op else op_text(reroll_op)
    target_text = "" if target is None else str(target)
    expr = f"({notation}[{shown_op}{threshold}]{op_text(op)}{target_text})"
    text = " ＞ ".join(
        [expr, " + ".join(",".join(map(str, g)) for g in rounds), f"成功数{successes}"]
    )
    return BcdiceResult(text=text, total=successes, secret=secret)


def _rolls(queue: list[Group], roller: Roller, op: str, threshold: int) -> list[list[int]]:
    rounds: list[list[int]] = []
    pending = list(queue)
    while pending and len(rounds) < REROLL_LIMIT:
        group = pending.pop(0)
        values = roller.roll_barabara(group.times, group.sides)
        rounds.append(values)
        again = sum(1 for v in values if holds(v, op, threshold))
        if again:
            pending.append(Group(again, group.sides))
    return rounds
