"""Limits that keep a server safe, BCDice's own where it has one, and the refusal for the rest.

BCDice itself rolls no dice for more than 200 dice in one group or more than 10,000 sides (the
group shows 0), and stops a command at 10,000 dice in all; those are kept, so results match
BCDice. What BCDice leaves unbounded (nesting, the size of numbers, the length of a command) is
refused here with `DiceRefused`, never answered with an error from deep inside.
"""

from __future__ import annotations

from domain.dice.errors import DiceEntryError

MAX_TIMES = 200  # BCDice's UPPER_LIMIT_DICE_TIMES: a bigger group rolls no dice at all
MAX_SIDES = 10_000  # BCDice's UPPER_LIMIT_DICE_SIDES: a bigger die shows 0 and is not recorded
MAX_RANDS = 10_000  # BCDice's UPPER_LIMIT_RANDS: BCDice raises TooManyRandsError past it
MAX_NESTING = 20  # parentheses inside parentheses; BCDice has no limit
MAX_COMMAND = 2_000  # characters of input, comment included
MAX_MAGNITUDE = 2**53  # a number beyond this is not exact in BCDice's JavaScript build
MAX_UPPER_GROUP = MAX_RANDS  # upper dice: BCDice builds the group before its dice limit bites
# A command's work: dice drawn plus choice items built. Each server die is an HMAC and a
# record, so this, not BCDice's 10,000 dice, bounds a command's time (docs/capacity.md).
MAX_WORK = 5_000


class DiceRefused(DiceEntryError):
    """A command Senki will not roll because it passes a safety limit; the message says which.

    Its message names the limit, never a value computed from a die: a refusal must not tell
    what a die showed.
    """


def check_length(text: str) -> None:
    """Refuse a command longer than MAX_COMMAND characters before reading any of it."""
    if len(text) > MAX_COMMAND:
        raise DiceRefused(
            f"the command is too long ({len(text)} characters, at most {MAX_COMMAND}); "
            "shorten it or split it"
        )


def checked(value: int) -> int:
    """A computed number, refused when it is too large to be exact in BCDice's JavaScript build."""
    if abs(value) > MAX_MAGNITUDE:
        raise magnitude_refused()
    return value


def magnitude_refused() -> DiceRefused:
    return DiceRefused(
        "a number in this command can grow beyond ±2**53, past what BCDice computes exactly; "
        "use smaller numbers or fewer dice"
    )


def work_refused() -> DiceRefused:
    return DiceRefused(
        f"this command is too much work: at most {MAX_WORK} dice and choice items in one "
        "command; roll fewer dice, or split it into smaller commands"
    )
