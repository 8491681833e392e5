"""Audit bundles (issue 6): one encounter's events with their chain links, checkable offline.

`export_bundle` reads an encounter's rows as stored (bytes, positions, links) and the shard's
head; `verify_bundle` checks a bundle with no database and no network: pure functions of
the JSON, the chain hashing (infra/store/chain.py), the event registry and the dice. The
format is documented in docs/audit-bundle.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from psycopg.sql import SQL

from domain.aggregate import NotFound
from domain.catalog import registry
from domain.dice import verify, verify_commitment
from domain.encounter.events import EncounterOpened, EncounterSeedRevealed
from domain.events import DomainEvent
from domain.rules.records import EncounterDiceRolled
from infra.store.bundle_proofs import proof_problems
from infra.store.chain import SALT_BYTES, ChainRow, genesis_hash, link
from infra.store.ledger import Ledger
from infra.store.names import ShardTables

FORMAT = "senki-audit-bundle/1"
_LINK = re.compile(r"[0-9a-f]{64}")  # a chain link as exported: 32 bytes, lowercase hex
_SALT = re.compile(f"[0-9a-f]{{{2 * SALT_BYTES}}}")


def export_bundle(
    ledger: Ledger, encounter_id: UUID, *, shard: int | None = None
) -> dict[str, Any]:
    """The encounter's bundle, from its own shard unless `shard` is given."""
    index = ledger.shard_of(encounter_id) if shard is None else shard
    rows = _rows(ledger, encounter_id, index)
    if rows:
        return _bundle(ledger, encounter_id, index, rows)
    raise NotFound(f"no encounter {encounter_id}")


def _rows(ledger: Ledger, encounter_id: UUID, shard: int) -> list[dict[str, Any]]:
    target = ledger.shards[shard]
    events = target.table(target.tables.events)
    # The previous link of each row is read in the same snapshot, beside the row itself.
    query = SQL(
        "SELECT e.notification_id, e.originator_version, e.topic, e.state, e.chain_prev, "
        "e.chain_hash, e.chain_salt, p.chain_hash AS prev_hash FROM {0} e "
        "LEFT JOIN {0} p ON p.notification_id = e.chain_prev "
        "WHERE e.originator_id = %s ORDER BY e.originator_version"
    ).format(events)
    with target.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (encounter_id,))
        return list(cursor.fetchall())


