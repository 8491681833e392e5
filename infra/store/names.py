"""Names of the tables of one shard of the event log (one events table per shard)."""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA = "senki"


@dataclass(frozen=True)
class ShardTables:
    """The tables that make up shard `index`; every shard lives in schema `senki`."""

    index: int

    @property
    def events(self) -> str:
        return f"events_{self.index}"

    @property
    def write_lock(self) -> str:
        # The library locks the events table IN EXCLUSIVE MODE, which needs UPDATE (or DELETE,
        # TRUNCATE) on the locked table. We lock this empty sidecar instead, so the service role
        # holds no UPDATE privilege on stored events at all.
        return f"events_{self.index}_writelock"

    @property
    def append_function(self) -> str:
        """The function one append is sent as (infra/sql/append.sql)."""
        return f"events_{self.index}_append"

    @property
    def append_batch_function(self) -> str:
        """The function queued appends are sent as together (infra/sql/append_batch.sql)."""
        return f"events_{self.index}_append_batch"

    @property
    def snapshots(self) -> str:
        return f"snapshots_{self.index}"

    @property
    def checkpoints(self) -> str:
        """Every signed checkpoint of the shard's Merkle tree (infra/store/log_tree.py)."""
        return f"checkpoints_{self.index}"

    @property
    def idempotency(self) -> str:
        return f"idempotency_{self.index}"

    @property
    def sequence(self) -> str:
        return f"events_{self.index}_notification_id_seq"

    @property
    def chain_genesis(self) -> bytes:
        """Seed of the hash chain, bound to the shard so chains cannot be swapped between shards."""
        return f"senki/chain/v1/{self.events}".encode()
