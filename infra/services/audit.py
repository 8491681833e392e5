"""The audit trail of an encounter (issue 6): every ruling with its rules, dice and command.

Read-only over the ledger. Each entry is one `RulingRecorded` (or a command refused after its
dice, issue 33 §1), with the text of every rule it cites (from the digest shipped with Senki),
the dice it used — each die recomputed from the revealed seed when there is one — the options
it read, the `CommandIssued` that led to it and any dispute filed against it. `check_dice` is
what `senki verify` runs on each revealed one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from domain.aggregate import NotFound
from domain.dice import RollResult, fair_die, verify, verify_commitment
from domain.encounter.dispute_events import DisputeAmended, DisputeUpheld, RulingDisputed
from domain.encounter.events import EncounterOpened, EncounterSeedRevealed
from domain.encounter.record import CommandIssued
from domain.events import DomainEvent
from domain.rules.records import (
    CommandRefusedAfterDice,
    EncounterDiceRolled,
    RulingRecorded,
    refusal_line,
)
from infra.rule_texts import anchor, rule_text, seed_words
from infra.services.executor import Executor
from infra.services.visibility import Lens
from infra.store.ledger import Ledger
from infra.store.mapper import Recorded
from infra.store.stream_page import read_page

REVEALED_TOPIC = "EncounterSeedRevealed.v1"
_PAGE = 2000


class SeedPassage(BaseModel):
    """The rule in the seed's words (verbatim lines), or why the seed has none."""

    model_config = ConfigDict(frozen=True)

    text: str | None
    source: str = Field(description="Where the lines stand in the seed, or why there are none.")


class RuleCited(BaseModel):
    """A rule a ruling applied, with its line in RULES.md (None if the digest lacks it)."""

    model_config = ConfigDict(frozen=True)

    rule_id: str
    text: str | None
    anchor: str
    ja_source: SeedPassage = Field(
        description="The seed's own Japanese words for the rule, shown beside the digest's "
        "text on a Japanese table; `text` is null when the seed does not state the rule, "
        "and `source` then says why."
    )


class DieAudit(BaseModel):
    """One die: its face, where it came from and, once the seed is revealed, if it recomputes."""

    model_config = ConfigDict(frozen=True)

    roll_seq: int
    die_index: int
    sides: int
    face: int
    source: str  # "server" or "hand"
    recomputes: bool | None  # None: entered by hand, or the seed is not revealed yet


class RollAudit(BaseModel):
    """One recorded roll and what recomputing it found."""

    model_config = ConfigDict(frozen=True)

    roll_seq: int
    version: int
    expression: str
    comment: str = ""  # what the roller wrote after the notation (`1D6>=5 回避`)
    purpose: str
    text: str
    source: str
    client_seed: str | None
    dice: list[DieAudit]
    problems: list[str]


class CommandAudit(BaseModel):
    """The command that led to a ruling, as its issuer gave it."""

    model_config = ConfigDict(frozen=True)

    version: int
    command_type: str
    payload: dict[str, JsonValue]
    by: str
    at: datetime
    is_gm: bool
    client_seed: str | None
    hand_faces: list[int] | None


class DisputeAudit(BaseModel):
    model_config = ConfigDict(frozen=True)

    dispute_id: str
    version: int
    reason: str
    filed_by: str
    filed_at: datetime
    status: str = "open"  # open | upheld | amended
    settled_by: str | None = None
    note: str | None = None


class AuditEntry(BaseModel):
    """One ruling of the encounter, with everything needed to check it by hand."""

    model_config = ConfigDict(frozen=True)

    version: int
    position: int | None
    at: datetime
    by: str
    rules: list[RuleCited]
    inputs: dict[str, JsonValue]
    outcome: dict[str, JsonValue]
    summary_en: str
    summary_ja: str
    dice: list[RollAudit]
    options: dict[str, JsonValue]
    options_in_force: dict[str, JsonValue]
    command: CommandAudit | None
    disputes: list[DisputeAudit]


def seen_through(entries: Sequence[AuditEntry], lens: Lens) -> list[AuditEntry]:
    """The trail as one reader may see it: each ruling's inputs, outcome, summaries and the
    command behind it, judged with the block they belong to (docs/visibility.md). Rule
    texts, options, dice and disputes are the table's and stay."""
    if lens.sees_all:
        return list(entries)
    return [_seen(entry, lens) for entry in entries]


