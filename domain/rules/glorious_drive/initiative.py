"""Initiative phase (行動順決定フェーズ): GD-INIT-1..3."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from pydantic import BaseModel, ConfigDict

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.draws import Draw, checked_face, draw_checked
from domain.rules.outcome import Decision

# A rigged `draw` that always ties would loop forever; a fair 1D6 never needs this many.
MAX_REROLL_ROUNDS = 200


class InitiativeRoll(BaseModel):
    """A combatant's GD-INIT-1 roll: reaction stat and the 1D6 face."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    combatant_id: str
    reaction: int
    die: int

    @property
    def total(self) -> int:
        """GD-INIT-1: reaction + 1D6."""
        return self.reaction + self.die


class Reroll(BaseModel):
    """One GD-INIT-2 tie-break 1D6: who rolled it, the face, and the re-roll round."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    combatant_id: str
    die: int
    round: int


class InitiativeOrder(BaseModel):
    """The fixed order (first acts first), the rolls behind it and every re-roll."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    order: tuple[str, ...]
    rolls: tuple[InitiativeRoll, ...]
    rerolls: tuple[Reroll, ...]

    def decision(self) -> Decision:
        """The ruling: GD-INIT-1 (and GD-INIT-2 when a tie was broken)."""
        rules = ("GD-INIT-1", "GD-INIT-2") if self.rerolls else ("GD-INIT-1",)
        return Decision(
            rule_ids=rules,
            inputs={"rolls": tuple(r.model_dump() for r in self.rolls)},
            outcome={"order": self.order, "rerolls": tuple(r.model_dump() for r in self.rerolls)},
            summary_en="initiative order: " + " → ".join(self.order),
            summary_ja="行動順：" + "→".join(self.order),
        )


def initiative_order(rolls: Sequence[InitiativeRoll], draw: Draw) -> InitiativeOrder:
    """GD-INIT-1/2: higher `reaction + 1D6` first; ties by higher reaction; then 1D6 re-rolls.

    Re-rolls repeat among the still-tied characters until all are ordered; each tied group
    counts its own rounds from 1. `draw` is called only for re-rolls, in the given order of
    the tied characters.
    """
    _check_rolls(rolls)
    ranked = sorted(rolls, key=lambda r: (r.total, r.reaction), reverse=True)
    order: list[str] = []
    rerolls: list[Reroll] = []
    for _, tied in groupby(ranked, key=lambda r: (r.total, r.reaction)):
        order += _break_tie([r.combatant_id for r in tied], draw, 1, rerolls)
    return InitiativeOrder(order=tuple(order), rolls=tuple(rolls), rerolls=tuple(rerolls))


def apply_delay(order: Sequence[str], who: str, after_whom: str) -> tuple[str, ...]:
    """GD-INIT-3: `who` delays to act right after `after_whom`; never earlier."""
    positions = {cid: i for i, cid in enumerate(order)}
    for cid in (who, after_whom):
        if cid not in positions:
            raise RuleViolation(
                "GD-INIT-3",
                f"{cid!r} is not in the initiative order",
                ja=f"{cid!r} は行動順にいません",
            )
    if positions[after_whom] <= positions[who]:
        raise RuleViolation(
            "GD-INIT-3",
            f"{who!r} acts at position {positions[who] + 1} and {after_whom!r} at "
            f"{positions[after_whom] + 1}; a delay can only move later, never earlier",
            ja=f"{who!r} の行動順は {positions[who] + 1} 番目、"
            f"{after_whom!r} は {positions[after_whom] + 1} 番目です。遅らせることはできても、"
            "早めることはできません",
        )
    rest = [cid for cid in order if cid != who]
    slot = rest.index(after_whom) + 1
    return (*rest[:slot], who, *rest[slot:])


def _break_tie(ids: list[str], draw: Draw, round_: int, log: list[Reroll]) -> list[str]:
    if len(ids) == 1:
        return ids
    if round_ > MAX_REROLL_ROUNDS:
        raise RuleViolation(
            "GD-INIT-2",
            f"{ids} still tied after {MAX_REROLL_ROUNDS} re-rolls",
            ja=f"{ids} は {MAX_REROLL_ROUNDS} 回振り直しても同値のままです",
        )
    faces = {cid: draw_checked(draw, 6, "GD-INIT-2 tie-break", "GD-INIT-2").face for cid in ids}
    log += [Reroll(combatant_id=cid, die=faces[cid], round=round_) for cid in ids]
    ordered: list[str] = []
    by_face = sorted(ids, key=faces.__getitem__, reverse=True)
    for _, still_tied in groupby(by_face, key=faces.__getitem__):
        ordered += _break_tie(list(still_tied), draw, round_ + 1, log)
    return ordered


def _check_rolls(rolls: Sequence[InitiativeRoll]) -> None:
    ids = [r.combatant_id for r in rolls]
    if len(set(ids)) != len(ids):
        raise RuleViolation(
            "GD-INIT-1",
            f"each combatant rolls once; duplicates in {ids}",
            ja=f"行動順決定の判定は一人一回です。{ids} に重複があります",
        )
    for roll in rolls:
        checked_face(roll.die, 6, "GD-INIT-1")
