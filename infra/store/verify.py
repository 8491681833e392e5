"""`senki verify`: the hash chain, the snapshots and the tail of every shard, the dice of
revealed encounters, and receipts kept by the table.

What it can and cannot prove: the chain proves nothing before the head changed; the sealed
snapshots prove they were derived from the chain; the cross-references (infra/store/witness.py)
prove a cut tail when any of them points past the head. When none does, only a receipt kept
outside the database (`--expect-head`) can prove that no events were removed after the head,
and the report says so.

A shard whose own PostgreSQL cluster does not answer is not skipped silently: the reachable
shards are verified as usual, the unreachable one is named, no receipt is printed for it, and
the run exits 3 (1 if tampering was found elsewhere): a chain that could not be read is never
reported as holding (docs/scaling.md).

Everything a user may copy (receipts, hashes, ids) is written as plain text, never through
rich: rich would turn `0:100:…` into an emoji and wrap a hash at the terminal's width.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import typer
from psycopg.sql import SQL
from rich.console import Console
from rich.table import Column, Table

from infra import bootstrap
from infra.services.audit import DiceFinding, check_dice, revealed_encounters
from infra.settings import Settings
from infra.store.chain import ChainReport, genesis_hash
from infra.store.connect import ShardUnavailable
from infra.store.ledger import Ledger
from infra.store.log_tree import TreeDisagrees
from infra.store.log_trees import LogTrees
from infra.store.verify_snapshots import SnapshotReport, check_snapshots
from infra.store.witness import TailEvidence, tail_evidence

RECEIPT = re.compile(r"^(\d{1,4}):(\d{1,19}):([0-9a-fA-F]{64})$")
ONLY_A_RECEIPT = "only a kept receipt can prove this"
_SHOWN = 5  # chain breaks printed per shard


@dataclass
class ShardResult:
    """Everything checked on one shard."""

    shard: int
    chain: ChainReport
    snapshots: SnapshotReport
    tail: TailEvidence

    @property
    def ok(self) -> bool:
        return self.chain.ok and self.snapshots.ok and not self.tail.cut

    @property
    def receipt(self) -> str:
        return f"{self.shard}:{self.chain.head_position}:{self.chain.head_hash.hex()}"

    def tail_note(self) -> str:
        """What the database can say about the end of this shard's log."""
        head = self.chain.head_position
        if self.tail.cut:
            return (
                f"shard {self.shard}: the log ends at position {head}, but "
                f"{len(self.tail.witnesses)} cross-reference(s) point past it: events after "
                f"position {head} were removed (or a cross-reference was forged; either way "
                "someone wrote to the database behind Senki's back)"
            )
        if self.chain.checked == 0:
            return (
                f"shard {self.shard}: the log is empty and nothing in the database says it "
                f"ever held events; an emptied log looks like a new one: {ONLY_A_RECEIPT}"
            )
        return (
            f"shard {self.shard}: nothing in the database points past position {head}; "
            f"whether events after it were removed: {ONLY_A_RECEIPT} (--expect-head)"
        )


@dataclass(frozen=True)
class UnreachableShard:
    """A shard whose own cluster did not answer: nothing about its chain is known."""

    shard: int
    detail: str

    def line(self) -> str:
        return (
            f"UNAVAILABLE shard {self.shard}: its PostgreSQL cluster does not answer, so its "
            f"chain, snapshots and dice were NOT verified ({self.detail}); run again once it "
            "is back"
        )


@dataclass(frozen=True)
class ReceiptResult:
    receipt: str
    holds: bool
    detail: str


@dataclass(frozen=True)
class TreeResult:
    """A shard's Merkle tree rebuilt from its events, against every checkpoint it signed."""

    shard: int
    size: int | None
    problem: str | None = None

    def line(self) -> str:
        if self.problem is not None:
            return f"FAIL shard {self.shard}: its Merkle tree: {self.problem}"
        return (
            f"ok   shard {self.shard}: its Merkle tree of {self.size} leaves reproduces every "
            "checkpoint it signed"
        )


