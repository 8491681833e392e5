"""Add dice (加算ロール): `2D6+3>=10`, `(2+3)D6-1`, `5D10KH3`, `1D100<=50`, `S3D6/2U`.

Grammar (BCDice's AddDice), over lexer tokens::

    command = ["S"] add [CMP (add | "?")]
    add     = mul {("+" | "-") mul}          a minus before a negated term turns into "+"
    mul     = unary {"*" unary | "/" unary [U | C | R | F]}
    unary   = "+" unary | "-" unary | dice
    dice    = term "D" [term] filter | term "D" term | term "D" | "D" term [filter] | term
    filter  = ("KH" | "KL" | "DH" | "DL") [term] | "MAX" | "MIN"
    term    = "(" add ")" | NUMBER

The left side must roll a die and the target must not; `D66` alone is the D66 command.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.dice.bcdice.add_nodes import (
    AddRolls,
    BinaryOp,
    DiceRoll,
    Divide,
    FilteredRoll,
    Negate,
    Node,
    Number,
    Parenthesis,
)
from domain.dice.bcdice.arithmetic import ROUNDING_TOKENS
from domain.dice.bcdice.faces import Roller
from domain.dice.bcdice.lexer import tokenize
from domain.dice.bcdice.limits import MAX_NESTING, DiceRefused
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.tokens import NotThisCommand, Stream

_ADD_LABELS = {"U": "U", "C": "U", "R": "R", "F": "F"}
_SHORTHANDS = {("M", "A", "X"): "KH", ("M", "I", "N"): "KL"}
_OP_TEXT = {"!=": "<>", "==": "="}


@dataclass
class AddCommand:
    secret: bool
    lhs: Node
    op: str | None = None
    target: Node | None = None  # None with an op: the undecided target "?"

    def roll(self, roller: Roller) -> BcdiceResult:
        self.lhs.bound()  # refused here, before any die, if a number could grow too large
        drawn = len(roller.rands)  # or if it would roll too many dice
        roller.expect(self.lhs.dice(drawn) - drawn)
        rolls = AddRolls(roller)
        total = self.lhs.eval(rolls)
        one_die = len(rolls.values) <= 1 and isinstance(self.lhs, DiceRoll)
        steps = [f"({self.expr()})"]
        if not one_die:
            steps.append(self.lhs.output())
        steps.append(str(total))
        success = failure = False
        if self.op is not None and self.target is not None:
            success = _holds(total, self.op, self.target.eval(None))
            failure = not success
            steps.append("成功" if success else "失敗")
        return BcdiceResult(
            text=" ＞ ".join(steps),
            total=total,
            success=success,
            failure=failure,
            secret=self.secret,
        )

    def expr(self) -> str:
        if self.op is None:
            return self.lhs.expr()
        target = "?" if self.target is None else str(self.target.eval(None))
        return self.lhs.expr() + _OP_TEXT.get(self.op, self.op) + target


def _holds(total: int, op: str, target: int) -> bool:
    match op:
        case "<=":
            return total <= target
        case ">=":
            return total >= target
        case "<":
            return total < target
        case ">":
            return total > target
        case "==":
            return total == target
    return total != target


def parse(command: str) -> AddCommand | None:
    try:
        return _Parser(Stream(tokenize(command))).command()
    except NotThisCommand:
        return None


def roll(command: str, roller: Roller) -> BcdiceResult | None:
    parsed = parse(command)
    return None if parsed is None else parsed.roll(roller)


class _Parser:
    def __init__(self, stream: Stream) -> None:
        self.s = stream
        self.depth = 0

    def command(self) -> AddCommand:
        secret = self.s.take_if("S")
        lhs = self.add()
        if not lhs.include_dice:
            raise self.s.error()
        if self.s.at_end():
            return AddCommand(secret, lhs)
        cmp = self.s.expect("CMP")
        if cmp.op is None:
            raise self.s.error()
        if self.s.take_if("?"):
            self.s.expect_end()
            return AddCommand(secret, lhs, cmp.op, None)
        target = self.add()
        if target.include_dice:
            raise self.s.error()
        self.s.expect_end()
        return AddCommand(secret, lhs, cmp.op, target)

    def add(self) -> Node:
        node = self.mul()
        while self.s.peek_kind() in ("+", "-"):
            op = self.s.take().kind
            rhs = self.mul()
            if isinstance(rhs, Negate):  # BCDice writes 1D6+-1 as 1D6-1
                op, rhs = ("-" if op == "+" else "+"), rhs.body
            node = BinaryOp(node, "+" if op == "+" else "-", rhs)
        return node

    def mul(self) -> Node:
        node = self.unary()
        while self.s.peek_kind() in ("*", "/"):
            if self.s.take().kind == "*":
                node = BinaryOp(node, "*", self.unary())
                continue
            divisor = self.unary()
            suffix = self.s.peek_kind()
            if suffix in ROUNDING_TOKENS:
                self.s.take()
                node = Divide(node, divisor, ROUNDING_TOKENS[suffix], _ADD_LABELS[suffix])
            else:
                node = Divide(node, divisor, "", "")
        return node

    def unary(self) -> Node:
        if self.s.take_if("+"):
            return self.unary()
        if self.s.take_if("-"):
            body = self.unary()
            return body.body if isinstance(body, Negate) else Negate(body)
        return self.dice()

    def dice(self) -> Node:
        if self.s.take_if("D"):
            sides = self.term()
            if sides.include_dice or (isinstance(sides, Number) and sides.value == 66):
                raise self.s.error()
            return self.maybe_filtered(Number(1), sides)
        times = self.term()
        if not self.s.take_if("D"):
            return times
        if times.include_dice:
            raise self.s.error()
        explicit = self.term() if self.s.peek_kind() in ("NUMBER", "(") else None
        if explicit is not None and explicit.include_dice:
            raise self.s.error()
        return self.maybe_filtered(times, explicit)

    def maybe_filtered(self, times: Node, sides: Node | None) -> Node:
        name = self.filter_name()
        if name is None:
            return DiceRoll(times, sides)
        keep: Node = Number(1)
        if name in ("KH", "KL", "DH", "DL") and self.s.peek_kind() in ("NUMBER", "("):
            keep = self.term()
            if keep.include_dice:
                raise self.s.error()
        return FilteredRoll(times, sides, keep, name.removesuffix("*"))

    def filter_name(self) -> str | None:
        first, second = self.s.peek_kind(), self.s.peek_kind(1)
        if first in ("K", "D") and second in ("H", "L"):
            self.s.pos += 2
            return first + second
        shorthand = (first, second, self.s.peek_kind(2))
        if shorthand in _SHORTHANDS:
            self.s.pos += 3
            return _SHORTHANDS[shorthand] + "*"  # a shorthand takes no count
        if first in ("K", "M"):
            raise self.s.error()
        return None

    def term(self) -> Node:
        token = self.s.take()
        if token.kind == "NUMBER":
            return Number(token.number)
        if token.kind != "(":
            raise self.s.error()
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise DiceRefused(f"parentheses nest deeper than {MAX_NESTING}")
        inner = self.add()
        self.s.expect(")")
        self.depth -= 1
        return Parenthesis(inner)
