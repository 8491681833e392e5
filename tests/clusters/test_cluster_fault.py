"""Issue #18's fault test on real clusters: one shard's cluster is stopped (immediately, as
if its machine died) under load and started again.

Home and shard 0 share cluster 0; shard 1 is cluster 1. Two `senki serve` and a `senki
project` take the tables of four campaigns, two on each shard, from clients that retry with
the same Idempotency-Key. While cluster 1 is down its campaigns answer 503 with Retry-After,
the campaigns on shard 0 keep being served (no 503 there: the goal is 0), and /readyz answers
200 "degraded" naming shard 1. Afterwards: no acknowledged command lost or applied twice,
the read models equal a rebuild from both clusters, and both chains verify, including the
heads a table kept just before the stop.

Run alone with `pytest -m clusters -s tests/clusters/test_cluster_fault.py` to see the counts.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from psycopg import sql

from infra.store.names import SCHEMA, ShardTables
from tests.clusters import outage
from tests.clusters.checks import assert_read_models_equal_a_rebuild
from tests.clusters.deployment import ClusterDeployment
from tests.clusters.log import cluster_ledger
from tests.fault.checks import assert_exactly_once, every_stream
from tests.fault.client import Acks
from tests.fault.faults import receipts
from tests.fault.load import Plan, open_campaigns, wait_for_acks
from tests.support.clusters import Clusters, Layout
from tests.support.processes import wait_for

pytestmark = [pytest.mark.clusters, pytest.mark.slow]

PLAN = Plan(campaigns=4, encounters_per_campaign=2, rulings_per_encounter=20, rolls_per_campaign=20)
DOWN, UP = 1, 0  # shard 1 (cluster 1) is stopped; shard 0 shares home's cluster
DOWN_S = 6.0  # how long cluster 1 stays down once the API has noticed


def test_one_cluster_down_stops_only_its_campaigns_and_loses_nothing(
    restarted_clusters: Clusters, tmp_path: Path
) -> None:
    clusters, started = restarted_clusters, time.monotonic()
    with clusters.layout((0, 1)) as layout:
        deployment = ClusterDeployment(clusters.servers[0], layout.shards, tmp_path, layout=layout)
        try:
            # Given Senki over two clusters, tables of both shards playing
            deployment.migrate()
            deployment.start_apis(2)
            deployment.start_projectors(("blue",))
            acks = Acks()
            tables = open_campaigns(deployment.servers, acks, PLAN, deployment.shard_of, 2)
            load = outage.Tables(outage.session(deployment.servers, acks, PLAN), tables)
            load.start()
            try:
                wait_for_acks(acks, PLAN.commands * 3 // 10, load.session.stop)
                kept = receipts(deployment.servers[0])

                # When shard 1's cluster stops, and starts again a few seconds later
                begin = outage.now()
                clusters.stop(layout.shard_hosts[DOWN], "immediate")
                degraded = wait_degraded(deployment.servers[0])
                time.sleep(DOWN_S)
                clusters.start(layout.shard_hosts[DOWN])
                end = outage.now()
                wait_for(lambda: ready(deployment.servers[0])["status"] == "ready", timeout=60)
            finally:
                played = load.result()

            # Then /readyz said which shard was down, and still answered 200
            assert degraded["status"] == "degraded", degraded
            assert shard_statuses(degraded) == {UP: "ok", DOWN: "unavailable"}, degraded

            # and only the down shard's campaigns were answered 503, each with Retry-After
            answers = load.session.answers
            on = answers.by_shard(deployment.shard_of)
            others = {code for (_, code) in answers.seen if code != 503}
            assert not answers.without_retry_after, answers.without_retry_after[:3]
            assert on[DOWN] > 0, f"no 503 seen while shard {DOWN} was down: {answers.seen}"
            assert on[UP] == 0, (
                f"campaigns on the healthy shard got {on[UP]} 503s: "
                f"{answers.said_on(UP, deployment.shard_of)}"
            )
            assert not others, f"other 5xx answers: {answers.seen}"

            # and the healthy shard's tables kept being served while the other was down
            healthy = {s for s in played.streams if deployment.shard_of(s) == UP}
            served = outage.acknowledged_between(played, healthy, begin, end)
            assert served > 0, "nothing on the healthy shard was acknowledged during the outage"

            # and every acknowledged command is in its cluster's log once, as answered
            with cluster_ledger(layout) as ledger:
                streams = every_stream(ledger)
            stored = stored_answers(layout)
            replays = assert_exactly_once(streams, played, acks, stored, PLAN.commands)
            assert not deployment.unexplained_errors()

            # and the read models equal a rebuild; both chains verify, with the kept heads
            assert_read_models_equal_a_rebuild(deployment, played)
            verified = deployment.senki("verify", *[a for r in kept for a in ("--expect-head", r)])
            assert verified.returncode == 0, verified.stdout + verified.stderr

            print(
                f"\ncluster fault test: {acks.acknowledged} commands acknowledged, 0 lost, "
                f"0 doubled ({replays} answered from the idempotency record); "
                f"{sum(len(e) for e in streams.values())} events; cluster {DOWN} down "
                f"{(end - begin).total_seconds():.1f} s; 503s on the down shard {on[DOWN]}, "
                f"on the other {on[UP]}; {served} commands served on shard {UP} meanwhile; "
                f"retries {dict(acks.counts)}; readyz while down {json.dumps(degraded)}; "
                f"problem: {answers.problems[:1]}; {time.monotonic() - started:.0f} s in all"
            )
        finally:
            deployment.stop_all()


def ready(server: str) -> dict[str, Any]:
    """/readyz's answer; it must stay 200 while home answers, whatever a shard does."""
    answer = httpx.get(f"{server}/readyz", timeout=10)
    assert answer.status_code == 200, f"/readyz {answer.status_code}: {answer.text}"
    body: dict[str, Any] = answer.json()
    return body


def wait_degraded(server: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        body = ready(server)
        if shard_statuses(body).get(DOWN) == "unavailable":
            return body
        assert time.monotonic() < deadline, f"/readyz never reported shard {DOWN} down: {body}"
        time.sleep(0.2)


def shard_statuses(body: dict[str, Any]) -> dict[int, str]:
    return {int(s["shard"]): str(s["status"]) for s in body.get("shards", [])}


def stored_answers(layout: Layout) -> dict[str, list[dict[str, Any]]]:
    """Every answer kept for retries, read from each shard's own cluster (see
    tests/fault/checks.py's stored_answers, which reads one database)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for shard in range(layout.shards):
        table = sql.Identifier(SCHEMA, ShardTables(shard).idempotency)
        with psycopg.connect(layout.owner_url(shard)) as conn:
            rows = conn.execute(sql.SQL("SELECT key, response FROM {}").format(table))
            for key, response in rows:
                answer = response if isinstance(response, dict) else json.loads(response)
                found.setdefault(str(key).split(":", 1)[1], []).append(answer)
    return found
