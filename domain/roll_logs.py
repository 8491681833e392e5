"""A campaign's roll logs, by name: its table log, where rolls go unless told otherwise, and
the logs its members open beside it ("GM秘匿", "探索") — so every log can be found again.

One stream per campaign lists them (found from the campaign, like its dice tables). The table
log's id is derived from the campaign and its generation, so two first rolls at once name the
same log and only one of them opens it; a table log whose seed the GM revealed takes no more
rolls, so the next roll opens the next generation.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.aggregate import AggregateKind
from domain.errors import CommandRefused
from domain.events import DomainEvent, registry

LogKind = Literal["table", "named", "secret"]
TABLE_LOG_NAME = "table rolls"  # the table log's name (the page shows it as 卓のダイスログ)
# Logs one member may open by name: a player (or a script with their token) opening log after
# log would bury the campaign's list for everyone; the table log never counts.
MAX_OPENED_BY_ONE = 50
MAX_NAMED = 500  # every member together
_STREAMS = uuid.UUID("0b6f2c52-9d1e-4f0a-8c7b-52656c6c4c6f")  # Senki's namespace: the lists
_TABLE_LOGS = uuid.UUID("3c1a7e90-2f4b-4b8e-a5d6-5461626c654c")  # and the table logs


class RollLogListed(DomainEvent):
    """A roll log joined its campaign's list: the table log, or one a member opened."""

    event_type = "RollLogListed"
    campaign_id: UUID
    log_id: UUID
    name: str
    kind: LogKind
    generation: int = 0  # a table log's: 0 for the first, one more after each reveal


registry.register(RollLogListed)


class ListedLog(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    log_id: UUID
    name: str
    kind: LogKind
    generation: int
    at: datetime
    by: str


class RollLogs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    campaign_id: UUID | None = None
    logs: tuple[ListedLog, ...] = ()  # in the order they were listed

    @property
    def table_log(self) -> ListedLog | None:
        """The latest generation of the table log, if one was ever opened."""
        tables = [log for log in self.logs if log.kind == "table"]
        return tables[-1] if tables else None

    def listed(self, log_id: UUID) -> bool:
        return any(log.log_id == log_id for log in self.logs)


def evolve(state: RollLogs, event: DomainEvent) -> RollLogs:
    if isinstance(event, RollLogListed):
        listed = ListedLog(
            log_id=event.log_id,
            name=event.name,
            kind=event.kind,
            generation=event.generation,
            at=event.at,
            by=event.by,
        )
        return state.model_copy(
            update={"campaign_id": event.campaign_id, "logs": (*state.logs, listed)}
        )
    return state


KIND = AggregateKind[RollLogs](
    "roll_logs", lambda i: RollLogs(id=i), evolve, lambda s: s.campaign_id is not None
)


def stream_of(campaign_id: UUID) -> UUID:
    """The campaign's list of roll logs: one stream, found from the campaign."""
    return uuid.uuid5(_STREAMS, str(campaign_id))


def table_log_of(campaign_id: UUID, generation: int = 0) -> UUID:
    """The table log's id: whoever rolls first, every process names the same log."""
    return uuid.uuid5(_TABLE_LOGS, f"{campaign_id}/{generation}")


class TooManyLogs(CommandRefused):
    """A member (or the campaign) has opened as many named logs as a list keeps."""


def list_table_log(
    state: RollLogs, campaign_id: UUID, generation: int, *, at: datetime, by: str
) -> list[DomainEvent]:
    """List the table log of this generation; listing it again changes nothing."""
    log_id = table_log_of(campaign_id, generation)
    if state.listed(log_id):
        return []
    return [
        RollLogListed(
            campaign_id=campaign_id,
            log_id=log_id,
            name=TABLE_LOG_NAME,
            kind="table",
            generation=generation,
            at=at,
            by=by,
        )
    ]


def list_opened(
    state: RollLogs,
    campaign_id: UUID,
    log_id: UUID,
    name: str,
    *,
    secret: bool,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """List a log a member opens by name; a retry of the same opening changes nothing."""
    if state.listed(log_id):
        return []
    named = [log for log in state.logs if log.kind != "table"]
    if sum(log.by == by for log in named) >= MAX_OPENED_BY_ONE:
        raise TooManyLogs(
            f"you have opened {MAX_OPENED_BY_ONE} roll logs in this campaign, the most one "
            "member may: roll in one of them (GET /v1/campaigns/{id}/rolls/logs lists them) "
            "or in the table log (leave out roll_log_id and name)",
            ja=f"このキャンペーンで開けるダイスログは1人{MAX_OPENED_BY_ONE}個までです。"
            "開いたログ（GET /v1/campaigns/{id}/rolls/logs で一覧）か、"
            "卓のログ（roll_log_id と name を省く）で振ってください",
        )
    if len(named) >= MAX_NAMED:
        raise TooManyLogs(
            f"this campaign lists {MAX_NAMED} roll logs, the most it keeps: roll in one of them "
            "or in the table log (leave out roll_log_id and name)",
            ja=f"このキャンペーンのダイスログは{MAX_NAMED}個までです。"
            "そのいずれか、または卓のログ（roll_log_id と name を省く）で振ってください",
        )
    kind: LogKind = "secret" if secret else "named"
    return [
        RollLogListed(campaign_id=campaign_id, log_id=log_id, name=name, kind=kind, at=at, by=by)
    ]
