"""Choice (ランダム選択): `choice[a,b,c]`, `choice(a,b)`, `choice a b c`, `choice2[…]`, `[A-F]`.

Read from the whole input, spaces included; a single item `A-F` or `3-10` is a range, kept as
its bounds until its size is checked (`choice[1-100000000]` builds no item).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from domain.dice.bcdice.faces import Roller
from domain.dice.bcdice.result import BcdiceResult

MAX_ITEMS = 100
_HEAD = re.compile(r"\s*(S)?choice(\d+)?(\(|\[|\s+)", re.IGNORECASE)
_NUMS = re.compile(r"([0-9]+)-([0-9]+)")
_CHARS = re.compile(r"([a-z])-([a-z])|([A-Z])-([A-Z])")
_STYLES = {"[": ("[", ",", "]", ", "), "(": ("(", ",", ")", ", ")}


@dataclass(frozen=True)
class _Choice:
    secret: bool
    takes: int
    style: str  # "[", "(" or " "
    items: Sequence[str]


def _parse(command: str) -> _Choice | None:
    head = _HEAD.match(command)
    if head is None:
        return None
    takes = int(head.group(2)) if head.group(2) else 1
    if takes == 0:
        return None
    opener = head.group(3)
    style = opener if opener in _STYLES else " "
    rest = command[head.end() :]
    if style == " ":
        raw = re.split(r"\s+", rest)
    else:
        closing = _STYLES[style][2]
        *before, last = rest.split(",")
        end = last.find(closing)
        if end < 0:
            return None
        raw = [*before, last[:end]]
    items: Sequence[str] = [item.strip() for item in raw if item.strip()]
    if len(items) == 1:
        items = _shorthand(items[0])
    if not items or len(items) < takes:
        return None
    return _Choice(head.group(1) is not None, takes, style, items)


def _shorthand(item: str) -> Sequence[str]:
    if nums := _NUMS.fullmatch(item):
        return _Range(range(int(nums.group(1)), int(nums.group(2)) + 1), letters=False)
    if chars := _CHARS.fullmatch(item):
        first, last = (chars.group(1), chars.group(2)) if chars.group(1) else chars.group(3, 4)
        return _Range(range(ord(first), ord(last) + 1), letters=True)
    return []


class _Range(Sequence[str]):
    """The items of a range, each built only when read: its size is known before any is."""

    def __init__(self, numbers: range, *, letters: bool) -> None:
        self.numbers = numbers
        self.letters = letters

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        number = self.numbers[index]
        return chr(number) if self.letters else str(number)


def roll(command: str, roller: Roller) -> BcdiceResult | None:
    parsed = _parse(command)
    if parsed is None:
        return None
    if len(parsed.items) > MAX_ITEMS:
        return BcdiceResult(text=f"項目数は{MAX_ITEMS}以下としてください", secret=parsed.secret)
    roller.spend(len(parsed.items))
    remaining = list(parsed.items)
    chosen = [remaining.pop(roller.roll_index(len(remaining))) for _ in range(parsed.takes)]
    takes = "" if parsed.takes == 1 else str(parsed.takes)
    if parsed.style == " ":
        expr, joiner = f"choice{takes} " + " ".join(parsed.items), " "
    else:
        opener, separator, closing, joiner = _STYLES[parsed.style]
        expr = f"choice{takes}{opener}{separator.join(parsed.items)}{closing}"
    return BcdiceResult(text=f"({expr}) ＞ {joiner.join(chosen)}", secret=parsed.secret)
