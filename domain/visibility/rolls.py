"""What a reader may see of a roll in a roll log (pure): a secret roll's faces stay with the
GM and whoever rolled it until the log's seed is revealed, after which anyone can see and
recompute every roll (docs/visibility.md).

A roll is secret when its log was opened as secret (a GM's secret log, "GM秘匿"), or when the
roll itself was (BCDice's `S` prefix, or `secret: true` on the request).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.dice import RollResult
from domain.visibility.encounter import Reader

SECRET_TEXT = "(secret roll)"


@dataclass(frozen=True)
class RollView:
    """A roll as one reader sees it: everything, or only that it happened."""

    roll_seq: int
    secret: bool
    withheld: bool
    source: str
    client_seed: str | None
    expression: str
    comment: str
    purpose: str
    faces: tuple[int, ...]
    total: int | None
    success: bool | None
    text: str


def shows_roll(reader: Reader, *, secret: bool, rolled_by: str, revealed: bool) -> bool:
    """Whether `reader` may see a roll's faces."""
    return not secret or revealed or reader.is_gm or reader.member_id == rolled_by


def roll_view(
    result: RollResult, reader: Reader, *, secret: bool, rolled_by: str, revealed: bool
) -> RollView:
    if shows_roll(reader, secret=secret, rolled_by=rolled_by, revealed=revealed):
        return RollView(
            roll_seq=result.roll_seq,
            secret=secret,
            withheld=False,
            source=result.source,
            client_seed=result.client_seed,
            expression=result.expression,
            comment=result.comment,
            purpose=result.purpose,
            faces=tuple(r.value for r in result.rands),
            total=result.total,
            success=result.success,
            text=result.text,
        )
    # The expression and comment go too: a target number ("1D100<=47") can be the secret.
    return RollView(
        roll_seq=result.roll_seq,
        secret=True,
        withheld=True,
        source=result.source,
        client_seed=None,
        expression="",
        comment="",
        purpose="",
        faces=(),
        total=None,
        success=None,
        text=SECRET_TEXT,
    )
