"""Issue #18 growth on real clusters: a running deployment given one more shard URL (a new
cluster), migrated and restarted, places new campaigns on the new cluster too, while the
campaigns already placed stay where they are and keep serving."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clusters.checks import (
    assert_chains_verify,
    assert_read_models_equal_a_rebuild,
    play_small,
    where_streams_are,
)
from tests.clusters.deployment import ClusterDeployment
from tests.fault.client import Acks, TableClient
from tests.fault.load import Plan, Played
from tests.support.clusters import Clusters

pytestmark = [pytest.mark.clusters, pytest.mark.slow]

TWO_SHARDS = Plan(
    campaigns=2, encounters_per_campaign=1, rulings_per_encounter=4, rolls_per_campaign=3
)
# One table on a campaign of each of the three shards.
THREE_SHARDS = Plan(
    campaigns=3, encounters_per_campaign=1, rulings_per_encounter=4, rolls_per_campaign=3
)


def test_a_new_cluster_takes_new_campaigns_and_the_old_ones_stay_put(
    clusters: Clusters, tmp_path: Path
) -> None:
    with clusters.layout((0, 1)) as layout:
        deployment = ClusterDeployment(clusters.servers[0], layout.shards, tmp_path, layout=layout)
        try:
            # Given a deployment over two clusters whose tables have played
            deployment.migrate()
            deployment.start_apis(1)  # the projector starts after the growth, from position 0
            before, played = play_small(deployment, TWO_SHARDS)
            placed = {c.id: deployment.shard_of(c.id) for c in before}

            # When the operator adds cluster 2 as shard 2, migrates and restarts
            deployment.stop_all()
            deployment.apis.clear()
            deployment.projectors.clear()
            deployment.grow(host=2)
            assert deployment.shards == 3
            deployment.start_apis(1)
            deployment.start_projectors(("blue",))
            after, played_after = play_small(deployment, THREE_SHARDS)

            # Then new campaigns were placed on the new cluster too
            shards_after = {deployment.shard_of(c.id) for c in after}
            assert shards_after == {0, 1, 2}, shards_after
            # and every campaign placed before is where it was, and still takes rolls there
            client = TableClient(deployment.servers, Acks())
            try:
                for campaign in before:
                    client.post(
                        f"/v1/campaigns/{campaign.id}/rolls",
                        {"expression": "2D6"},
                        token=campaign.gm,
                    )
                    assert deployment.shard_of(campaign.id) == placed[campaign.id]
            finally:
                client.close()

            # and every stream is on its own shard's cluster only
            everything = _merged(played, played_after)
            for stream, held in where_streams_are(deployment, everything).items():
                host = deployment.layout.shard_hosts[deployment.shard_of(stream)]
                assert list(held) == [host], (stream, held)
            # and the read models equal a rebuild over the three clusters; the chains verify
            assert_read_models_equal_a_rebuild(deployment, everything)
            assert_chains_verify(deployment)
        finally:
            deployment.stop_all()


def _merged(first: Played, second: Played) -> Played:
    merged = Played()
    for played in (first, second):
        for stream, acks in played.streams.items():
            merged.streams.setdefault(stream, []).extend(acks)
    return merged
