"""Issue #18 on real clusters: `senki campaigns move` takes a campaign from cluster 0 to
cluster 1 while its tables (and the other campaigns') keep playing.

The clients retry with the same Idempotency-Key, so the moment between the fence and the
switch (503 campaign-moving, Retry-After) costs them a retry, never a command. Afterwards the
moved campaign's streams are read from their new cluster only: every acknowledged command is
there once, as answered, each answer is kept once (the copy on the old shard is the same
answer), the read models equal a rebuild, and both chains verify (the old copy stays,
fenced, so its chain still holds).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg import sql

from infra.store.names import SCHEMA, ShardTables
from tests.clusters import outage
from tests.clusters.checks import (
    assert_chains_verify,
    assert_read_models_equal_a_rebuild,
    placed_streams,
)
from tests.clusters.deployment import ClusterDeployment
from tests.clusters.log import cluster_ledger
from tests.fault.checks import assert_exactly_once
from tests.fault.client import Acks
from tests.fault.load import Plan, open_campaigns, wait_for_acks
from tests.support.clusters import Clusters, Layout

pytestmark = [pytest.mark.clusters, pytest.mark.slow]

PLAN = Plan(campaigns=2, encounters_per_campaign=2, rulings_per_encounter=24, rolls_per_campaign=24)
FROM, TO = 0, 1


def test_a_campaign_moves_to_another_cluster_under_load_losing_nothing(
    clusters: Clusters, tmp_path: Path
) -> None:
    with clusters.layout((0, 1)) as layout:
        deployment = ClusterDeployment(clusters.servers[0], layout.shards, tmp_path, layout=layout)
        try:
            # Given two clusters, a campaign on each, their tables playing
            deployment.migrate()
            deployment.start_apis(1)
            deployment.start_projectors(("blue",))
            acks = Acks()
            tables = open_campaigns(deployment.servers, acks, PLAN, deployment.shard_of, 2)
            moving = next(c for c in tables if deployment.shard_of(c.id) == FROM)
            load = outage.Tables(outage.session(deployment.servers, acks, PLAN), tables)
            load.start()
            try:
                wait_for_acks(acks, PLAN.commands * 3 // 10, load.session.stop)

                # When the operator moves the campaign on shard 0 to shard 1
                begin, started = outage.now(), time.monotonic()
                moved = deployment.senki("campaigns", "move", moving.id, "--to", str(TO))
                took, end = time.monotonic() - started, outage.now()
                assert moved.returncode == 0, moved.stdout + moved.stderr
            finally:
                played = load.result()

            # Then the campaign and all its streams are placed on shard 1 now
            with cluster_ledger(layout) as ledger:
                placed = {s: ledger.placements.shard_of(UUID(s)) for s in played.streams}
                ours = {s for s, acks_ in played.streams.items() if _campaign(acks_) == moving.id}
                assert ours, "the moving campaign played no stream"
                assert {placed[s] for s in ours} == {TO}, placed
                assert ledger.placements.shard_of(UUID(moving.id)) == TO
                # and every acknowledged command is there once, as answered
                streams = placed_streams(ledger)
            replays = assert_exactly_once(
                streams, played, acks, stored_answers(layout), PLAN.commands
            )
            assert not deployment.unexplained_errors()

            # and the other campaign's tables were served during the move
            others = {s for s in played.streams if s not in ours}
            served = outage.acknowledged_between(played, others, begin, end)
            moving_served = outage.acknowledged_between(played, ours, begin, end)

            # and the read models equal a rebuild; both chains verify
            assert_read_models_equal_a_rebuild(deployment, played)
            assert_chains_verify(deployment)
            answers = load.session.answers
            print(
                f"\nmove under load: {moved.stdout.strip()}; the command took {took:.1f} s; "
                f"meanwhile {moving_served} commands acknowledged on the moving campaign and "
                f"{served} on the other; {acks.acknowledged} acknowledged in all, 0 lost, "
                f"0 doubled ({replays} answered from the idempotency record); 5xx seen "
                f"{dict(answers.by_shard(lambda s: 0 if s in ours else 1))} "
                f"(0: the moving campaign, 1: the other); retries {dict(acks.counts)}"
            )
        finally:
            deployment.stop_all()


def _campaign(acks: list[Any]) -> str:
    """The campaign a stream's first answer was asked for in (its path or its body says)."""
    first = acks[0]
    if "/campaigns/" in first.path:
        return str(first.path.split("/")[3])
    return str(first.answer.get("campaign_id", ""))


def stored_answers(layout: Layout) -> dict[str, list[dict[str, Any]]]:
    """Every answer kept for retries, on every cluster, by the client's key; a moved
    campaign's answers are on both shards (copied so a retry after the move finds them), so
    one answer kept the same on both counts once, and two different answers twice."""
    found: dict[str, list[dict[str, Any]]] = {}
    for shard in range(layout.shards):
        table = sql.Identifier(SCHEMA, ShardTables(shard).idempotency)
        with psycopg.connect(layout.owner_url(shard)) as conn:
            rows = conn.execute(sql.SQL("SELECT key, response FROM {}").format(table))
            for key, response in rows:
                answer = response if isinstance(response, dict) else json.loads(response)
                kept = found.setdefault(str(key).split(":", 1)[1], [])
                if answer not in kept:
                    kept.append(answer)
    return found
