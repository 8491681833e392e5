"""The tree of an add roll (`2D6+3`, `(1D6+2)*2`, `4D6KH3`), as BCDice's AddDice builds it.

Each node has its notation (`expr`, numbers computed: `(2+3)D6` is `5D6`), its value (`eval`,
rolling its dice in order) and what it showed (`output`, after `eval`: `7[3,4]`). Before any die
is drawn, `bound` is the largest magnitude it can reach whatever the dice show (each node checked
against the limit) and `dice` adds the dice it will draw to a count, in rolling order, as the
Roller would: what can be refused without dice is refused before them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from domain.dice.bcdice.arithmetic import Rounding, divide
from domain.dice.bcdice.faces import Roller, group_dice, too_many_dice
from domain.dice.bcdice.limits import MAX_RANDS, MAX_SIDES, MAX_TIMES, DiceRefused, checked


@dataclass
class AddRolls:
    """The add roll's own record of its dice: a D66 counts as one die showing 11..66."""

    roller: Roller
    values: list[int] = field(default_factory=list)

    def roll(self, times: int, sides: int) -> list[int]:
        if sides == 66:
            if times < 0:
                raise DiceRefused("a negative number of D66 dice cannot be rolled")
            dice = [self.roller.roll_d66("none") for _ in range(times)]
        else:
            dice = self.roller.roll_barabara(times, sides)
        self.values += dice
        return dice


@dataclass
class Number:
    value: int
    include_dice = False

    def eval(self, rolls: AddRolls | None) -> int:
        return self.value

    def bound(self) -> int:
        return abs(self.value)

    def dice(self, drawn: int) -> int:
        return drawn

    def expr(self) -> str:
        return str(self.value)

    def output(self) -> str:
        return str(self.value)


@dataclass
class Negate:
    body: Node
    include_dice: bool = field(init=False)

    def __post_init__(self) -> None:
        self.include_dice = self.body.include_dice

    def eval(self, rolls: AddRolls | None) -> int:
        return -self.body.eval(rolls)

    def bound(self) -> int:
        return self.body.bound()

    def dice(self, drawn: int) -> int:
        return self.body.dice(drawn)

    def expr(self) -> str:
        return "-" + self.body.expr()

    def output(self) -> str:
        return "-" + self.body.output()


@dataclass
class Parenthesis:
    body: Node
    include_dice: bool = field(init=False)

    def __post_init__(self) -> None:
        self.include_dice = self.body.include_dice

    def eval(self, rolls: AddRolls | None) -> int:
        return self.body.eval(rolls)

    def bound(self) -> int:
        return self.body.bound()

    def dice(self, drawn: int) -> int:
        return self.body.dice(drawn)

    def expr(self) -> str:
        return f"({self.body.expr()})"

    def output(self) -> str:
        return f"({self.body.output()})"


@dataclass
class BinaryOp:
    lhs: Node
    op: Literal["+", "-", "*"]
    rhs: Node
    include_dice: bool = field(init=False)

    def __post_init__(self) -> None:
        self.include_dice = self.lhs.include_dice or self.rhs.include_dice

    def eval(self, rolls: AddRolls | None) -> int:
        left, right = self.lhs.eval(rolls), self.rhs.eval(rolls)
        if self.op == "+":
            return checked(left + right)
        if self.op == "-":
            return checked(left - right)
        return checked(left * right)

    def bound(self) -> int:
        left, right = self.lhs.bound(), self.rhs.bound()
        return checked(left * right if self.op == "*" else left + right)

    def dice(self, drawn: int) -> int:
        return self.rhs.dice(self.lhs.dice(drawn))

    def expr(self) -> str:
        return f"{self.lhs.expr()}{self.op}{self.rhs.expr()}"

    def output(self) -> str:
        return f"{self.lhs.output()}{self.op}{self.rhs.output()}"


