"""Recomputing the hash chain of a shard's log (`senki verify`).

A link is sha256(previous link ‖ int8 position ‖ uuid stream ‖ int8 version ‖ salt ‖ int4 len ‖
topic ‖ int4 len ‖ state), the same bytes the `chain_link` trigger hashes (infra/sql/shard.sql).
The salt is the row's secret 16 bytes (schema 13), so a served link tells nothing about a value
the reader was not shown; a row stored before schema 13 has none and is hashed without it. The
first link's previous hash is sha256(genesis), where genesis names the shard.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from uuid import UUID

SALT_BYTES = 16  # the trigger's uuid_send(gen_random_uuid())


@dataclass(frozen=True)
class ChainRow:
    position: int
    stream_id: UUID
    version: int
    topic: str
    state: bytes
    chain_prev: int | None
    chain_hash: bytes | None
    salt: bytes | None  # None: stored before schema 13, linked by the unsalted formula


@dataclass(frozen=True)
class ChainBreak:
    position: int
    reason: str


@dataclass
class ChainReport:
    """What a walk over the chain found; `ok` when no link is broken."""

    checked: int = 0
    head_position: int = 0
    head_hash: bytes = b""
    breaks: list[ChainBreak] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaks

    @property
    def first_break(self) -> ChainBreak | None:
        return self.breaks[0] if self.breaks else None


def link(previous: bytes, row: ChainRow) -> bytes:
    """The hash of one link, byte for byte as the database trigger computes it."""
    topic = row.topic.encode("utf-8")
    return hashlib.sha256(
        previous
        + struct.pack(">q", row.position)
        + row.stream_id.bytes
        + struct.pack(">q", row.version)
        + (row.salt or b"")
        + struct.pack(">i", len(topic))
        + topic
        + struct.pack(">i", len(row.state))
        + row.state
    ).digest()


def genesis_hash(genesis: bytes) -> bytes:
    return hashlib.sha256(genesis).digest()


def walk(rows: Iterable[ChainRow], genesis: bytes) -> ChainReport:
    """Recompute every link in position order and name each place the stored chain disagrees."""
    report = ChainReport(head_hash=genesis_hash(genesis))
    previous_position, previous_hash = 0, report.head_hash
    for row in rows:
        report.checked += 1
        problem = _check_row(row, previous_position, previous_hash)
        if problem:
            # A removal is named at the missing position, everything else at the row itself.
            removed = row.chain_prev is not None and row.chain_prev > previous_position
            position = row.chain_prev if removed and row.chain_prev is not None else row.position
            report.breaks.append(ChainBreak(position, problem))
        # Continue from what is stored, so one edit is reported once, not at every later row.
        previous_position = row.position
        previous_hash = row.chain_hash if row.chain_hash is not None else link(previous_hash, row)
        report.head_position, report.head_hash = previous_position, previous_hash
    return report


def _check_row(row: ChainRow, previous_position: int, previous_hash: bytes) -> str | None:
    if row.chain_prev is None or row.chain_hash is None:
        return "the row has no chain link: it was inserted past the chain trigger"
    if row.chain_prev > previous_position:
        return (
            f"position {row.chain_prev} is missing: the event at position {row.position} was "
            f"chained after it, so an event was removed"
        )
    if row.chain_prev < previous_position:
        return (
            f"the row was chained after position {row.chain_prev}, but position "
            f"{previous_position} stands before it: rows were inserted out of order or reordered"
        )
    if row.salt is not None and len(row.salt) != SALT_BYTES:
        return f"the row's salt is {len(row.salt)} bytes, not {SALT_BYTES}: it was altered"
    if link(previous_hash, row) != row.chain_hash:
        return "the row's contents do not match its chain link: the event was altered"
    return None
