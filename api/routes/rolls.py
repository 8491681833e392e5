"""Free rolls at the table (a GM's secret roll, a chat roll) in roll logs you can verify."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Self
from uuid import UUID

from fastapi import APIRouter, Depends, HTTPException, Response, status
from pydantic import BaseModel, Field, model_validator

from api.deps import RuntimeDep
from api.encounter_views import reader_of
from api.leaves import roll_leaves
from api.security import GM_ONLY, READERS, WRITERS, PrincipalDep, require
from api.writes import etag, idempotency_key
from domain.campaign.dice_tables import MAX_NAME
from domain.dice.bcdice.limits import MAX_RANDS
from domain.dice.bcdice.user_table import SYSTEM_ID as TABLE_SYSTEM
from domain.roll_log import KeptTable, RollLog
from domain.visibility.rolls import roll_view
from infra.services import (
    Idempotency,
    Principal,
    PrincipalRole,
    RollAnswer,
    RollLogPublic,
    RollPublic,
    Runtime,
)

router = APIRouter(tags=["rolls"])
DEFAULT_PURPOSE = "table roll"

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]


class RollCreate(BaseModel):
    expression: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A BCDice command (the base system's language), then an optional comment.",
        examples=["2D6+3>=10 攻撃", "3B6>=4", "2R6[5]>=5", "S1D100<=50", "choice[A,B,C]"],
    )
    table: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME,
        description="Instead of an expression, roll the campaign's kept dice table of this "
        "name (its latest version); the roll records the table's name, version and text.",
        examples=["飲み物表"],
    )
    roll_log_id: UUID | None = Field(
        default=None,
        description="Roll in this log. Without it (and without `name`) the roll goes to the "
        "campaign's table log, the one every member's rolls share (opened by the first roll).",
    )
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Open a log of this name beside the table log (listed by "
        "`GET /v1/campaigns/{id}/rolls/logs`), and roll its first roll in it.",
        examples=["GM秘匿"],
    )
    purpose: str = Field(default=DEFAULT_PURPOSE, max_length=200)
    client_seed: str | None = Field(default=None, max_length=200)
    secret: bool = Field(
        default=False,
        description="Secret (GM秘匿): opening a log, the whole log; rolling, this roll. Its "
        "faces are shown to the GM and the roller alone until the log's seed is revealed.",
    )
    hand_faces: list[int] | None = Field(
        default=None,
        max_length=MAX_RANDS,
        description="Physical dice rolled at the table, one face per die in rolling order "
        "(rerolled and exploding dice included); the roll is then marked `source: hand`.",
        examples=[[3, 4]],
    )

    @model_validator(mode="after")
    def something_to_do(self) -> Self:
        if self.expression is not None and self.table is not None:
            raise ValueError("roll an expression or a table, not both")
        if self.roll_log_id is not None and self.name is not None:
            raise ValueError("roll in a log (roll_log_id) or open one (name), not both")
        if self.roll_log_id is not None and self.expression is None and self.table is None:
            raise ValueError("give an expression (or a table) to roll in an existing log")
        if self.hand_faces is not None and self.client_seed is not None:
            raise ValueError("a client seed mixes into server dice; dice entered by hand have none")
        return self


class RollLogFull(RollLogPublic):
    entries: list[RollPublic]


class RollLogCheck(BaseModel):
    roll_seq: int
    text: str
    verified: bool
    problems: list[str]
    unverifiable: str | None


class RollLogAudit(BaseModel):
    id: str
    commitment: str
    revealed_seed: str
    all_verified: bool
    checks: list[RollLogCheck]


def _seen(state: RollLog, who: Principal) -> list[RollPublic]:
    """Every roll of the log as `who` may see it (domain.visibility.rolls)."""
    reader = reader_of(who)
    views = (
        roll_view(
            result,
            reader,
            secret=state.is_secret(result.roll_seq),
            rolled_by=by,
            revealed=state.revealed_seed is not None,
            table=_kept(state, result.roll_seq),
        )
        for result, by in zip(state.rolls, state.rolled_by, strict=True)
    )
    return [
        RollPublic.model_validate(
            asdict(view)
            | {
                "rands": [rand.model_dump() for rand in view.rands],
                "faces": [rand.value for rand in view.rands],
                # why a roll was refused tells of its dice: withheld with them
                "refused": None if view.withheld else state.refused.get(view.roll_seq),
            }
        )
        for view in views
    ]


def _kept(state: RollLog, roll_seq: int) -> str | None:
    kept = state.kept_tables.get(roll_seq)
    return kept.shown if kept is not None else None


def _load(
    runtime: Runtime, who: Principal, log_id: UUID, roles: tuple[PrincipalRole, ...]
) -> tuple[RollLog, int]:
    state, version = runtime.roll_logs.get(log_id)
    _authorised(state, who, roles)
    return state, version


def _authorised(state: RollLog, who: Principal, roles: tuple[PrincipalRole, ...]) -> None:
    if state.campaign_id is None:
        raise HTTPException(403, "this roll log belongs to no campaign; no token reaches it")
    require(who, state.campaign_id, roles)


def _what_to_roll(
    runtime: Runtime, campaign_id: UUID, body: RollCreate
) -> tuple[str, str, KeptTable | None] | None:
    """The command, its system and the kept table it comes from, if any; None: only open."""
    if body.table is None:
        return None if body.expression is None else (body.expression, "DiceBot", None)
    text, kept = runtime.dice_tables.to_roll(campaign_id, body.table)
    return text, TABLE_SYSTEM, kept


@router.post(
    "/v1/campaigns/{campaign_id}/rolls",
    response_model=RollAnswer,
    operation_id="rollDice",
    summary="Roll dice in the table log, a named log, or a log opened by name",
)
def roll(
    campaign_id: UUID,
    body: RollCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
) -> RollAnswer:
    """Roll in the campaign's table log, in a log (`roll_log_id`), or open a log by `name`
    and roll its first roll in it; 201 when the request opened a log (the table log too)."""
    require(who, campaign_id, WRITERS)
    rolled = _what_to_roll(runtime, campaign_id, body)  # a kept table is found before anything
    log_id, at_table = body.roll_log_id, body.roll_log_id is None and body.name is None
    if at_table:
        if rolled is None:  # only open the table log (or find it)
            log_id, opened = runtime.roll_logs.table_log(campaign_id, by=who.actor)
            if opened is not None:
                _opened(response, opened)
            return RollAnswer(roll_log=opened or _public(runtime, log_id, response), roll=None)
    elif log_id is None:
        assert body.name is not None  # not at the table: a name or a log id
        opened = runtime.roll_logs.open(
            body.name, by=who.actor, campaign_id=campaign_id, secret=body.secret, idempotency=key
        )
        log_id = _opened(response, opened)
        if rolled is None:
            return RollAnswer(roll_log=opened, roll=None)
    elif _load(runtime, who, log_id, WRITERS)[0].campaign_id != campaign_id:
        raise HTTPException(404, f"campaign {campaign_id} has no roll log {log_id}")
    assert rolled is not None  # checked by RollCreate
    command, system, kept = rolled
    # A second write in the same request: its own key, derived, so a retry repeats neither.
    rolled_key = Idempotency(f"{key.key}:roll", key.fingerprint)

    def roll_in(log: UUID) -> RollAnswer:
        return runtime.roll_logs.roll(
            log,
            command,
            by=who.actor,
            purpose=body.purpose if kept is None or body.purpose != DEFAULT_PURPOSE else kept.shown,
            client_seed=body.client_seed,
            secret=body.secret,
            hand_faces=body.hand_faces,
            system=system,
            table=kept,
            idempotency=rolled_key,
        )

    if not at_table:
        assert log_id is not None  # opened by name, or given
        answer = roll_in(log_id)
    else:
        answer, opened = runtime.roll_logs.at_table(campaign_id, by=who.actor, roll=roll_in)
        if opened is not None:
            _opened(response, opened)
    etag(response, answer.roll_log.version)
    return _placed(runtime, UUID(answer.roll_log.id), answer)


def _placed(runtime: Runtime, log_id: UUID, answer: RollAnswer) -> RollAnswer:
    """The answer's roll with its event's leaf (the service gave its position)."""
    roll = answer.roll
    if roll is None or roll.position is None:
        return answer
    positions = {roll.roll_seq: roll.position}
    return answer.model_copy(update={"roll": roll_leaves(runtime, log_id, [roll], positions)[0]})


def _opened(response: Response, opened: RollLogPublic) -> UUID:
    """A request that opened a log answers 201 with where the log is."""
    response.status_code = status.HTTP_201_CREATED
    response.headers["Location"] = f"/v1/roll-logs/{opened.id}"
    etag(response, opened.version)
    return UUID(opened.id)


def _public(runtime: Runtime, log_id: UUID, response: Response) -> RollLogPublic:
    found = runtime.roll_logs.public(log_id)
    etag(response, found.version)
    return found


@router.get(
    "/v1/roll-logs/{log_id}",
    response_model=RollLogFull,
    operation_id="getRollLog",
    summary="Read a roll log with its rolls",
)
def get_roll_log(
    log_id: UUID, runtime: RuntimeDep, who: PrincipalDep, response: Response
) -> RollLogFull:
    """The log with every roll recorded in it, each with its event's leaf (`log`)."""
    state, version, positions = runtime.roll_logs.placed(log_id)
    _authorised(state, who, READERS)
    etag(response, version)
    return RollLogFull(
        id=str(state.id),
        name=state.name,
        campaign_id=str(state.campaign_id),
        version=version,
        commitment=state.commitment,
        revealed_seed=state.revealed_seed,
        rolls=len(state.rolls),
        secret=state.secret,
        entries=roll_leaves(runtime, log_id, _seen(state, who), positions),
    )


