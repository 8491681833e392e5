"""Upper dice (上方無限): `3U6[6]`, `3U6>=10@6`, `2U6+2U4[4]+6>=8`.

A die that shows the threshold or more is rolled again and added, again and again; each die's
sum is one result. With a target, the results (plus the modifier) that meet it are counted;
without one, the text gives the largest and the sum (`最大/合計`).
"""

from __future__ import annotations

from domain.dice.bcdice.arithmetic import ArithmeticParser, Expr, Number
from domain.dice.bcdice.counting import holds, notations, op_text
from domain.dice.bcdice.faces import Roller, check_groups
from domain.dice.bcdice.lexer import tokenize
from domain.dice.bcdice.limits import MAX_UPPER_GROUP, DiceRefused
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.tokens import NotThisCommand, Stream


def _modifier(parser: ArithmeticParser) -> Expr:
    if parser.stream.peek_kind() in ("+", "-"):
        return parser.add()  # the sign starts the sum: "-1+2+10" is 11, as in BCDice
    return Number(0)


def _signed(number: int) -> str:
    return "" if number == 0 else f"{number:+d}"


def roll(command: str, roller: Roller) -> BcdiceResult | None:
    try:
        stream = Stream(tokenize(command))
        parser = ArithmeticParser(stream)
        secret = stream.take_if("S")
        groups = notations(parser, "U")
        threshold_node = None
        if stream.take_if("["):
            threshold_node = parser.add()
            stream.expect("]")
        modifier_node = _modifier(parser)
        op, target_node = None, None
        if stream.peek_kind() == "CMP":
            op = stream.take().op
            if op is None:
                raise stream.error()
            target_node = parser.add()
        if threshold_node is None and stream.take_if("@"):
            threshold_node = parser.add()
        stream.expect_end()
    except NotThisCommand:
        return None
    dice = [(t.eval(), s.eval()) for t, s in groups]
    threshold = threshold_node.eval() if threshold_node is not None else 0
    modifier = modifier_node.eval()
    target = target_node.eval() if target_node is not None else None
    notation = "+".join(f"{t}U{s}" for t, s in dice)
    target_text = "" if target is None else str(target)
    expr = f"{notation}[{threshold}]{_signed(modifier)}{op_text(op)}{target_text}"
    if threshold <= 1:
        return BcdiceResult(text=f"({expr}) ＞ 無限ロールの条件がまちがっています", secret=secret)
    for times, _ in dice:
        _times(times)
    check_groups(roller, dice, capped=False)
    results = [_explode(roller, sides, threshold) for times, sides in dice for _ in _times(times)]
    sums = [sum(chain) for chain in results]
    shown = ",".join(
        str(s) if len(c) == 1 else f"{s}[{','.join(map(str, c))}]"
        for s, c in zip(sums, results, strict=True)
    )
    if op is not None and target is not None:
        total = sum(1 for s in sums if holds(s + modifier, op, target))
        outcome = f"成功数{total}"
    else:
        total = sum(sums) + modifier
        best = max((s + modifier for s in sums), default=None)
        outcome = f"{'' if best is None else best}/{total}(最大/合計)"
    text = " ＞ ".join([f"({expr})", shown + _signed(modifier), outcome])
    return BcdiceResult(text=text, total=total, secret=secret)


def _times(times: int) -> range:
    if times < 0:
        raise DiceRefused("a negative number of upper dice cannot be rolled")
    if times > MAX_UPPER_GROUP:
        raise DiceRefused(f"too many upper dice in one group (at most {MAX_UPPER_GROUP})")
    return range(times)


def _explode(roller: Roller, sides: int, threshold: int) -> list[int]:
    chain = [roller.roll_once(sides)]
    while chain[-1] >= threshold:  # a die beyond BCDice's sides shows 0 and ends the chain
        chain.append(roller.roll_once(sides))
    return chain