@dataclass
class Divide:
    lhs: Node
    rhs: Node
    rounding: Rounding
    label: str  # as BCDice prints it: "" (the system's default), "U", "R" or "F"
    include_dice: bool = field(init=False)

    def __post_init__(self) -> None:
        self.include_dice = self.lhs.include_dice or self.rhs.include_dice

    def eval(self, rolls: AddRolls | None) -> int:
        left, right = self.lhs.eval(rolls), self.rhs.eval(rolls)
        if right == 0:
            return 1  # BCDice's add dice: dividing by zero gives 1
        return divide(left, right, self.rounding)

    def bound(self) -> int:
        self.rhs.bound()
        return max(self.lhs.bound(), 1)  # |a/b| rounded is at most |a| for b ≠ 0; 1 for b = 0

    def dice(self, drawn: int) -> int:
        return self.rhs.dice(self.lhs.dice(drawn))

    def expr(self) -> str:
        return f"{self.lhs.expr()}/{self.rhs.expr()}{self.label}"

    def output(self) -> str:
        return f"{self.lhs.output()}/{self.rhs.output()}{self.label}"


@dataclass
class DiceRoll:
    """`xDy` (or `xD` with the implicit six sides): the sum of the dice, shown `7[3,4]`."""

    times: Node
    sides: Node | None  # None: the implicit D, six sides
    shown: str = ""
    include_dice = True

    def sides_value(self) -> int:
        return 6 if self.sides is None else self.sides.eval(None)

    def bound(self) -> int:
        return group_bound(self.times.eval(None), self.sides_value())

    def dice(self, drawn: int) -> int:
        return add_group_dice(drawn, self.times.eval(None), self.sides_value())

    def eval(self, rolls: AddRolls | None) -> int:
        assert rolls is not None  # a die is only rolled with dice to roll
        dice = rolls.roll(self.times.eval(None), self.sides_value())
        total = sum(dice)
        self.shown = f"{total}[{','.join(map(str, dice))}]"
        return total

    def expr(self) -> str:
        return f"{self.times.eval(None)}D{self.sides_value()}"

    def output(self) -> str:
        return self.shown


def group_bound(times: int, sides: int) -> int:
    """The largest sum `times` dice of `sides` can show (none are rolled past BCDice's limits)."""
    if sides == 66:
        return checked(max(times, 0) * 66)
    if not 0 < times <= MAX_TIMES or not 0 < sides <= MAX_SIDES:
        return 0
    return times * sides


def add_group_dice(drawn: int, times: int, sides: int) -> int:
    """`group_dice`, where a D66 is two dice each (AddRolls.roll)."""
    if sides != 66:
        return group_dice(drawn, times, sides)
    if times < 0:
        raise DiceRefused("a negative number of D66 dice cannot be rolled")
    if drawn + 2 * times > MAX_RANDS:
        raise too_many_dice()
    return drawn + 2 * times


Keep = Callable[[list[int], int], list[int]]
FILTERS: dict[str, Keep] = {
    "KH": lambda ordered, n: ordered[::-1][:n],
    "KL": lambda ordered, n: ordered[:n],
    "DH": lambda ordered, n: ordered[::-1][n:],
    "DL": lambda ordered, n: ordered[n:],
}


@dataclass
class FilteredRoll:
    """`5D10KH3` and friends: keep or drop the highest or lowest; shows every die, sorted."""

    times: Node
    sides: Node | None
    keep: Node
    name: str  # KH, KL, DH, DL
    shown: str = ""
    include_dice = True

    def sides_value(self) -> int:
        return 6 if self.sides is None else self.sides.eval(None)

    def bound(self) -> int:
        return group_bound(self.times.eval(None), self.sides_value())

    def dice(self, drawn: int) -> int:
        return add_group_dice(drawn, self.times.eval(None), self.sides_value())

    def eval(self, rolls: AddRolls | None) -> int:
        assert rolls is not None
        times, sides, keep = self.times.eval(None), self.sides_value(), self.keep.eval(None)
        if keep < 0:  # BCDice fails with an internal error here
            raise DiceRefused(f"{self.name} needs a count of 0 or more, not {keep}")
        ordered = sorted(rolls.roll(times, sides))
        total = sum(FILTERS[self.name](ordered, keep))
        self.shown = f"{total}[{','.join(map(str, ordered))}]"
        return total

    def expr(self) -> str:
        return f"{self.times.eval(None)}D{self.sides_value()}{self.name}{self.keep.eval(None)}"

    def output(self) -> str:
        return self.shown


Node = Number | Negate | Parenthesis | BinaryOp | Divide | DiceRoll | FilteredRoll
