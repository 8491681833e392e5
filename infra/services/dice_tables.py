"""Application service for the dice tables a GM keeps in a campaign: save a version, read them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel

from domain.aggregate import NotFound
from domain.campaign import dice_tables
from domain.campaign.dice_tables import DiceTables, TableVersion
from domain.dice.bcdice.user_table import read_table
from domain.roll_log import KeptTable
from infra.services.executor import Executor, Idempotency


class TableVersionPublic(BaseModel):
    version: int
    text: str
    saved_at: datetime
    saved_by: str


class DiceTablePublic(BaseModel):
    """A kept table: its latest version, what its dice are, and (when asked) every version."""

    name: str
    title: str  # the table's first line, which its roll shows
    dice: str  # its dice line: 1D6, 2D6, D66, D66A…
    rows: int
    version: int
    text: str
    saved_at: datetime
    saved_by: str
    versions: list[TableVersionPublic] | None = None


def public(name: str, versions: tuple[TableVersion, ...], *, history: bool) -> DiceTablePublic:
    latest = versions[-1]
    table = read_table(latest.text)
    return DiceTablePublic(
        name=name,
        title=table.name,
        dice=table.dice_line,
        rows=len(table.rows),
        version=latest.version,
        text=latest.text,
        saved_at=latest.at,
        saved_by=latest.by,
        versions=[
            TableVersionPublic(version=v.version, text=v.text, saved_at=v.at, saved_by=v.by)
            for v in versions
        ]
        if history
        else None,
    )


class DiceTableService:
    """One per process."""

    def __init__(self, executor: Executor, clock: Callable[[], datetime]) -> None:
        self.executor = executor
        self.clock = clock

    def tables(self, campaign_id: UUID) -> DiceTables:
        """The campaign's tables, every version of each (none kept yet: empty)."""
        stream = dice_tables.stream_of(campaign_id)
        try:
            return self.executor.load(dice_tables.KIND, stream).state
        except NotFound:
            return dice_tables.KIND.initial(stream)

    def to_roll(self, campaign_id: UUID, name: str) -> tuple[str, KeptTable]:
        """A kept table's latest text and the name and version a roll of it records."""
        versions = self.tables(campaign_id).tables.get(name)
        if not versions:
            raise NotFound(f"campaign {campaign_id} keeps no table {name!r}")
        return versions[-1].text, KeptTable(name=name, version=versions[-1].version)

    def save(
        self,
        campaign_id: UUID,
        name: str,
        text: str,
        *,
        by: str,
        idempotency: Idempotency | None = None,
    ) -> DiceTablePublic:
        """Keep `text` as the next version of `name` (the first table saved opens the stream
        on the campaign's shard)."""
        stream = dice_tables.stream_of(campaign_id)
        state = self.tables(campaign_id)
        events = dice_tables.save(state, campaign_id, name, text, at=self.clock(), by=by)

        def respond(after: DiceTables, _: int) -> DiceTablePublic:
            return public(name, after.tables[name], history=False)

        if state.campaign_id is None:
            return self.executor.create(
                dice_tables.KIND,
                stream,
                events,
                respond,
                restore=DiceTablePublic.model_validate,
                idempotency=idempotency,
                campaign_id=campaign_id,
            )
        return self.executor.execute(
            dice_tables.KIND,
            stream,
            lambda now: dice_tables.save(now, campaign_id, name, text, at=self.clock(), by=by),
            respond,
            restore=DiceTablePublic.model_validate,
            idempotency=idempotency,
        )
