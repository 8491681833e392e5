"""What every read model is made of: tables it declares, row changes it returns.

A projection is pure: `handle(recorded, rows)` reads the projection's own current rows
through `Rows` (for read-modify-write) and returns `Change`s. Where the rows live, how the
changes are batched and when the tracking position moves is the projector's business
(`infra/projector/`), so the same class runs against PostgreSQL and against `MemoryRows`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from operator import itemgetter
from typing import Any, ClassVar, Protocol

from pydantic_core import to_json

from domain.events import DomainEvent

Row = dict[str, Any]
Key = tuple[Any, ...]


@dataclass(frozen=True)
class Column:
    """A column: its name and SQL type (`text`, `uuid`, `bigint`, `jsonb`, `text[]`…)."""

    name: str
    sql_type: str
    nullable: bool = True


@dataclass(frozen=True)
class Table:
    """A table a projection owns: columns, primary key, extra indexes (column lists)."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    indexes: tuple[tuple[str, ...], ...] = ()
    gin: tuple[str, ...] = ()  # array or jsonb columns searched by containment
    # False for output a handler rarely or never reads back (log lines): the projector then
    # keeps none of its rows in memory and asks PostgreSQL on the rare read.
    lookup: bool = True

    def key_of(self, row: Mapping[str, Any]) -> Key:
        return self._key_getter(row)

    def __hash__(self) -> int:
        # A table keys the projector's statement caches, several times per batch: hashing
        # every column again each time cost more than the lookups it served.
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.name, self.columns, self.key, self.indexes, self.gin, self.lookup))

    @cached_property
    def _key_getter(self) -> Callable[[Mapping[str, Any]], Key]:
        # Called for every row a handler puts: itemgetter does it in C. One column gives a
        # bare value, so it is wrapped to stay a tuple like the rest.
        if len(self.key) == 1:
            (name,) = self.key
            return lambda row: (row[name],)
        return itemgetter(*self.key)

    @cached_property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


class Later:
    """A column value worked out only if its row is written: `Later(function, *args)`.

    A projector writes each key once per batch, the last row put under it; a row replaced
    within the batch never needs its costly columns (a sheet's JSON state, say, redone on
    every event of a churning pilot). The arguments must not change afterwards (states are
    frozen models), so that working it out later gives what working it out now would.
    """

    __slots__ = ("_call",)

    def __init__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._call = partial(function, *args, **kwargs)

    def value(self) -> Any:
        return self._call()


class EncodedJson(bytes):
    """A jsonb column's value as JSON text already: the projector writes it as it is.

    pydantic encodes a model or a list of them in one call into Rust, five times faster than
    `json.dumps(model.model_dump(mode="json"))`, and a sheet writes several per row.
    """


def encoded(value: Any) -> EncodedJson:
    """`value` (models, lists and dicts of them, plain JSON values) as JSON text."""
    return EncodedJson(to_json(value))


def settled(row: Row) -> Row:
    """The row as stored: every `Later` in it worked out (the row itself if there is none)."""
    for value in row.values():
        if type(value) is Later:
            return {k: v.value() if type(v) is Later else v for k, v in row.items()}
    return row


def now(value: Any) -> Any:
    """A column value read back by a handler: worked out if it was left for later."""
    return value.value() if isinstance(value, Later) else value


@dataclass(frozen=True)
class Put:
    """Insert the row, or replace the row with the same key (values may be `Later`)."""

    table: str
    row: Row


@dataclass(frozen=True)
class Delete:
    """Remove the row with this key, if any."""

    table: str
    key: Key


Change = Put | Delete


class Rows(Protocol):
    """The projection's own rows as they stand after every change handed back so far.

    Read-only: a handler changes a row by putting a new one (`row | {...}`). A row put in the
    current batch may still hold `Later` values: read those through `now`.
    """

    def get(self, table: str, key: Key) -> Row | None: ...


class Recorded(Protocol):
    """An event as the log hands it over (infra.store.mapper.Recorded has this shape)."""

    @property
    def stream_id(self) -> Any: ...

    @property
    def version(self) -> int: ...

    @property
    def event(self) -> DomainEvent: ...

    @property
    def position(self) -> int | None: ...


class Projection:
    """One read model with a versioned name: bump `version` when its tables or rows change."""

    name: ClassVar[str] = ""
    version: ClassVar[int] = 1
    tables: ClassVar[Sequence[Table]] = ()

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """The row changes one event makes (none for events this model ignores)."""
        raise NotImplementedError

    def wants(self, event_class: type[DomainEvent]) -> bool:
        """False only if `handle` returns no change for any event of this class, whatever the
        rows: the projector then neither hands such events over nor, if no model wants
        them, decodes them. Asked once per class; the default wants everything."""
        return True

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)


def position_of(recorded: Recorded) -> int:
    """The log position; a read model row without one could not say what it reflects."""
    if recorded.position is None:
        raise ValueError("a projection needs events read from the log, with positions")
    return recorded.position


def field(event: object, name: str) -> Any:
    """A field of any event, or None: generic models read events they were not written for."""
    # Looked up in the model's fields first: a missing attribute on a pydantic model raises
    # inside __getattr__, which costs more than the rest of a handler. The answer is
    # remembered per class and name: pydantic builds `model_fields` anew on every access,
    # and the projector asks several times per event.
    slot = (type(event), name)
    present = _PRESENT.get(slot)
    if present is None:
        fields = getattr(slot[0], "model_fields", None)
        present = _PRESENT[slot] = fields is None or name in fields
    return getattr(event, name, None) if present else None


_PRESENT: dict[tuple[type, str], bool] = {}