@dataclass
class VerifyResult:
    shards: list[ShardResult]
    dice: list[DiceFinding]
    receipts: list[ReceiptResult] = field(default_factory=list)
    unreachable: list[UnreachableShard] = field(default_factory=list)
    trees: list[TreeResult] = field(default_factory=list)
    # Per encounter with a dice problem: the log position of each problem, in order.
    dice_positions: dict[UUID, list[int | None]] = field(default_factory=dict)

    @property
    def tampering(self) -> bool:
        """Something that was read does not hold (a receipt of a down shard is not counted:
        it could not be checked, which `complete` says)."""
        down = {u.shard for u in self.unreachable}
        return not (
            all(s.ok for s in self.shards)
            and all(d.ok for d in self.dice)
            and all(r.holds or _receipt_shard(r.receipt) in down for r in self.receipts)
            and all(t.problem is None for t in self.trees)
        )

    @property
    def complete(self) -> bool:
        """Every shard's cluster answered."""
        return not self.unreachable

    @property
    def ok(self) -> bool:
        return self.complete and not self.tampering

    @property
    def exit_code(self) -> int:
        """0 all holds; 1 tampering found; 3 nothing found, but some shard was not read."""
        return 1 if self.tampering else 0 if self.complete else 3


def _receipt_shard(receipt: str) -> int | None:
    found = RECEIPT.match(receipt)
    return None if found is None else int(found[1])


def run_verify(
    settings: Settings, console: Console, receipts: list[str], *, as_json: bool = False
) -> int:
    """Print what was checked; 0 when everything holds, 1 when anything does not, 2 for a
    receipt that is not SHARD:POSITION:HASH, 3 when nothing failed but some shard's cluster
    did not answer (its chain was not verified)."""
    malformed = [r for r in receipts if not RECEIPT.match(r.strip())]
    if malformed:
        for receipt in malformed:
            typer.echo(f"receipt {receipt!r}: write it as SHARD:POSITION:HASH", err=True)
        return 2
    runtime = bootstrap.start(settings)
    try:
        result = collect(runtime.ledger, [r.strip() for r in receipts])
        result.trees = check_trees(runtime.log_trees, [s.shard for s in result.shards])
    finally:
        runtime.close()
    if as_json:
        typer.echo(json.dumps(as_document(result), ensure_ascii=False, indent=2))
    else:
        render(result, console)
    return result.exit_code


def collect(ledger: Ledger, receipts: list[str]) -> VerifyResult:
    """Check every shard whose cluster answers, the revealed dice and each receipt; name the
    shards whose cluster does not (home down still fails the whole run)."""
    shards: list[ShardResult] = []
    dice: list[DiceFinding] = []
    unreachable: list[UnreachableShard] = []
    home = ledger.placements.datastore
    if all(shard.datastore is not home for shard in ledger.shards):
        with home.transaction(commit=False) as cursor:  # home down: the whole service is
            cursor.execute("SELECT 1")
    for index, shard in enumerate(ledger.shards):
        try:
            checked = ShardResult(
                index,
                ledger.verify(shard=index),
                check_snapshots(ledger, index),
                tail_evidence(ledger, index),
            )
            found = [
                check_dice(encounter, ledger.read(encounter, shard=index), index)
                for encounter in revealed_encounters(ledger, shard=index)
            ]
        except Exception as error:
            down = _shard_down(error)
            if down is None or shard.datastore is home:
                raise
            unreachable.append(UnreachableShard(index, str(down)))
            continue
        shards.append(checked)
        dice += found
    result = VerifyResult(shards, dice, unreachable=unreachable)
    result.dice_positions = {
        f.encounter_id: dice_positions(ledger, f) for f in result.dice if f.problems
    }
    result.receipts = [check_receipt(ledger, shards, receipt) for receipt in receipts]
    return result


def check_trees(trees: LogTrees, shards: list[int]) -> list[TreeResult]:
    """Rebuild each readable shard's tree from its events; it must reproduce every checkpoint
    stored (a checkpoint larger than the log proves a cut tail)."""
    found = []
    for shard in shards:
        try:
            found.append(TreeResult(shard, trees.tree(shard).tree_size()))
        except TreeDisagrees as error:
            found.append(TreeResult(shard, None, str(error)))
    return found


_VERSION_NAMED = re.compile(r"^version (\d+),")


def dice_positions(ledger: Ledger, finding: DiceFinding) -> list[int | None]:
    """Where each dice problem stands in the log: the event its version names, else (the
    seed does not match the commitment) the reveal."""
    target = ledger.shards[finding.shard]
    query = SQL(
        "SELECT originator_version, notification_id, topic FROM {0} WHERE originator_id = %s"
    ).format(target.table(target.tables.events))
    with target.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (finding.encounter_id,))
        rows = cursor.fetchall()
    by_version = {int(r["originator_version"]): int(r["notification_id"]) for r in rows}
    reveal = next(
        (int(r["notification_id"]) for r in rows if r["topic"].startswith("EncounterSeedRevealed")),
        None,
    )
    positions: list[int | None] = []
    for problem in finding.problems:
        named = _VERSION_NAMED.match(problem)
        positions.append(by_version.get(int(named[1])) if named else reveal)
    return positions


