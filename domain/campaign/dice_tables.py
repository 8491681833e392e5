"""Dice tables a GM keeps in a campaign (random encounters, loot, 飲み物表), in BCDice's
user-defined table format, rolled by name from a roll log.

One stream per campaign holds them all: saving a table under a name records its text as the
next version of that name, and every version stays, so a roll that names a table and version
points at the exact text that gave it (the roll itself records that text too, to verify).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.aggregate import AggregateKind
from domain.dice.bcdice.user_table import read_table
from domain.errors import CommandRefused
from domain.events import DomainEvent, registry

MAX_TABLES = 50  # names a campaign keeps
MAX_VERSIONS = 50  # versions one name keeps; the texts are bounded by MAX_TABLE_CHARS
MAX_NAME = 100
_STREAMS = uuid.UUID("5e4b1d1c-7a6e-4d0e-9f3c-2b8a1c0d7e61")  # Senki's namespace for them


class DiceTableSaved(DomainEvent):
    event_type = "DiceTableSaved"
    campaign_id: UUID
    name: str
    table_version: int  # 1 for the first text saved under the name
    text: str


registry.register(DiceTableSaved)


class TableVersion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    text: str
    at: datetime
    by: str


class DiceTables(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    campaign_id: UUID | None = None
    tables: dict[str, tuple[TableVersion, ...]] = {}

    def latest(self, name: str) -> TableVersion | None:
        versions = self.tables.get(name)
        return versions[-1] if versions else None


def evolve(state: DiceTables, event: DomainEvent) -> DiceTables:
    if isinstance(event, DiceTableSaved):
        saved = TableVersion(version=event.table_version, text=event.text, at=event.at, by=event.by)
        versions = (*state.tables.get(event.name, ()), saved)
        tables = state.tables | {event.name: versions}
        return state.model_copy(update={"campaign_id": event.campaign_id, "tables": tables})
    return state


KIND = AggregateKind[DiceTables](
    "dice_tables", lambda i: DiceTables(id=i), evolve, lambda s: s.campaign_id is not None
)


def stream_of(campaign_id: UUID) -> UUID:
    """The campaign's tables' stream: one, found from the campaign without an index."""
    return uuid.uuid5(_STREAMS, str(campaign_id))


class TableNameRefused(CommandRefused):
    """A table's name that cannot be kept; says why."""


def _checked_name(name: str) -> str:
    if not 0 < len(name) <= MAX_NAME or name != name.strip():
        raise TableNameRefused(
            f"a table's name has 1 to {MAX_NAME} characters, no space at either end",
            ja=f"ダイス表の名前は1～{MAX_NAME}文字で、前後に空白を置けません",
        )
    if not name.isprintable() or "/" in name:
        raise TableNameRefused(
            "a table's name holds no control character and no '/'",
            ja="ダイス表の名前には制御文字と「/」を使えません",
        )
    return name


def save(
    state: DiceTables, campaign_id: UUID, name: str, text: str, *, at: datetime, by: str
) -> list[DomainEvent]:
    """Keep `text` as the next version of the table `name`, once BCDice could roll it
    (TableRefused says what is wrong); the same text as the latest version changes nothing."""
    name = _checked_name(name)
    read_table(text)
    versions = state.tables.get(name, ())
    if versions and versions[-1].text == text:
        return []
    if not versions and len(state.tables) >= MAX_TABLES:
        raise CommandRefused(
            f"a campaign keeps at most {MAX_TABLES} tables",
            ja=f"キャンペーンが保存できるダイス表は {MAX_TABLES} 個までです",
        )
    if len(versions) >= MAX_VERSIONS:
        raise CommandRefused(
            f"table {name!r} has {MAX_VERSIONS} versions, the most kept; save it under a new name",
            ja=f"ダイス表 {name!r} は保存できる上限の {MAX_VERSIONS} 版に達しています。"
            "別の名前で保存してください",
        )
    saved = DiceTableSaved(
        campaign_id=campaign_id,
        name=name,
        table_version=len(versions) + 1,
        text=text,
        at=at,
        by=by,
    )
    return [saved]
