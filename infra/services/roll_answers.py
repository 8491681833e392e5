"""What the roll-log service answers, typed and declared once (issue #16 item 2).

Built from the log's state where the write happened, kept as JSON for a retry (restored by
`model_validate`), and served by api/routes/rolls.py as its response models. A roll answers
its roller as they see it (nothing withheld from the one who rolled it); every other reader
gets it through domain.visibility.rolls on the read routes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from domain.dice.bcdice.record import TableRoll
from domain.roll_log import RollLog
from infra.services.encounter_answers import EventLog


class RandPublic(BaseModel):
    kind: str = Field(examples=["normal"])
    sides: int
    value: int


class RollPublic(BaseModel):
    """A roll in BCDice-API's shape (text, flags, rands) plus what Senki records about it."""

    roll_seq: int
    withheld: bool = Field(
        default=False,
        description="A secret roll you may not see yet: only its number is shown until the "
        "log's seed is revealed (docs/visibility.md); its command, text, total, flags and "
        "dice are then empty or null.",
    )
    command: str = Field(description="As typed, comment included.")
    expression: str = Field(description="The command without its comment.")
    comment: str
    purpose: str
    source: Literal["server", "hand"]
    client_seed: str | None
    text: str = Field(examples=["(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"])
    total: int | None
    success: bool | None = Field(description="BCDice's flag; null while the roll is withheld.")
    failure: bool | None
    critical: bool | None
    fumble: bool | None
    secret: bool = Field(description="Rolled in secret (a secret log, or BCDice's S prefix).")
    rands: list[RandPublic]
    faces: list[int] = Field(description="The values of `rands`, in rolling order.")
    refused: str | None = Field(
        default=None,
        description="Why the roll was refused after its dice were drawn: it is recorded with "
        "them (its sequence used up, verifiable after the reveal) but decides nothing; null "
        "for a roll that was not refused, or while the roll is withheld.",
    )
    rolled_by: str | None = Field(
        default=None,
        description="Who rolled it: a member id, or `roller:<token id>` for a BCDice-API "
        "address; null while the roll is withheld.",
        examples=["aoi"],
    )
    table: str | None = Field(
        default=None,
        description="The GM's kept dice table it rolled, with its version (its text is "
        "`command`); null for any other roll, and while the roll is withheld.",
        examples=["表「飲み物」v2"],
    )
    position: int | None = Field(
        default=None, description="Position in the chained log of the event that recorded it."
    )
    log: EventLog | None = Field(
        default=None,
        description="That event's leaf in its shard's tree (docs/witnesses.md); absent while "
        "the tree disagrees with the log.",
    )


class RollLogPublic(BaseModel):
    id: str
    name: str
    campaign_id: str | None
    version: int
    commitment: str = Field(description="sha256 of the server seed, published at opening.")
    revealed_seed: str | None
    rolls: int
    secret: bool = Field(description="A secret log: its rolls are secret until revealed.")


class RollAnswer(BaseModel):
    roll_log: RollLogPublic
    roll: RollPublic | None


def log_public(state: RollLog, version: int) -> RollLogPublic:
    return RollLogPublic(
        id=str(state.id),
        name=state.name,
        campaign_id=str(state.campaign_id) if state.campaign_id else None,
        version=version,
        commitment=state.commitment,
        revealed_seed=state.revealed_seed,
        rolls=len(state.rolls),
        secret=state.secret,
    )


def rolled(state: RollLog, version: int, by: str) -> RollAnswer:
    """The log after a roll, and that roll as its roller (`by`) sees it: all of it."""
    roll: TableRoll = state.rolls[-1]
    return RollAnswer(
        roll_log=log_public(state, version),
        roll=RollPublic(
            roll_seq=roll.roll_seq,
            command=roll.command,
            expression=roll.expression,
            comment=roll.comment,
            purpose=roll.purpose,
            source=roll.source,
            client_seed=roll.client_seed,
            text=roll.text,
            total=roll.total,
            success=roll.success,
            failure=roll.failure,
            critical=roll.critical,
            fumble=roll.fumble,
            secret=state.is_secret(roll.roll_seq),
            rands=[RandPublic.model_validate(r, from_attributes=True) for r in roll.rands],
            faces=[r.value for r in roll.rands],
            refused=state.refused.get(roll.roll_seq),
            rolled_by=by,
            table=kept.shown if (kept := state.kept_tables.get(roll.roll_seq)) else None,
        ),
    )


def roll_placed(answer: RollAnswer, positions: Sequence[int]) -> RollAnswer:
    """The answer with the position of the event that recorded its roll (the append's one)."""
    if answer.roll is None or len(positions) != 1:
        return answer
    roll = answer.roll.model_copy(update={"position": positions[0]})
    return answer.model_copy(update={"roll": roll})
