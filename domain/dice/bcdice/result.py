"""What a BCDice command came to, with BCDice-API's fields and the dice behind it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from domain.dice.bcdice.faces import Rand


class BcdiceResult(BaseModel):
    """BCDice's `Result`: its exact text and flags, the dice (`rands`) and Senki's `total`.

    `total` is the number the roll came to where there is one: an add roll's total, a D66's
    value, a calc's value, the success count of counting dice, an upper roll's sum; else None.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    total: int | None = None
    success: bool = False
    failure: bool = False
    critical: bool = False
    fumble: bool = False
    secret: bool = False
    rands: tuple[Rand, ...] = ()
