"""What a calculator decided, which rules it applied and the numbers behind it.

Generic on purpose: the Wizardry-style and Armor Knights calculators will return the same
carrier, so the ruling log has one shape whatever the rule system.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

Scalar = int | str | bool | None
# Tuples (not lists) so that a frozen Decision does not hand out something mutable;
# the tuple-of-records form carries e.g. every initiative re-roll.
Value = Scalar | tuple[Scalar, ...] | tuple[dict[str, Scalar], ...]


class DieRoll(BaseModel):
    """One die face a calculator used, with the rule it was rolled for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sides: int
    face: int
    purpose: str


class Decision(BaseModel):
    """A ruling's content: rule IDs, inputs, dice, options consulted, outcome, summaries."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_ids: tuple[str, ...]
    inputs: dict[str, Value]
    outcome: dict[str, Value]
    dice: tuple[DieRoll, ...] = ()
    # Only the options that changed or could have changed this outcome, so that a replay
    # under another house rule knows which rulings to recompute.
    # A factory, not `= {}`: a mutable default is deep-copied for every Decision made.
    options: dict[str, Scalar] = Field(default_factory=dict)
    summary_en: str
    summary_ja: str
