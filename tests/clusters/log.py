"""The event log of a deployment over several clusters, read as the checks need it: every
shard's events from its own cluster, and the projector's view of them (lag, rebuilds)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from domain.catalog import registry
from infra.store.ledger import Ledger, open_ledger
from tests.support.clusters import Layout


@contextmanager
def cluster_ledger(layout: Layout) -> Iterator[Ledger]:
    """The ledger `senki serve` opens for the layout: shard i on its own cluster, the
    placement directory on home."""
    ledger = open_ledger(
        layout.home_url(),
        registry=registry,
        shards=layout.shards,
        shard_urls=[layout.shard_url(index) for index in range(layout.shards)],
    )
    try:
        yield ledger
    finally:
        ledger.close()