def _seen(entry: AuditEntry, lens: Lens) -> AuditEntry:
    parts: dict[str, JsonValue] = {
        "inputs": entry.inputs,
        "outcome": entry.outcome,
        "summary_en": entry.summary_en,
        "summary_ja": entry.summary_ja,
        "command": entry.command.payload if entry.command else None,
    }
    shown = lens.record(entry.version, parts)
    assert isinstance(shown, dict)
    command = entry.command
    if command is not None:
        payload = shown["command"]
        assert isinstance(payload, dict)
        command = command.model_copy(update={"payload": payload})
    return entry.model_copy(
        update={
            "inputs": shown["inputs"],
            "outcome": shown["outcome"],
            "summary_en": shown["summary_en"],
            "summary_ja": shown["summary_ja"],
            "command": command,
        }
    )


class AuditService:
    """Audit trails of encounters; one per process."""

    def __init__(self, ledger: Ledger, executor: Executor) -> None:
        self.ledger = ledger
        self.executor = executor

    def trail(self, encounter_id: UUID, *, shard: int | None = None) -> list[AuditEntry]:
        """Every ruling of the encounter in order; NotFound if there is no such encounter."""
        recorded = _with_positions(self.ledger, encounter_id, shard)
        if not recorded or not isinstance(recorded[0].event, EncounterOpened):
            raise NotFound(f"no encounter {encounter_id}")
        return build_trail(encounter_id, recorded)


def _with_positions(ledger: Ledger, encounter_id: UUID, shard: int | None) -> list[Recorded]:
    """The stream with each event's log position, so an entry can be found in the chain."""
    recorded: list[Recorded] = []
    while True:
        page = read_page(ledger, encounter_id, after=len(recorded), limit=_PAGE, shard=shard)
        recorded += page
        if len(page) < _PAGE:
            return recorded


def build_trail(encounter_id: UUID, recorded: Sequence[Recorded]) -> list[AuditEntry]:
    """The trail from an encounter's stored events (oldest first, the opening among them)."""
    opened = next(r.event for r in recorded if isinstance(r.event, EncounterOpened))
    seed = _revealed_seed(recorded, opened.commitment)
    rolls = {
        r.event.result.roll_seq: _roll(encounter_id, r.version, r.event.result, seed)
        for r in recorded
        if isinstance(r.event, EncounterDiceRolled)
    }
    disputes = _disputes(recorded)
    entries: list[AuditEntry] = []
    command: CommandAudit | None = None
    for item in recorded:
        event = item.event
        if isinstance(event, CommandIssued):
            command = _command(item.version, event)
        elif isinstance(event, RulingRecorded):
            entries.append(
                AuditEntry(
                    version=item.version,
                    position=item.position,
                    at=event.at,
                    by=event.by,
                    rules=[_cited(i) for i in event.rule_ids],
                    inputs=_plain(event.inputs),
                    outcome=_plain(event.outcome),
                    summary_en=event.summary_en,
                    summary_ja=event.summary_ja,
                    dice=[rolls[s] for s in event.roll_seqs if s in rolls],
                    options=_plain(event.options),
                    options_in_force=dict(opened.options),
                    command=command,
                    disputes=disputes.get(item.version, []),
                )
            )
        elif isinstance(event, CommandRefusedAfterDice):
            entries.append(_refusal(item, event, rolls, dict(opened.options), command))
    return entries


def _refusal(
    item: Recorded,
    event: CommandRefusedAfterDice,
    rolls: dict[int, RollAudit],
    options: dict[str, JsonValue],
    command: CommandAudit | None,
) -> AuditEntry:
    """A command refused after its dice (issue 33 §1): the rule, the fixed sentence and the
    dice it drew, so they are checked like a ruling's."""
    en, ja = refusal_line(event.command_type, event.rule_id)
    cited = [] if event.rule_id is None else [event.rule_id]
    return AuditEntry(
        version=item.version,
        position=item.position,
        at=event.at,
        by=event.by,
        rules=[_cited(i) for i in cited],
        inputs={},
        outcome={"refused": event.command_type},
        summary_en=en,
        summary_ja=ja,
        dice=[rolls[s] for s in event.roll_seqs if s in rolls],
        options={},
        options_in_force=options,
        command=command,
        disputes=[],
    )


def _revealed_seed(recorded: Sequence[Recorded], commitment: str) -> bytes | None:
    """The revealed seed, only if it is the one promised (a wrong one verifies nothing)."""
    for item in recorded:
        if isinstance(item.event, EncounterSeedRevealed):
            seed = bytes.fromhex(item.event.server_seed)
            return seed if verify_commitment(seed, commitment) else None
    return None


