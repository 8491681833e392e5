"""Evaluate a line as BCDice's base system (DiceBot) would: the first command kind that reads it.

`evaluate` answers None for what is not a command (plain chat), a `BcdiceResult` otherwise, and
raises `DiceRefused` for a command past a safety limit: `DrawnThenRefused`, with the dice, when
dice were drawn before the limit bit (they decided it, so the roll must be recorded).
Dice come from the `FaceSource`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from domain.dice.bcdice import add_dice, choice, counting, reroll, simple, upper
from domain.dice.bcdice.arithmetic import ZeroDivision
from domain.dice.bcdice.faces import DrawnThenRefused, FaceSource, Rand, Roller
from domain.dice.bcdice.limits import DiceRefused, check_length
from domain.dice.bcdice.result import BcdiceResult

Command = Callable[[str, Roller], BcdiceResult | None]
# BCDice's CommonCommand::COMMANDS, in its order: the first that reads the line rolls it.
COMMANDS: tuple[Command, ...] = (
    add_dice.roll,
    counting.barabara,
    counting.tally,
    simple.calc,
    choice.roll,
    simple.d66,
    # repeat is `_repeat` below: it evaluates its trailer with this same table
    reroll.roll,
    upper.roll,
    simple.version,
)
REPEAT_LIMIT = 100
MAX_REPEAT_TEXT = 10_000  # characters read by a repeat's commands in all: each is parsed anew
_REPEAT = re.compile(r"(s)?(repeat|rep|x)([0-9]+)?(\s+)?", re.IGNORECASE)
_NESTED_REPEAT = re.compile(r"(repeat|rep|x)[0-9]+")


def evaluate(text: str, source: FaceSource) -> BcdiceResult | None:
    """The result of `text` with dice from `source`, or None when it is not a command."""
    check_length(text)
    return rolled(source, lambda roller: _evaluate(text, roller))


def rolled(
    source: FaceSource, decide: Callable[[Roller], BcdiceResult | None]
) -> BcdiceResult | None:
    """`decide` with a `Roller` over `source`: its result with every die drawn, or its refusal
    with them when any were drawn."""
    roller = Roller(source)
    try:
        result = decide(roller)
    except ZeroDivision as error:  # BCDice fails with an internal error here
        refusal = DiceRefused("this command divides by zero; only c(…) answers that")
        raise _with_dice(refusal, roller) from error
    except DrawnThenRefused:
        raise
    except DiceRefused as error:
        if not roller.rands:
            raise
        raise _with_dice(error, roller) from error
    if result is None:
        if roller.rands:  # no command reads a line after rolling for it; kept honest anyway
            raise DrawnThenRefused("this command rolled dice but gave no result", _dice(roller))
        return None
    return result.model_copy(update={"rands": _dice(roller)})


def _dice(roller: Roller) -> tuple[Rand, ...]:
    return tuple(roller.rands)


def _with_dice(refusal: DiceRefused, roller: Roller) -> DiceRefused:
    return DrawnThenRefused(str(refusal), _dice(roller)) if roller.rands else refusal


def _evaluate(text: str, roller: Roller) -> BcdiceResult | None:
    for command in COMMANDS[:6]:
        if (result := command(text, roller)) is not None:
            return result
    if (result := _repeat(text, roller)) is not None:
        return result
    for command in COMMANDS[6:]:
        if (result := command(text, roller)) is not None:
            return result
    return None


def _repeat(text: str, roller: Roller) -> BcdiceResult | None:
    head = _REPEAT.match(text)
    if head is None or head.group(3) is None or head.group(4) is None:
        return None
    secret, times, trailer = head.group(1) is not None, int(head.group(3)), text[head.end() :]
    if not trailer:
        return None
    if _NESTED_REPEAT.match(trailer):
        return BcdiceResult(text="Repeatコマンドの重複はできません", secret=secret)
    if not 1 <= times <= REPEAT_LIMIT:
        text = f"繰り返し回数は1以上、{REPEAT_LIMIT}以下としてください"
        return BcdiceResult(text=text, secret=secret)
    if times * len(trailer) > MAX_REPEAT_TEXT:
        raise DiceRefused(
            f"this repeat reads too much ({times} × {len(trailer)} characters, at most "
            f"{MAX_REPEAT_TEXT}); repeat fewer times or a shorter command"
        )
    done: list[BcdiceResult] = []
    for _ in range(times):
        result = _evaluate(trailer, roller)
        if result is None:  # reading a line needs no dice: no other repeat would read it
            break
        done.append(result)
    if not done:
        text = f"繰り返し対象のコマンドが実行できませんでした ({trailer})"
        return BcdiceResult(text=text, secret=secret)
    joined = "\n\n".join(f"#{i}\n{r.text}" for i, r in enumerate(done, 1))
    return BcdiceResult(text=joined, secret=secret or any(r.secret for r in done))
