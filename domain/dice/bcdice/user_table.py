"""BCDice's user-defined dice tables (`UserDefinedDiceTable`, BCDice-API's `/v2/original_table`).

A table's text is a title line, a dice line (`1D6`, `3D4`, `D66`, `D66N`, `D66A`/`D66S`,
`D66D`; any case) and `n:text` rows; a `\\n` in a row is a line break. Rolled, it reads
`{title}({n}) ＞ {row n's text}`, byte for byte as BCDice in Ruby (the build BCDice-API runs):
lines end at any of Ruby's `\\R` breaks and lose only ASCII whitespace at their ends.

BCDice rolls first and checks the table after; here everything is checked before the first
die, and a table is refused when any index its dice can show has no row (BCDice would roll and
then fail on that index alone), so no answer depends on a die that is not then recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from domain.dice.bcdice.faces import FaceSource, Roller
from domain.dice.bcdice.limits import MAX_SIDES, MAX_TIMES
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.systems import BY_ID, GameSystem
from domain.dice.errors import DiceEntryError

MAX_TABLE_CHARS = 50_000  # a 1D1000 table of rows of 40 characters or so
MAX_TABLE_ROWS = 1_000
SYSTEM_ID = "UserDefinedDiceTable"  # the record's `system`: its `command` is the table's text

# Ruby's `\R` and the whitespace its `strip`/`rstrip` remove (ASCII only: a full-width space
# stays, where BCDice's JavaScript build trims it too).
_LINE_BREAK = re.compile(r"\r\n|[\n\v\f\r\x85\u2028\u2029]")
_RUBY_SPACE = " \t\n\v\f\r\0"
_ROW_INDEX = re.compile(r"[0-9]+(?=:)")
_SUM_DICE = re.compile(r"([0-9]+)D([0-9]+)")
_HUGE = 10**18  # any index past this is out of every table's reach (ints are read up to it)
_D66_SORT: dict[str, Literal["none", "asc", "desc"]] = {
    "D66": "none",
    "D66N": "none",
    "D66A": "asc",
    "D66S": "asc",
    "D66D": "desc",
}


class TableRefused(DiceEntryError):
    """A table's text BCDice could not roll, or one past Senki's size bounds; says why."""


def _number(digits: str) -> int:
    """Ruby's `to_i` of ASCII digits, read no further than `_HUGE` (Python refuses to parse
    more than 4,300 digits, and no index that large is ever rolled)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else _HUGE


@dataclass(frozen=True)
class SumDice:
    """`{times}D{sides}`: the index is the dice's sum (BCDice's `roll_sum`)."""

    times: int
    sides: int

    @property
    def rolls_dice(self) -> bool:
        # BCDice rolls no dice for such a group, and a die past its sides limit shows 0.
        return 0 < self.times <= MAX_TIMES and 0 < self.sides <= MAX_SIDES

    def indexes(self) -> range:
        """Every index the dice can show."""
        if not self.rolls_dice:
            return range(0, 1)
        return range(self.times, self.times * self.sides + 1)

    def covered_by(self, indexes: list[int]) -> bool:
        """BCDice's `valid_d?`: as many distinct indexes as sums, from the least to the most."""
        size = self.times * self.sides - self.times + 1
        return (
            len(indexes) == size
            and indexes[0] == self.times
            and indexes[-1] == self.times * self.sides
        )

    def roll(self, roller: Roller) -> int:
        return sum(roller.roll_barabara(self.times, self.sides))

    def describe(self) -> str:
        return f"{self.times}–{self.times * self.sides}"


@dataclass(frozen=True)
class D66:
    """Two d6 read as tens and ones, as rolled or sorted (BCDice's `roll_d66`)."""

    sort: Literal["none", "asc", "desc"]

    def indexes(self) -> list[int]:
        pairs = [(tens, ones) for tens in range(1, 7) for ones in range(1, 7)]
        return [tens * 10 + ones for tens, ones in pairs if self._shows(tens, ones)]

    def _shows(self, tens: int, ones: int) -> bool:
        return self.sort == "none" or (tens <= ones if self.sort == "asc" else tens >= ones)

    def covered_by(self, indexes: list[int]) -> bool:
        return indexes == self.indexes()

    def roll(self, roller: Roller) -> int:
        return roller.roll_d66(self.sort)

    def describe(self) -> str:
        return ", ".join(str(index) for index in self.indexes())


