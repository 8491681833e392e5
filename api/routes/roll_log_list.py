"""A campaign's roll logs by name (issue #35 §7): the table log first, then the logs its members
opened, each with its number of rolls and when the last roll the reader may see was made.

It shows a reader nothing the log itself would not (`GET /v1/roll-logs/{id}`): a log's name,
kind and number of rolls are there for every reader; a secret roll's time is the GM's and its
roller's alone until the reveal, like its faces (docs/visibility.md, "Secret rolls").
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.encounter_views import reader_of
from api.security import READERS, PrincipalDep, require
from domain.roll_log import RollLog
from domain.roll_logs import LogKind
from domain.visibility.encounter import Reader
from domain.visibility.rolls import shows_roll

router = APIRouter(tags=["rolls"])
MAX_PAGE = 100


class RollLogListed(BaseModel):
    id: str = Field(examples=["0b0f6a1e-54c4-5c55-9d4f-2a4f6e0d1c11"])
    name: str = Field(examples=["table rolls", "GM秘匿"])
    kind: LogKind = Field(
        description="`table`: the campaign's table log, where rolls go unless told otherwise; "
        "`named`: a log a member opened by name; `secret`: one opened secret (GM秘匿).",
        examples=["table"],
    )
    secret: bool = Field(description="A secret log: its rolls are secret until revealed.")
    revealed: bool = Field(description="Its seed is revealed: verifiable, no more rolls.")
    rolls: int = Field(description="Rolls recorded in it, secret ones included.", examples=[12])
    last_roll_at: datetime | None = Field(
        description="When the last roll you may see was made; null if none."
    )
    href: str = Field(description="The log itself.", examples=["/v1/roll-logs/0b0f6a1e-…"])
    page: str = Field(description="The log on the table's page.", examples=["/table/rolls/…"])


class RollLogList(BaseModel):
    campaign_id: str
    table_log_id: str | None = Field(
        description="The table log that takes rolls now; null until the campaign's first roll."
    )
    logs: list[RollLogListed]
    total: int = Field(description="Logs the campaign lists, on every page.", examples=[3])
    next_offset: int | None = Field(description="`offset` for the next page; null on the last.")


def _last_seen(state: RollLog, reader: Reader) -> datetime | None:
    revealed = state.revealed_seed is not None
    for seq in range(len(state.rolls) - 1, -1, -1):
        secret, by = state.is_secret(seq), state.rolled_by[seq]
        if shows_roll(reader, secret=secret, rolled_by=by, revealed=revealed):
            return state.rolled_at[seq]
    return None


@router.get(
    "/v1/campaigns/{campaign_id}/rolls/logs",
    response_model=RollLogList,
    operation_id="listRollLogs",
    summary="A campaign's roll logs by name, the table log first",
)
def list_roll_logs(
    campaign_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Logs on this page.")] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000, description="Logs to skip.")] = 0,
) -> RollLogList:
    """The campaign's roll logs by name, the table log first, a page at a time."""
    require(who, campaign_id, READERS)
    found = runtime.roll_logs.page(campaign_id, offset=offset, limit=limit)
    reader = reader_of(who)
    return RollLogList(
        campaign_id=str(campaign_id),
        table_log_id=str(found.table_log.log_id) if found.table_log else None,
        logs=[
            RollLogListed(
                id=str(log.log_id),
                name=state.name,
                kind=log.kind,
                secret=state.secret,
                revealed=state.revealed_seed is not None,
                rolls=len(state.rolls),
                last_roll_at=_last_seen(state, reader),
                href=f"/v1/roll-logs/{log.log_id}",
                page=f"/table/rolls/{log.log_id}",
            )
            for log, state in found.logs
        ],
        total=found.total,
        next_offset=found.next_offset,
    )
