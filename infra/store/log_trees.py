"""Every shard's tree, the keys that sign their checkpoints, and each shard's origin."""

from __future__ import annotations

from uuid import UUID

from psycopg.sql import SQL

from domain.campaign.campaign import CampaignOpened
from infra.settings import Settings
from infra.store.ledger import Ledger
from infra.store.log_tree import LogEntry, NoSuchLeaf, ShardTree
from infra.store.note import Verifier, derive_signer


class LogTrees:
    """Every shard's tree, with the keys and origins the log publishes."""

    def __init__(self, trees: list[ShardTree], verifiers: list[Verifier], ledger: Ledger) -> None:
        self.trees = trees
        self.verifiers = verifiers
        self.ledger = ledger

    def tree(self, shard: int) -> ShardTree:
        if not 0 <= shard < len(self.trees):
            raise NoSuchLeaf(f"there is no shard {shard}; this log has {len(self.trees)}")
        return self.trees[shard]

    def entries(self, shard: int, positions: list[int | None]) -> dict[int, LogEntry]:
        return self.tree(shard).entries([p for p in positions if p is not None])

    def campaign_at(self, shard: int, position: int) -> UUID | None:
        """The campaign whose stream holds the event at `position` (NoSuchLeaf if none does):
        the campaign itself, or the one its stream's first event names."""
        target = self.tree(shard).shard
        query = SQL("SELECT originator_id FROM {0} WHERE notification_id = %s").format(
            target.table(target.tables.events)
        )
        with target.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (position,))
            row = cursor.fetchone()
        if row is None:
            raise NoSuchLeaf(f"no event at position {position}")
        stream: UUID = row["originator_id"]
        first = self.ledger.read(stream, shard=shard, upto=1)
        if not first:
            return None
        opened = first[0].event
        if isinstance(opened, CampaignOpened):
            return stream
        named = getattr(opened, "campaign_id", None)
        return named if isinstance(named, UUID) else None

    @property
    def vkeys(self) -> list[str]:
        return [v.vkey for v in self.verifiers]

    @property
    def origins(self) -> list[str]:
        return [t.origin for t in self.trees]


def log_trees(settings: Settings, ledger: Ledger, master_key: bytes) -> LogTrees:
    """The trees of every shard, signed by the newest of the configured keys."""
    signers = [derive_signer(master_key, name) for name in settings.log_keys()]
    verifiers = [signer.verifier for signer in signers]
    base = settings.log_origin_base()
    return LogTrees(
        [
            ShardTree(shard, index, f"{base}/shard/{index}", signers)
            for index, shard in enumerate(ledger.shards)
        ],
        verifiers,
        ledger,
    )