def _bundle(
    ledger: Ledger, encounter_id: UUID, shard: int, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    genesis = ledger.shards[shard].tables.chain_genesis
    events = [_event(row, genesis) for row in rows]
    decoded = [ledger.mapper.to_recorded(_stored(encounter_id, e)).event for e in events]
    opened = next((e for e in decoded if isinstance(e, EncounterOpened)), None)
    if opened is None:
        raise NotFound(f"{encounter_id} is not an encounter")
    reveal = next((e for e in decoded if isinstance(e, EncounterSeedRevealed)), None)
    head = ledger.head(shard=shard)
    return {
        "format": FORMAT,
        "encounter_id": str(encounter_id),
        "shard": shard,
        "chain_genesis": genesis.decode(),
        "ruleset_id": opened.ruleset_id,
        "ruleset_version": opened.ruleset_version,
        "options": opened.options,
        "commitment": opened.commitment,
        "revealed_seed": reveal.server_seed if reveal else None,
        "events": events,
        "head": {"position": head.position, "chain_hash": head.chain_hash},
    }


def _event(row: dict[str, Any], genesis: bytes) -> dict[str, Any]:
    prev = row["prev_hash"]
    chain_prev = row["chain_prev"]
    if chain_prev == 0:
        prev = genesis_hash(genesis)
    return {
        "position": int(row["notification_id"]),
        "version": int(row["originator_version"]),
        "topic": row["topic"],
        "state": bytes(row["state"]).decode("utf-8"),
        "chain_prev": chain_prev,
        "prev_hash": bytes(prev).hex() if prev is not None else None,
        "chain_hash": bytes(row["chain_hash"]).hex() if row["chain_hash"] is not None else None,
        # The secret that blinds the link (schema 13); None for an event stored before it.
        "chain_salt": bytes(row["chain_salt"]).hex() if row["chain_salt"] is not None else None,
    }


def _stored(encounter_id: UUID, event: dict[str, Any]) -> StoredEvent:
    return StoredEvent(encounter_id, event["version"], event["topic"], event["state"].encode())


@dataclass(frozen=True)
class BundleProblem:
    """Something the bundle does not bear out, at an event's log position and version."""

    position: int | None
    version: int | None
    reason: str

    def __str__(self) -> str:
        where = ", ".join(
            f"{name} {value}"
            for name, value in (("position", self.position), ("version", self.version))
            if value is not None
        )
        return f"{where or 'bundle'}: {self.reason}"


@dataclass
class BundleReport:
    """What `verify_bundle` checked and found; `ok` when nothing is wrong."""

    encounter_id: str = ""
    events: int = 0
    dice: int = 0
    dice_recomputed: int = 0
    dice_by_hand: int = 0
    seed_revealed: bool = False
    pinned: str = ""  # what the checkpoint and inclusion proofs were checked against
    problems: list[BundleProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, event: dict[str, Any] | None, reason: str) -> None:
        position = event.get("position") if event else None
        version = event.get("version") if event else None
        self.problems.append(
            BundleProblem(
                position if isinstance(position, int) else None,
                version if isinstance(version, int) else None,
                reason,
            )
        )


def verify_bundle(bundle: dict[str, Any], vkey: str | None = None) -> BundleReport:
    """Check a bundle alone: no database, no network; every problem names where it is. With
    the log's `vkey`, its checkpoint's signature too (the inclusion proofs are always checked)."""
    report = BundleReport()
    try:
        encounter_id = UUID(str(bundle["encounter_id"]))
        genesis = str(bundle["chain_genesis"]).encode()
        events = list(bundle["events"])
    except (KeyError, TypeError, ValueError) as error:
        report.add(None, f"not an audit bundle: {error!r} is missing or malformed")
        return report
    if bundle.get("format") != FORMAT:
        report.add(None, f"format {bundle.get('format')!r} is not {FORMAT!r}")
        return report
    report.encounter_id = str(encounter_id)
    report.events = len(events)
    if bundle["encounter_id"] != str(encounter_id):
        report.add(None, "the encounter_id is not written as exported (a lowercase UUID)")
    _check_shard(bundle, report)
    if not events:
        report.add(None, "the bundle holds no events")
        return report
    _check_order(events, report)
    _check_links(encounter_id, events, genesis, report)
    _check_head(bundle, events, report)
    decoded = _decode(encounter_id, events, report)
    _check_header(bundle, decoded, report)
    _check_dice(bundle, encounter_id, decoded, report)
    problems, report.pinned = proof_problems(bundle, vkey)
    for event, reason in problems:
        report.add(event, reason)
    return report


def _integer(value: object) -> int | None:
    """The value if it is an integer as JSON writes one (not a bool, a float or a string)."""
    return value if type(value) is int else None


def _is_int(value: object) -> bool:
    return _integer(value) is not None


def _is_link(value: object) -> bool:
    return isinstance(value, str) and _LINK.fullmatch(value) is not None


def _check_shard(bundle: dict[str, Any], report: BundleReport) -> None:
    """The shard is a shard number, and the genesis is that shard's, as the server names it."""
    shard = _integer(bundle.get("shard"))
    if shard is None or shard < 0:
        report.add(None, f"the shard {bundle.get('shard')!r} is not a shard number")
        return
    expected = ShardTables(shard).chain_genesis.decode()
    if bundle.get("chain_genesis") != expected:
        report.add(
            None,
            f"the chain_genesis {bundle.get('chain_genesis')!r} is not shard {shard}'s "
            f"({expected!r}): the shard or the genesis was edited",
        )


def _check_head(bundle: dict[str, Any], events: list[dict[str, Any]], report: BundleReport) -> None:
    """The head is a position and a link, at or after the last event, and agrees with it."""
    head = bundle.get("head")
    if not isinstance(head, dict) or not _is_int(head.get("position")):
        report.add(None, "the head has no integer position")
        return
    position, chain_hash = head["position"], head.get("chain_hash")
    where = {"position": position}
    if not _is_link(chain_hash):
        report.add(where, f"the head's chain_hash {chain_hash!r} is not a 64-digit hex link")
        return
    last = events[-1]
    if not _is_int(last.get("position")):
        return  # already named by the order check
    if position < last["position"]:
        report.add(
            where,
            f"the head stands before the bundle's last event (position {last['position']}): "
            "the head was edited",
        )
    elif position == last["position"] and chain_hash != last.get("chain_hash"):
        report.add(where, "the head is the last event's position but not its link")
    elif position > last["position"] and chain_hash == last.get("chain_hash"):
        report.add(where, f"the head carries the link of position {last['position']}")


def _check_order(events: list[dict[str, Any]], report: BundleReport) -> None:
    """Versions 1..n, each once and in order; log positions strictly increasing."""
    last_version, last_position = 0, 0
    for event in events:
        version, position = _integer(event.get("version")), _integer(event.get("position"))
        if version is None or position is None:
            report.add(event, "the event has no integer version or position")
            continue
        if version > last_version + 1:
            missing = ", ".join(str(v) for v in range(last_version + 1, version))
            report.add(event, f"version(s) {missing} are missing before it: events were removed")
        elif version <= last_version:
            report.add(
                event,
                f"version {version} comes after version {last_version}: "
                "events were reordered or duplicated",
            )
        if position <= last_position:
            report.add(
                event,
                f"position {position} comes after position {last_position}: "
                "events were reordered or duplicated",
            )
        last_version, last_position = max(last_version, version), max(last_position, position)


def _check_links(
    encounter_id: UUID, events: list[dict[str, Any]], genesis: bytes, report: BundleReport
) -> None:
    """Each link recomputes; rows adjacent in the chain agree on the hash between them."""
    before: dict[str, Any] | None = None
    for event in events:
        problem = _malformed_link(event)
        if problem is not None:
            report.add(event, f"the event's chain fields are missing or malformed ({problem})")
            before = None
            continue
        row = _chain_row(encounter_id, event)
        previous = bytes.fromhex(event["prev_hash"])
        for reason in _chain_prev_problems(event, before, previous == genesis_hash(genesis)):
            report.add(event, reason)
        if (
            before is not None
            and row.chain_prev == before.get("position")
            and event["prev_hash"] != before.get("chain_hash")
        ):
            report.add(
                event,
                f"its previous link is not the chain hash of position {row.chain_prev}, "
                "the event before it",
            )
        if link(previous, row) != bytes.fromhex(event["chain_hash"]):
            report.add(event, "the event's contents do not match its chain link: it was altered")
        before = event


def _malformed_link(event: dict[str, Any]) -> str | None:
    for name in ("position", "version", "chain_prev"):
        if not _is_int(event.get(name)):
            return f"{name} is not an integer"
    for name in ("prev_hash", "chain_hash"):
        if not _is_link(event.get(name)):
            return f"{name} is not a 64-digit lowercase hex link"
    if not isinstance(event.get("topic"), str) or not isinstance(event.get("state"), str):
        return "topic or state is not text"
    salt = event.get("chain_salt")
    if salt is not None and not (isinstance(salt, str) and _SALT.fullmatch(salt)):
        return f"chain_salt is not null nor {2 * SALT_BYTES} lowercase hex digits"
    return None


def _chain_prev_problems(
    event: dict[str, Any], before: dict[str, Any] | None, from_genesis: bool
) -> list[str]:
    """`chain_prev` is not hashed, so it must agree with everything that is."""
    chain_prev, position = event["chain_prev"], event["position"]
    problems = []
    if not 0 <= chain_prev < position:
        problems.append(f"chain_prev {chain_prev} does not stand before position {position}")
    if chain_prev == 0 and not from_genesis:
        problems.append(
            "chain_prev 0 says it is the shard's first event, but its previous link does not "
            "start from the shard's genesis"
        )
    if chain_prev != 0 and from_genesis:
        problems.append(
            f"its previous link is the shard's genesis, so chain_prev must be 0, not {chain_prev}"
        )
    if before is not None and _is_int(before.get("position")):
        if chain_prev < before["position"]:
            problems.append(
                f"chain_prev {chain_prev} stands before the bundle's previous event "
                f"(position {before['position']})"
            )
        elif chain_prev != before["position"] and event["prev_hash"] == before.get("chain_hash"):
            problems.append(
                f"its previous link is position {before['position']}'s, so chain_prev must be "
                f"{before['position']}, not {chain_prev}"
            )
    return problems


def _chain_row(encounter_id: UUID, event: dict[str, Any]) -> ChainRow:
    """The event as the chain hashes it (its fields checked by `_malformed_link`)."""
    return ChainRow(
        position=event["position"],
        stream_id=encounter_id,  # the bundle names its stream once, at the top
        version=event["version"],
        topic=event["topic"],
        state=event["state"].encode("utf-8"),
        chain_prev=event["chain_prev"],
        chain_hash=bytes.fromhex(event["chain_hash"]),
        salt=None if event.get("chain_salt") is None else bytes.fromhex(event["chain_salt"]),
    )


def _decode(
    encounter_id: UUID, events: list[dict[str, Any]], report: BundleReport
) -> list[tuple[dict[str, Any], DomainEvent]]:
    decoded: list[tuple[dict[str, Any], DomainEvent]] = []
    for event in events:
        try:
            data = json.loads(str(event["state"]))
            decoded.append((event, registry.decode(str(event["topic"]), data)))
        except Exception as error:  # any failure to read is a finding, not a crash
            report.add(event, f"the event does not decode as {event.get('topic')!r}: {error}")
    return decoded


def _check_header(
    bundle: dict[str, Any],
    decoded: list[tuple[dict[str, Any], DomainEvent]],
    report: BundleReport,
) -> None:
    """The summary fields at the top must say what the events say."""
    opened = next(((r, e) for r, e in decoded if isinstance(e, EncounterOpened)), None)
    if opened is None:
        report.add(None, "no EncounterOpened among the events")
        return
    raw, event = opened
    for name in ("ruleset_id", "ruleset_version", "options", "commitment"):
        if bundle.get(name) != getattr(event, name):
            report.add(raw, f"the bundle's {name} differs from the opening event's")


def _check_dice(
    bundle: dict[str, Any],
    encounter_id: UUID,
    decoded: list[tuple[dict[str, Any], DomainEvent]],
    report: BundleReport,
) -> None:
    """The revealed seed matches the commitment, and every die recomputes from it."""
    commitment = str(bundle.get("commitment", ""))
    reveal = next(((r, e) for r, e in decoded if isinstance(e, EncounterSeedRevealed)), None)
    seed_text = bundle.get("revealed_seed")
    rolls = [(r, e) for r, e in decoded if isinstance(e, EncounterDiceRolled)]
    report.dice = len(rolls)
    for expected, (raw, event) in enumerate(rolls):
        if event.result.roll_seq != expected:
            report.add(raw, f"roll #{event.result.roll_seq} stands where #{expected} belongs")
    if reveal is None and seed_text is None:
        return  # not revealed yet: the chain is checked, the dice cannot be
    if reveal is None or seed_text != reveal[1].server_seed:
        report.add(reveal[0] if reveal else None, "the bundle's revealed seed is not the event's")
        return
    try:
        seed = bytes.fromhex(str(seed_text))
    except ValueError:
        report.add(reveal[0], "the revealed seed is not hex")
        return
    if not verify_commitment(seed, commitment):
        report.add(reveal[0], "the revealed seed does not match the commitment")
        return
    report.seed_revealed = True
    for raw, event in rolls:
        check = verify(event.result, server_seed=seed, stream_id=encounter_id)
        report.dice_recomputed += check.verified
        report.dice_by_hand += event.result.source == "hand"
        for problem in check.problems:
            report.add(raw, f"roll #{event.result.roll_seq}: {problem}")
