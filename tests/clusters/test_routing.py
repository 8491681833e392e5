"""Issue #18 on real clusters: a campaign's events land on its shard's cluster only, and one
projector on home builds the read models from every cluster's log.

Home (the placement directory, the read models) and shard 0 share cluster 0, as the contract
allows; shard 1 is cluster 1 of its own; cluster 2 is not part of this deployment at all.
"""

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
from tests.support.clusters import Clusters

pytestmark = [pytest.mark.clusters, pytest.mark.slow]


def test_each_campaign_lives_on_its_cluster_and_home_projects_them_all(
    clusters: Clusters, tmp_path: Path
) -> None:
    with clusters.layout((0, 1)) as layout:
        deployment = ClusterDeployment(clusters.servers[0], layout.shards, tmp_path, layout=layout)
        try:
            # Given Senki migrated over two clusters, one API and one projector
            deployment.migrate()
            deployment.start_apis(1)
            deployment.start_projectors(("blue",))

            # When tables on campaigns of both shards play through
            _, played = play_small(deployment)

            # Then every stream's events are on one cluster only: its shard's
            where = where_streams_are(deployment, played)
            for stream, held in where.items():
                shard = deployment.shard_of(stream)
                assert list(held) == [layout.shard_hosts[shard]], (stream, shard, held)
            hosts = {cluster for held in where.values() for cluster in held}
            assert hosts == {0, 1}, f"the streams are on clusters {hosts} only"

            # and the read models on home, built from both clusters, equal a rebuild
            assert_read_models_equal_a_rebuild(deployment, played)
            # and each cluster's hash chain verifies
            assert_chains_verify(deployment)
        finally:
            deployment.stop_all()
