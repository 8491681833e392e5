"""The event log of a deployment over several clusters, read as the checks need it: every
shard's events from its own cluster, and the projector's view of them (lag, rebuilds)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from domain.catalog import registry
from infra.store.connect import datastore_for
from infra.store.ledger import Ledger, Shard
from infra.store.mapper import PydanticMapper
from infra.store.names import ShardTables
from infra.store.placement import Placements
from tests.support.clusters import Layout


@contextmanager
def cluster_ledger(layout: Layout) -> Iterator[Ledger]:
    """A ledger whose shard i reads and writes `events_i` on its own cluster, and whose
    placement directory is on home (as `senki serve` builds it from SENKI_SHARD_URLS)."""
    stores = {url: datastore_for(url) for url in {layout.home_url(), *_shard_urls(layout)}}
    shards = [
        Shard(stores[layout.shard_url(index)], ShardTables(index)) for index in range(layout.shards)
    ]
    ledger = Ledger(
        shards, PydanticMapper(registry), Placements(stores[layout.home_url()], layout.shards)
    )
    try:
        yield ledger
    finally:
        for store in stores.values():
            store.close()


def _shard_urls(layout: Layout) -> list[str]:
    return [layout.shard_url(index) for index in range(layout.shards)]
