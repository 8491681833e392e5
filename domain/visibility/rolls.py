"""What a reader may see of a roll in a roll log (pure): a secret roll's faces stay with the
GM and whoever rolled it until the log's seed is revealed, after which anyone can see and
recompute every roll (docs/visibility.md).

A roll is secret when its log was opened as secret (a GM's secret log, "GM秘匿"), or when the
roll itself was (BCDice's `S` prefix, or `secret: true` on the request).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.dice.bcdice import Rand, TableRoll
from domain.visibility.encounter import Reader

SECRET_TEXT = "(secret roll)"


@dataclass(frozen=True)
class RollView:
    """A roll as one reader sees it: everything (BCDice-API's shape), or only that it happened.

    A withheld roll keeps its number and source; its command, text, total, flags, dice and
    roller are empty (the flags None: neither true nor false is known to this reader)."""

    roll_seq: int
    secret: bool
    withheld: bool
    source: str
    client_seed: str | None
    command: str
    expression: str
    comment: str
    purpose: str
    text: str
    total: int | None
    success: bool | None
    failure: bool | None
    critical: bool | None
    fumble: bool | None
    rands: tuple[Rand, ...]
    rolled_by: str | None  # the member (or roller token) who rolled it; None when withheld
    table: str | None = None  # the GM's kept table it rolled, named with its version


def shows_roll(reader: Reader, *, secret: bool, rolled_by: str, revealed: bool) -> bool:
    """Whether `reader` may see a roll's faces."""
    return not secret or revealed or reader.is_gm or reader.member_id == rolled_by


def roll_view(
    result: TableRoll,
    reader: Reader,
    *,
    secret: bool,
    rolled_by: str,
    revealed: bool,
    table: str | None = None,
) -> RollView:
    if shows_roll(reader, secret=secret, rolled_by=rolled_by, revealed=revealed):
        return RollView(
            roll_seq=result.roll_seq,
            secret=secret,
            withheld=False,
            source=result.source,
            client_seed=result.client_seed,
            command=result.command,
            expression=result.expression,
            comment=result.comment,
            purpose=result.purpose,
            text=result.text,
            total=result.total,
            success=result.success,
            failure=result.failure,
            critical=result.critical,
            fumble=result.fumble,
            rands=result.rands,
            rolled_by=rolled_by,
            table=table,
        )
    # The command and comment go too: a target number ("1D100<=47") can be the secret; and
    # who rolled, since a secret roll's roller is all the table would have to go on.
    return RollView(
        roll_seq=result.roll_seq,
        secret=True,
        withheld=True,
        source=result.source,
        client_seed=None,
        command="",
        expression="",
        comment="",
        purpose="",
        text=SECRET_TEXT,
        total=None,
        success=None,
        failure=None,
        critical=None,
        fumble=None,
        rands=(),
        rolled_by=None,
    )