def _roll(encounter_id: UUID, version: int, result: RollResult, seed: bytes | None) -> RollAudit:
    dice = [
        DieAudit(
            roll_seq=result.roll_seq,
            die_index=index,
            sides=rand.sides,
            face=rand.value,
            source=result.source,
            recomputes=(
                rand.value
                == fair_die(
                    seed, encounter_id, result.roll_seq, index, rand.sides, result.client_seed
                )
                if seed is not None and result.source == "server"
                else None
            ),
        )
        for index, rand in enumerate(result.rands)
    ]
    problems = (
        list(verify(result, server_seed=seed, stream_id=encounter_id).problems)
        if seed is not None
        else []
    )
    return RollAudit(
        roll_seq=result.roll_seq,
        version=version,
        expression=result.expression,
        comment=result.comment,
        purpose=result.purpose,
        text=result.text,
        source=result.source,
        client_seed=result.client_seed,
        dice=dice,
        problems=problems,
    )


def _command(version: int, event: CommandIssued) -> CommandAudit:
    return CommandAudit(
        version=version,
        command_type=event.command_type,
        payload=event.payload,
        by=event.by,
        at=event.at,
        is_gm=event.is_gm,
        client_seed=event.client_seed,
        hand_faces=list(event.hand_faces) if event.hand_faces is not None else None,
    )


def _disputes(recorded: Sequence[Recorded]) -> dict[int, list[DisputeAudit]]:
    """Disputes by the version of the ruling they challenge, settled as the log says."""
    found: dict[str, DisputeAudit] = {}
    for item in recorded:
        event = item.event
        if isinstance(event, RulingDisputed):
            found[event.dispute_id] = DisputeAudit(
                dispute_id=event.dispute_id,
                version=event.ruling_version,
                reason=event.reason,
                filed_by=event.by,
                filed_at=event.at,
            )
        elif isinstance(event, DisputeUpheld | DisputeAmended) and event.dispute_id in found:
            status = "upheld" if isinstance(event, DisputeUpheld) else "amended"
            found[event.dispute_id] = found[event.dispute_id].model_copy(
                update={"status": status, "settled_by": event.by, "note": event.note}
            )
    by_ruling: dict[int, list[DisputeAudit]] = {}
    for dispute in found.values():
        by_ruling.setdefault(dispute.version, []).append(dispute)
    return by_ruling


def _plain(values: object) -> dict[str, JsonValue]:
    """A ruling's values as JSON (tuples become lists), so the trail serialises as-is."""
    plain: dict[str, JsonValue] = json.loads(json.dumps(values))
    return plain


@dataclass
class DiceFinding:
    """The dice of one revealed encounter, recomputed by `senki verify`."""

    encounter_id: UUID
    shard: int
    checked: int = 0
    recomputed: int = 0
    by_hand: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def revealed_encounters(ledger: Ledger, *, shard: int = 0, page: int = 1000) -> list[UUID]:
    """Every encounter of a shard whose seed is revealed (in the order of the reveals)."""
    recorder = ledger.shards[shard].recorder
    found: list[UUID] = []
    start = 1
    while True:
        batch = recorder.select_notifications(start=start, limit=page, topics=[REVEALED_TOPIC])
        found += [UUID(str(n.originator_id)) for n in batch]
        if len(batch) < page:
            return list(dict.fromkeys(found))
        start = batch[-1].id + 1


def check_dice(encounter_id: UUID, recorded: Sequence[Recorded], shard: int = 0) -> DiceFinding:
    """Every die of one encounter against its revealed seed and its commitment."""
    finding = DiceFinding(encounter_id, shard)
    events: list[DomainEvent] = [r.event for r in recorded]
    opened = next((e for e in events if isinstance(e, EncounterOpened)), None)
    reveal = next((e for e in events if isinstance(e, EncounterSeedRevealed)), None)
    if opened is None or reveal is None:
        finding.problems.append("no opening or no reveal among the encounter's events")
        return finding
    seed = bytes.fromhex(reveal.server_seed)
    if not verify_commitment(seed, opened.commitment):
        finding.problems.append("the revealed seed does not match the commitment")
        return finding
    for item in recorded:
        if not isinstance(item.event, EncounterDiceRolled):
            continue
        result = item.event.result
        check = verify(result, server_seed=seed, stream_id=encounter_id)
        finding.checked += 1
        finding.recomputed += check.verified
        finding.by_hand += result.source == "hand"
        finding.problems += [
            f"version {item.version}, roll #{result.roll_seq}: {p}" for p in check.problems
        ]
    return finding


def _cited(rule_id: str) -> RuleCited:
    """A rule a ruling cites: the digest's text, its anchor and the seed's own words."""
    return RuleCited(
        rule_id=rule_id,
        text=rule_text(rule_id),
        anchor=anchor(rule_id),
        ja_source=_seed_passage(rule_id),
    )


def _seed_passage(rule_id: str) -> SeedPassage:
    words = seed_words(rule_id)
    return SeedPassage(text=words.text, source=words.source)