@router.post(
    "/v1/roll-logs/{log_id}/reveal",
    response_model=RollLogPublic,
    operation_id="revealRollLogSeed",
    summary="Reveal a roll log's seed",
)
def reveal_roll_log(
    log_id: UUID, runtime: RuntimeDep, who: PrincipalDep, key: KeyDep, response: Response
) -> RollLogPublic:
    """The GM reveals the log's seed: anyone can now verify it; no more rolls in it."""
    _load(runtime, who, log_id, GM_ONLY)
    answer = runtime.roll_logs.reveal(log_id, by=who.actor, idempotency=key)
    etag(response, answer.version)
    return answer


@router.get(
    "/v1/roll-logs/{log_id}/verify",
    response_model=RollLogAudit,
    operation_id="verifyRollLog",
    summary="Recompute a roll log's dice after the reveal",
)
def verify_roll_log(log_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> RollLogAudit:
    """After the reveal: every roll recomputed from the seed and checked against its record."""
    _load(runtime, who, log_id, READERS)
    state, checks = runtime.roll_logs.audit(log_id)
    return RollLogAudit(
        id=str(state.id),
        commitment=state.commitment,
        revealed_seed=state.revealed_seed or "",
        all_verified=all(c.verified for c in checks),
        checks=[
            RollLogCheck(
                roll_seq=c.roll_seq,
                text=r.text,
                verified=c.verified,
                problems=list(c.problems),
                unverifiable=c.unverifiable,
            )
            for r, c in zip(state.rolls, checks, strict=True)
        ],
    )