def _shard_down(error: BaseException) -> ShardUnavailable | None:
    """The ShardUnavailable behind `error` (the library may wrap it), if any."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of causes is short; never loop on a cycle
        if seen is None or isinstance(seen, ShardUnavailable):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def check_receipt(ledger: Ledger, shards: list[ShardResult], receipt: str) -> ReceiptResult:
    """Does the log still hold `receipt` (SHARD:POSITION:HASH, validated by the caller)?
    `shards`: the shards that were read (a down shard's receipt cannot be checked)."""
    found = RECEIPT.match(receipt)
    assert found is not None
    shard, position, expected = int(found[1]), int(found[2]), found[3].lower()
    if shard >= len(ledger.shards):
        return ReceiptResult(receipt, False, f"there is no shard {shard} (SENKI_SHARDS?)")
    read = {s.shard: s for s in shards}
    if shard not in read:
        return ReceiptResult(
            receipt, False, f"not checked: shard {shard}'s PostgreSQL cluster does not answer"
        )
    chain = read[shard].chain
    if chain.head_position < position:
        return ReceiptResult(
            receipt,
            False,
            f"the log ends at position {chain.head_position}, but it reached position "
            f"{position} when the receipt was kept: events after position "
            f"{chain.head_position} were removed",
        )
    if position == 0:
        linked: str | None = genesis_hash(ledger.shards[shard].tables.chain_genesis).hex()
    else:
        linked = ledger.link_at(position, shard=shard)
    if linked is None:
        return ReceiptResult(
            receipt, False, f"no event stands at position {position} any more: it was removed"
        )
    if linked != expected:
        first = chain.first_break
        where = (
            f"the chain breaks first at position {first.position}"
            if first is not None and first.position <= position
            else f"the chain was recomputed after the change, so it lies at or before position "
            f"{position}"
        )
        # A kept receipt and the log disagree: a mistyped receipt and a log changed with its
        # chain recomputed look the same from here, so say what is known, both hashes shown.
        return ReceiptResult(
            receipt,
            False,
            f"the receipt does not match the log at position {position}: the receipt says "
            f"{expected}, the log says {linked}. Either the receipt was not copied exactly, or "
            f"the log at or before position {position} was changed and its chain recomputed; "
            f"{where}",
        )
    return ReceiptResult(receipt, True, "holds")


def render(result: VerifyResult, console: Console) -> None:
    """The report for a person: tables for the overview, plain lines for every finding."""
    table = Table("shard", "events", "head position", "chain", "snapshots", title="Hash chain")
    for shard in result.shards:
        snapshots = shard.snapshots
        table.add_row(
            str(shard.shard),
            str(shard.chain.checked),
            str(shard.chain.head_position),
            "intact"
            if shard.chain.ok
            else f"broken at {shard.chain.first_break.position}"
            if shard.chain.first_break
            else "broken",
            f"{snapshots.holding} hold, {len(snapshots.bad)} bad, {snapshots.unsealed} unsealed",
        )
    for down in result.unreachable:
        table.add_row(str(down.shard), "?", "?", "NOT VERIFIED: unavailable", "?")
    console.print(table)
    for shard in result.shards:
        for line in _shard_lines(shard):
            typer.echo(line)
    for down in result.unreachable:
        typer.echo(down.line())
    for tree in result.trees:
        typer.echo(tree.line())
    _dice_table(result.dice, console)
    for finding in result.dice:
        positions = result.dice_positions.get(finding.encounter_id, [])
        for problem, position in zip(finding.problems, positions, strict=False):
            where = f", position {position}" if position is not None else ""
            typer.echo(
                f"FAIL shard {finding.shard}{where}: encounter {finding.encounter_id}: {problem}"
            )
    for receipt in result.receipts:
        mark = "ok  " if receipt.holds else "FAIL"
        if not receipt.holds and _receipt_shard(receipt.receipt) in {
            u.shard for u in result.unreachable
        }:
            mark = "SKIP"
        typer.echo(f"{mark} receipt {receipt.receipt}: {receipt.detail}")
    typer.echo(
        "Receipts to keep (the head of each shard; copy them exactly):"
        if result.ok
        else "Heads as they stand now (no receipt to keep: the log failed its checks):"
        if result.tampering
        else "Receipts to keep (the head of each shard that was verified; copy them exactly):"
    )
    for shard in result.shards:
        typer.echo(shard.receipt)
    typer.echo("verdict: " + _verdict(result))


def _verdict(result: VerifyResult) -> str:
    if result.tampering and all(s.ok for s in result.shards) and all(d.ok for d in result.dice):
        return (
            "RECEIPT DOES NOT MATCH: the log holds on its own; if the receipt was copied "
            "exactly, the log was changed since it was kept"
        )
    if result.tampering:
        return "TAMPERING FOUND"
    if result.complete:
        return "everything holds"
    names = ", ".join(str(u.shard) for u in result.unreachable)
    return f"INCOMPLETE: shard {names} not verified (cluster unavailable); the rest holds"


def _shard_lines(shard: ShardResult) -> list[str]:
    breaks = shard.chain.breaks
    lines = [
        f"FAIL shard {shard.shard}, position {b.position}: {b.reason}" for b in breaks[:_SHOWN]
    ]
    if len(breaks) > _SHOWN:  # one renumbering breaks every later row: the first ones matter
        lines.append(
            f"     … and {len(breaks) - _SHOWN} more breaks after position "
            f"{breaks[_SHOWN - 1].position} (--json lists them all)"
        )
    lines += [f"FAIL shard {shard.shard}: {bad.detail}" for bad in shard.snapshots.bad]
    if shard.snapshots.unsealed:
        lines.append(
            f"note shard {shard.shard}: {shard.snapshots.unsealed} unsealed snapshot(s), taken "
            "before schema 6: every load ignores them and rebuilds from the events"
        )
    lines.append(("FAIL " if shard.tail.cut else "note ") + shard.tail_note())
    lines += [f"     witness: {w}" for w in shard.tail.witnesses]
    lines += [f"     hint: {h}" for h in shard.tail.hints]
    return lines


def _dice_table(findings: list[DiceFinding], console: Console) -> None:
    if not findings:
        typer.echo("dice: no encounter has revealed its seed yet, so no die can be recomputed")
        return
    # The encounter id whole at 80 columns: it is what a user copies into `senki audit`.
    table = Table(
        "shard",
        Column("encounter", no_wrap=True, min_width=36),
        *(Column(h, overflow="fold") for h in ("dice", "recomputed", "by hand", "result")),
    )
    table.title = "Dice of revealed encounters"
    for f in findings:
        result = "all hold" if f.ok else f"{len(f.problems)} problem(s)"
        table.add_row(
            str(f.shard),
            str(f.encounter_id),
            str(f.checked),
            str(f.recomputed),
            str(f.by_hand),
            result,
        )
    console.print(table)


def as_document(result: VerifyResult) -> dict[str, Any]:
    """`senki verify --json`: the same findings, for a script."""
    return {
        "ok": result.ok,
        "complete": result.complete,
        "unavailable": [{"shard": u.shard, "detail": u.detail} for u in result.unreachable],
        "shards": [
            {
                "shard": s.shard,
                "status": "ok",
                "events": s.chain.checked,
                "head": {"position": s.chain.head_position, "chain_hash": s.chain.head_hash.hex()},
                "receipt": s.receipt,
                "chain": {
                    "intact": s.chain.ok,
                    "breaks": [
                        {"position": b.position, "reason": b.reason} for b in s.chain.breaks
                    ],
                },
                "snapshots": {
                    "checked": s.snapshots.checked,
                    "holding": s.snapshots.holding,
                    "unsealed": s.snapshots.unsealed,
                    "bad": [
                        {
                            "stream_id": str(b.stream_id),
                            "version": b.version,
                            "position": b.position,
                            "reason": b.reason,
                            "detail": b.detail,
                        }
                        for b in s.snapshots.bad
                    ],
                },
                "tail": {
                    "cut": s.tail.cut,
                    "note": s.tail_note(),
                    "witnesses": s.tail.witnesses,
                    "hints": s.tail.hints,
                },
            }
            for s in result.shards
        ]
        + [{"shard": u.shard, "status": "unavailable"} for u in result.unreachable],
        "dice": [
            {
                "shard": d.shard,
                "encounter_id": str(d.encounter_id),
                "checked": d.checked,
                "recomputed": d.recomputed,
                "by_hand": d.by_hand,
                "problems": [
                    {"position": position, "problem": problem}
                    for problem, position in zip(
                        d.problems, result.dice_positions.get(d.encounter_id, []), strict=False
                    )
                ],
            }
            for d in result.dice
        ],
        "receipts": [
            {"receipt": r.receipt, "holds": r.holds, "detail": r.detail} for r in result.receipts
        ],
        "trees": [{"shard": t.shard, "size": t.size, "problem": t.problem} for t in result.trees],
    }
