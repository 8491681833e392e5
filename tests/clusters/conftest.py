"""Three real PostgreSQL clusters on loopback, shared by the tests of this folder.

Starting a cluster (initdb, then the server) costs seconds on a busy machine, so the three are
started once per session; each test lays out a fresh database of its own over them
(`clusters.layout(...)`), and a test that stops a cluster starts it again before it ends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.clusters import Clusters

COUNT = 3


@pytest.fixture(scope="session")
def clusters() -> Iterator[Clusters]:
    with Clusters(COUNT) as started:
        yield started


@pytest.fixture
def restarted_clusters(clusters: Clusters) -> Iterator[Clusters]:
    """The clusters, each one up again after the test even if it failed while one was down."""
    yield clusters
    for index in range(len(clusters)):
        if not clusters.is_up(index):
            clusters.start(index)
