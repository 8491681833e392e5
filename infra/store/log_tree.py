"""Each shard's Merkle tree, kept in memory beside the log, and its signed checkpoints.

The tree is built from the events' chain hashes when first asked for (the check at start: it
is the events, and it must reproduce every checkpoint stored before), and extended from the
rows appended since before each checkpoint is signed. Before extending, it checks that what it
holds is still the log: as many events up to its last leaf as it has leaves, and its last leaf
still that event's chain hash. Each link covers the one before it, so an event rewritten and
relinked anywhere changes the last link, and one removed or inserted changes the count; a row
edited without relinking breaks the chain, which `senki verify` names. On any disagreement the
shard signs nothing more and every answer carries the evidence (the first disagreeing leaf).
That count of the whole log runs without the tree's lock, which every command's answer and
live page needs for its leaves: it takes time in proportion to the log (a metrics scrape or a
witness's poll would otherwise hold every command back for it), and what it finds of the
leaves held stays true as the tree grows, so under the lock only the leaves added since it
are counted.

Appends never wait for the tree (it is not kept in their transaction): a checkpoint is signed
on request whenever the log grew, so no checkpoint served is older than the request that read
it, and each is stored (`checkpoints_N`) before it is served.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.sql import SQL

from infra.store.ledger import Shard
from infra.store.merkle import Tree, leaf_hash
from infra.store.note import (
    Checkpoint,
    NoteRefused,
    Signer,
    open_checkpoint,
    sign_note,
)

_PAGE = 10_000  # rows per statement when the tree reads the log


@dataclass(frozen=True)
class Disagreement:
    """Where the tree and the log part: the evidence the checkpoint route answers 503 with."""

    shard: int
    leaf_index: int | None
    position: int | None
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "shard": self.shard,
            "leaf_index": self.leaf_index,
            "position": self.position,
            "detail": self.detail,
        }


class TreeDisagrees(RuntimeError):
    def __init__(self, found: Disagreement) -> None:
        super().__init__(found.detail)
        self.found = found


class NoSuchLeaf(LookupError):
    """No event stands at the position asked (or not within the tree size asked)."""


@dataclass(frozen=True)
class LogEntry:
    """An event's place in its shard's log and tree, as every reader is given it."""

    shard: int
    position: int
    leaf_index: int
    chain_hash: str


@dataclass(frozen=True)
class Inclusion:
    leaf_index: int
    tree_size: int
    hashes: list[bytes]


class ShardTree:
    """One shard's tree, its leaves' log positions, and its signers; thread-safe."""

    def __init__(self, shard: Shard, index: int, origin: str, signers: list[Signer]) -> None:
        self.shard, self.index, self.origin = shard, index, origin
        self.signers = signers
        self.verifiers = [signer.verifier for signer in signers]
        self._tree = Tree()
        self._positions = array("q")
        self._links = bytearray()  # the leaves themselves: each event's chain hash, in order
        self._built = False
        # How many of the leaves held were last found to still be the log's first events. A
        # reader (`entries`) adds leaves without a check; the next checkpoint or proof checks
        # them before anything is signed.
        self._checked = 0
        # The whole-log check (a count of every event) runs without the tree's lock, so the
        # leaves of a command's answer never wait for it; one such check at a time.
        self._checking = threading.Lock()
        self._lock = threading.Lock()
        self.broken: Disagreement | None = None

    def checkpoint(self) -> str:
        """The latest signed checkpoint, signed now if the log grew since the last one."""
        self._check_held()
        with self._lock:
            self._sync()
            latest = self._latest_stored()
            if latest is not None and latest[0] > self._tree.size:
                self._sync()  # another process may have signed what this one has not read yet
                if latest[0] > self._tree.size:
                    raise self._stop(
                        f"a checkpoint of {latest[0]} leaves was signed, but the log has "
                        f"{self._tree.size} events: events were removed from its tail"
                    )
            if latest is not None and latest[0] == self._tree.size:
                if self._open(latest[1]).root != self._tree.root():
                    raise self._stop(
                        f"the checkpoint stored for {latest[0]} leaves has another root than "
                        "the events give: the log was rewritten"
                    )
                return latest[1]  # signed already, by this process or another
            return self._sign(0 if latest is None else latest[0])

    def consistency(self, first: int, second: int) -> list[bytes]:
        self._check_held()
        with self._lock:
            self._sync()
            return self._tree.consistency(first, second)

    def inclusion(self, position: int, size: int) -> Inclusion:
        self._check_held()
        with self._lock:
            self._sync()
            index = self._rank(position)
            if index is None or index >= size:
                raise NoSuchLeaf(f"no event at position {position} in a tree of {size}")
            return Inclusion(index, size, self._tree.inclusion(index, size))

    def entries(self, positions: list[int]) -> dict[int, LogEntry]:
        """Where each of these events stands in the tree (those it holds); reading events
        never fails on the tree: while it disagrees with the log, none is given.

        Events past the tree's last leaf (a command's own, just appended) are added by one
        read of the rows after it, without the check of the leaves held (a count of the whole
        log): that check runs before the next checkpoint or proof, so nothing is signed
        unchecked, and a command's answer does not pay for it."""
        with self._lock:
            if self.broken is not None:
                return {}
            last = self._positions[-1] if self._positions else 0
            try:
                if not self._built:
                    self._sync()
                elif any(p > last for p in positions):
                    self._extend()  # unchecked: `_checked` stays where it was
            except TreeDisagrees as error:
                self.broken = error.found
                return {}
            found = {}
            for position in positions:
                index = self._rank(position)
                if index is not None:
                    link = bytes(self._links[index * 32 : index * 32 + 32])
                    found[position] = LogEntry(self.index, position, index, link.hex())
            return found

    def tree_size(self) -> int:
        self._check_held()
        with self._lock:
            self._sync()
            return self._tree.size

    def tree_size_if_built(self) -> int | None:
        """The size now, unless the tree was never built in this process (a build reads the
        whole log: the head route, which everyone polls, never waits for one)."""
        self._check_held()
        with self._lock:
            if not self._built:
                return None
            self._sync()
            return self._tree.size

    def _rank(self, position: int) -> int | None:
        index = bisect_left(self._positions, position)
        found = index < len(self._positions) and self._positions[index] == position
        return index if found else None

    def _sync(self) -> None:
        if self.broken is None:
            try:
                if not self._built:
                    self._extend()
                    self._check_stored()
                    self._built = True
                    self._checked = self._tree.size  # read from the log just now
                elif self._checked < self._tree.size or self._head() != (
                    self._positions[-1] if self._positions else 0
                ):
                    self._check_kept(since=self._checked)
                    self._extend()
                    self._checked = self._tree.size  # read from the log just now
            except TreeDisagrees as error:
                self.broken = error.found
        if self.broken is not None:
            raise TreeDisagrees(self.broken)

    def _stop(self, detail: str) -> TreeDisagrees:
        """Sign nothing more: the disagreement is kept for every later request."""
        self.broken = Disagreement(self.index, None, None, detail)
        return TreeDisagrees(self.broken)

    def _disagree(self, leaf: int | None, position: int | None, detail: str) -> TreeDisagrees:
        return TreeDisagrees(Disagreement(self.index, leaf, position, detail))

    def _extend(self) -> None:
        after = self._positions[-1] if self._positions else 0
        for position, chain_hash in self._rows(after):
            if chain_hash is None:
                raise self._disagree(
                    self._tree.size,
                    position,
                    f"the event at position {position} has no chain link: it was inserted "
                    "past the chain trigger",
                )
            self._tree.append(chain_hash)
            self._positions.append(position)
            self._links += chain_hash

    def _check_held(self) -> None:
        """The whole-log check of the leaves held, made without the tree's lock (a count of
        every event takes time in proportion to the log; readers extend the tree meanwhile).
        What it finds true stays true of those leaves as the tree grows past them, so under
        the lock only the leaves added since are checked (`_sync`), a count of those alone;
        what it finds wrong is left for `_sync`, which checks everything again and names the
        first difference."""
        with self._checking:
            with self._lock:
                if self.broken is not None or not self._built or not self._positions:
                    return
                size, last = self._tree.size, self._positions[-1]
                leaf, due = self._tree.leaf(size - 1), self._checked < size
            if not due and self._head() == last:
                return  # nothing added here or elsewhere since the last check: none due
            if self._still_kept(size, last, leaf, after=0):
                with self._lock:
                    self._checked = max(self._checked, size)
            else:
                with self._lock:
                    self._checked = 0  # `_sync` checks the whole log again, under the lock

    def _check_kept(self, since: int = 0) -> None:
        """The leaves held still are the log's first events (see the module's docstring),
        given that the first `since` were found to be moments ago: as many events after
        leaf `since - 1` up to the last leaf as leaves after it, the last link the same."""
        if not self._positions:
            return
        size, last = self._tree.size, self._positions[-1]
        after = self._positions[since - 1] if 0 < since <= size else 0
        counted = size - since if after else size
        if self._still_kept(counted, last, self._tree.leaf(size - 1), after=after):
            return
        raise self._first_difference()

    def _still_kept(self, leaves: int, last: int, leaf: bytes, *, after: int) -> bool:
        """Whether the log holds `leaves` events in (after, last], `last`'s link giving
        `leaf`."""
        query = SQL(
            "SELECT count(*) AS n, (SELECT chain_hash FROM {0} WHERE notification_id = %s) "
            "AS last FROM {0} WHERE notification_id > %s AND notification_id <= %s"
        ).format(self.shard.table(self.shard.tables.events))
        with self.shard.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (last, after, last))
            row = cursor.fetchone()
        if row is None or int(row["n"]) != leaves or row["last"] is None:
            return False
        return leaf_hash(bytes(row["last"])) == leaf

    def _first_difference(self) -> TreeDisagrees:
        """Walk the whole log beside the tree: the first leaf where they differ."""
        seen = 0
        for index, (position, chain_hash) in enumerate(self._rows(0)):
            if index >= self._tree.size:
                break
            seen = index + 1
            held = self._positions[index]
            if position != held or chain_hash is None:
                return self._disagree(
                    index,
                    min(position, held),
                    f"leaf {index} was the event at position {held}; the log now has "
                    f"position {position} there: an event was removed, inserted or reordered",
                )
            if leaf_hash(chain_hash) != self._tree.leaf(index):
                return self._disagree(
                    index,
                    position,
                    f"the event at position {position} (leaf {index}) now has chain hash "
                    f"{chain_hash.hex()}, not the one the tree was built from: it was rewritten",
                )
        if seen >= self._tree.size:
            return self._disagree(None, None, "the log changed while it was compared")
        return self._disagree(
            seen,
            self._positions[seen],
            f"the log now ends before leaf {seen} (position {self._positions[seen]}): "
            "events were removed from its tail",
        )

    def _check_stored(self) -> None:
        """Every checkpoint signed before must be a tree of these events."""
        stored = self._stored()
        bad = None
        for size, note in stored:
            checkpoint = self._open(note)
            if size > self._tree.size or checkpoint.root != self._tree.root(size):
                bad = (size, checkpoint)
                break
        if bad is None:
            return
        good = max((s for s, _ in stored if s < bad[0]), default=0)
        size, checkpoint = bad
        if size > self._tree.size:
            detail = (
                f"a checkpoint of {size} leaves was signed, but the log has {self._tree.size} "
                "events: events were removed from its tail"
            )
        else:
            detail = (
                f"the checkpoint of {size} leaves says root {checkpoint.root.hex()}, the events "
                f"give {self._tree.root(size).hex()}: the log was rewritten"
            )
        exact = self._exact(size)
        if exact is not None:
            raise self._disagree(exact[0], exact[1], f"{detail}; {exact[2]}")
        position = self._positions[good] if good < len(self._positions) else None
        raise self._disagree(
            good,
            position,
            f"{detail}; the first disagreeing leaf is between leaf {good} (the checkpoint of "
            f"{good} leaves still holds) and leaf {min(size, self._tree.size + 1) - 1} (the "
            "leaves signed there were not kept with the checkpoints)",
        )

    def _exact(self, upto: int) -> tuple[int, int | None, str] | None:
        """The first leaf where the log parts from the leaves signed (up to the checkpoint of
        `upto` leaves), with its position and what differs; None when the stored leaves do
        not reach past where the log still agrees."""
        signed = self._signed_leaves(upto)
        agree = 0
        common = min(len(signed), self._tree.size)
        while agree < common and signed[agree] == self._links[agree * 32 : agree * 32 + 32]:
            agree += 1
        if agree == len(signed):
            return None  # the leaves kept all still hold: where they part is beyond them
        was = signed[agree].hex()
        if agree == self._tree.size:
            return (
                agree,
                None,
                f"the first disagreeing leaf is leaf {agree} (chain hash {was} when signed): "
                "the log now ends before it, events were removed from its tail",
            )
        position = self._positions[agree]
        now = self._links[agree * 32 : agree * 32 + 32].hex()
        return (
            agree,
            position,
            f"the first disagreeing leaf is leaf {agree}: signed with chain hash {was}, the log "
            f"now has there the event at position {position}, chain hash {now}: an event was "
            "rewritten, removed, inserted or reordered there",
        )

    def _signed_leaves(self, upto: int) -> list[bytes]:
        """The leaves kept with the checkpoints of at most `upto` leaves, as far as they run
        unbroken from leaf 0 and each checkpoint's signed root vouches for them (a row a
        superuser edited vouches for nothing from there on)."""
        query = SQL(
            "SELECT tree_size, note, leaves_from, leaves FROM {0} WHERE tree_size <= %s "
            "AND leaves IS NOT NULL ORDER BY tree_size"
        ).format(self.shard.table(self.shard.tables.checkpoints))
        with self.shard.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (upto,))
            rows = cursor.fetchall()
        leaves: list[bytes] = []
        tree = Tree()
        for row in rows:
            size, start, kept = int(row["tree_size"]), int(row["leaves_from"]), bytes(row["leaves"])
            if start > len(leaves) or len(kept) != (size - start) * 32 or size < len(leaves):
                break  # a gap, or not the leaves of this size: nothing past here is vouched
            added = [kept[i : i + 32] for i in range((len(leaves) - start) * 32, len(kept), 32)]
            for leaf in added:
                tree.append(leaf)
            try:
                vouched = open_checkpoint(str(row["note"]), self.verifiers).root == tree.root()
            except NoteRefused:
                vouched = False
            if not vouched:
                break
            leaves += added
        return leaves

    def _open(self, note: str) -> Checkpoint:
        try:
            return open_checkpoint(note, self.verifiers)
        except NoteRefused as error:
            detail = f"a stored checkpoint does not verify: {error}"
            raise self._disagree(None, None, detail) from error

    def _sign(self, since: int) -> str:
        """Sign the tree as it is and store the checkpoint, with the leaves added `since` the
        latest one stored: after a restart they say which leaf was signed (`_exact`)."""
        size = self._tree.size
        note = sign_note(Checkpoint(self.origin, size, self._tree.root()).text, self.signers)
        table = self.shard.table(self.shard.tables.checkpoints)
        insert = SQL(
            "INSERT INTO {0} (tree_size, note, leaves_from, leaves) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING"
        ).format(table)
        select = SQL("SELECT note FROM {0} WHERE tree_size = %s").format(table)
        leaves = bytes(self._links[since * 32 : size * 32])
        with self.shard.datastore.transaction(commit=True) as cursor:
            cursor.execute(insert, (size, note, since, leaves))
            cursor.execute(select, (size,))
            row = cursor.fetchone()
        kept = row["note"] if row is not None else None
        if kept != note and (kept is None or self._open(kept).root != self._tree.root()):
            raise self._disagree(
                None, None, f"another checkpoint of {size} leaves was stored with another root"
            )
        return str(kept)

    def _head(self) -> int:
        query = SQL("SELECT coalesce(max(notification_id), 0) AS head FROM {0}").format(
            self.shard.table(self.shard.tables.events)
        )
        with self.shard.datastore.transaction(commit=False) as cursor:
            cursor.execute(query)
            row = cursor.fetchone()
        return 0 if row is None else int(row["head"])

    def _latest_stored(self) -> tuple[int, str] | None:
        query = SQL("SELECT tree_size, note FROM {0} ORDER BY tree_size DESC LIMIT 1").format(
            self.shard.table(self.shard.tables.checkpoints)
        )
        with self.shard.datastore.transaction(commit=False) as cursor:
            cursor.execute(query)
            row = cursor.fetchone()
        return None if row is None else (int(row["tree_size"]), str(row["note"]))

    def _stored(self) -> list[tuple[int, str]]:
        query = SQL("SELECT tree_size, note FROM {0} ORDER BY tree_size").format(
            self.shard.table(self.shard.tables.checkpoints)
        )
        with self.shard.datastore.transaction(commit=False) as cursor:
            cursor.execute(query)
            return [(int(r["tree_size"]), str(r["note"])) for r in cursor.fetchall()]

    def _rows(self, after: int) -> Iterator[tuple[int, bytes | None]]:
        """The rows after position `after`, in log order, a page per statement: one round
        trip for the few rows a command's answer adds (a reader's `entries`), and the whole
        log at a build. Positions commit in the order they are taken (append.sql), so a
        page never skips a row that commits later."""
        query = SQL(
            "SELECT notification_id, chain_hash FROM {0} WHERE notification_id > %s "
            "ORDER BY notification_id LIMIT %s"
        ).format(self.shard.table(self.shard.tables.events))
        datastore = self.shard.datastore
        while True:
            conn = datastore.lease()
            try:
                rows = conn.execute(query, (after, _PAGE)).fetchall()
            except psycopg.Error as error:
                raise datastore.failed(error) from error
            finally:
                datastore.release(conn)
            for row in rows:
                link = row["chain_hash"]
                yield int(row["notification_id"]), None if link is None else bytes(link)
            if len(rows) < _PAGE:
                return
            after = int(rows[-1]["notification_id"])