@dataclass(frozen=True)
class DiceTable:
    """A table read and checked: rolling it draws dice and cannot fail."""

    name: str
    dice_line: str  # as BCDice reads it: upper-cased
    dice: SumDice | D66
    rows: dict[int, str]  # index → the first row for it, its text as shown

    def roll(self, source: FaceSource) -> BcdiceResult:
        roller = Roller(source)
        index = self.dice.roll(roller)
        text = f"{self.name}({index}) ＞ {self.rows[index]}"
        return BcdiceResult(text=text, total=index, rands=tuple(roller.rands))


def _dice(line: str) -> SumDice | D66:
    kind = line.upper()  # Ruby's upcase, as BCDice reads the dice line
    matched = _SUM_DICE.fullmatch(kind)
    if matched is not None:
        return SumDice(_number(matched.group(1)), _number(matched.group(2)))
    if kind in _D66_SORT:
        return D66(_D66_SORT[kind])
    raise TableRefused(
        f"the dice line {line[:40]!r} is not one BCDice reads: write e.g. 1D6, 2D6, 1D100, "
        "D66 (as rolled), D66A or D66S (ascending), D66D (descending)"
    )


def _lines(text: str) -> list[str]:
    if len(text) > MAX_TABLE_CHARS:
        raise TableRefused(
            f"the table is {len(text)} characters; at most {MAX_TABLE_CHARS} are rolled"
        )
    if "\0" in text or _has_surrogate(text):
        raise TableRefused("the table holds a NUL or an unpaired surrogate; send plain text")
    lines = [line.rstrip(_RUBY_SPACE) for line in _LINE_BREAK.split(text)]
    kept = [line for line in lines if line]
    if len(kept) < 2:
        raise TableRefused(
            "a table is a title line, a dice line (e.g. 1D6) and rows such as 1:text"
        )
    if len(kept) - 2 > MAX_TABLE_ROWS:
        raise TableRefused(f"the table has {len(kept) - 2} rows; at most {MAX_TABLE_ROWS}")
    return kept


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _rows(lines: list[str]) -> dict[str, str]:
    """Each row's index as written (`01` is not `1`: BCDice finds a row by its prefix) → the
    first row's text, as BCDice shows it."""
    rows: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        written = _ROW_INDEX.match(line)
        if written is None:
            raise TableRefused(
                f"row {number} ({line[:40]!r}) does not start with its number and a colon, "
                "as 1:text"
            )
        text = line[written.end() + 1 :].replace("\\n", "\n").strip(_RUBY_SPACE)
        rows.setdefault(written.group(), text)
    return rows


def read_table(text: str) -> DiceTable:
    """The table in `text`, checked as BCDice checks it and for every index its dice can show;
    `TableRefused` says what is wrong. Draws nothing."""
    name, dice_line, *row_lines = _lines(text)
    dice = _dice(dice_line)
    written = _rows(row_lines)
    indexes = sorted({_number(index) for index in written})
    if not indexes or not dice.covered_by(indexes):
        raise TableRefused(
            f"a {dice_line} table has one row for each index of {dice.describe()}; "
            f"this one has rows for {_span(indexes)}"
        )
    missing = [index for index in dice.indexes() if str(index) not in written]
    if missing:
        raise TableRefused(
            f"no row starts with {missing[0]}: (a row is found by its number as written, "
            "so 01: is not 1:)"
        )
    rows = {index: written[str(index)] for index in dice.indexes()}
    return DiceTable(name, dice_line.upper(), dice, rows)


def _span(indexes: list[int]) -> str:
    if not indexes:
        return "no index"
    if len(indexes) > 6:
        return f"{indexes[0]}–{indexes[-1]} ({len(indexes)} indexes)"
    return ", ".join(str(index) for index in indexes)


class TableSystem(GameSystem):
    """The roll record's reader of tables: its command is a table's text, rolled again to
    verify it; not a game system BCDice-API lists."""

    def evaluate(self, text: str, source: FaceSource) -> BcdiceResult | None:
        return read_table(text).roll(source)


TABLES = TableSystem(SYSTEM_ID, "ユーザー定義ダイス表", "", "")
ROLLABLE: dict[str, GameSystem] = BY_ID | {SYSTEM_ID: TABLES}
