"""What every cluster test checks after its tables have played: where each stream's events
are, that the read models on home equal a rebuild from every cluster, and that the chains verify."""

from __future__ import annotations

import json
import threading
import time
from uuid import UUID

from infra.store.ledger import Ledger
from tests.clusters.deployment import ClusterDeployment, count_events
from tests.clusters.log import cluster_ledger
from tests.fault.checks import (
    Streams,
    differences,
    encounter_log_gaps,
    lagging,
    live_read_models,
    rebuilt_read_models,
)
from tests.fault.client import Acks
from tests.fault.load import Campaign, Plan, Played, open_campaigns, play
from tests.support.readside import Snapshot

SMALL = Plan(campaigns=2, encounters_per_campaign=1, rulings_per_encounter=8, rolls_per_campaign=6)


def play_small(deployment: ClusterDeployment, plan: Plan = SMALL) -> tuple[list[Campaign], Played]:
    """Campaigns opened over every shard, then each table played through once."""
    acks = Acks()
    tables = open_campaigns(deployment.servers, acks, plan, deployment.shard_of, deployment.shards)
    return tables, play(deployment.servers, acks, plan, tables, threading.Event())


def where_streams_are(deployment: ClusterDeployment, played: Played) -> dict[str, dict[int, int]]:
    """Stream → {cluster: events of it on that cluster, in any shard's table}."""
    layout = deployment.layout
    found: dict[str, dict[int, int]] = {}
    for stream in played.streams:
        found[stream] = {}
        for cluster in range(len(layout.clusters)):
            owner = layout.clusters.url(cluster, layout.database)
            held = sum(count_events(owner, shard, stream) for shard in range(layout.shards))
            if held:
                found[stream][cluster] = held
    return found


def assert_read_models_equal_a_rebuild(deployment: ClusterDeployment, played: Played) -> Streams:
    """The projector on home caught up with every cluster's log, and what it built equals a
    rebuild from position 0 of every shard; returns every stream, read from its cluster.

    Every process of the deployment is stopped first (the rebuild runs here, and must not
    wait for the deployment's projector to give up its lock)."""
    with cluster_ledger(deployment.layout) as ledger:
        caught_up(deployment, ledger)
        for process in [*deployment.apis, *deployment.projectors.values()]:
            deployment.check_alive(process)  # none died on the way
        deployment.stop_all()
        streams = placed_streams(ledger)
        live = live_read_models(deployment.app_url)
        rebuilt = rebuilt_read_models(deployment.app_url, ledger)
    differ = differences(live, rebuilt)
    assert not differ, "\n".join(f"{table}: {text}" for table, text in differ.items())
    gaps = encounter_log_gaps(live, streams, played)
    assert not gaps, f"{gaps}:\n{missing_lines(live, streams, played)}"
    return streams


def placed_streams(ledger: Ledger) -> Streams:
    """Every stream's events from the shard it is placed on now (a moved stream's retired
    copy on its old shard is left out, as every read leaves it out)."""
    streams: Streams = {}
    for shard in range(len(ledger.shards)):
        after = 0
        while batch := ledger.read_log(shard=shard, after=after, limit=2000):
            for recorded in batch:
                if ledger.placements.shard_of(recorded.stream_id) == shard:
                    streams.setdefault(recorded.stream_id, []).append(recorded)
            after = batch[-1].position or after
    for events in streams.values():
        events.sort(key=lambda r: r.version)
    return streams


def caught_up(deployment: ClusterDeployment, ledger: Ledger, timeout: float = 90) -> None:
    """Wait until every live read model is at the head of every shard; say which is not."""
    deadline = time.monotonic() + timeout
    while behind := lagging(deployment.app_url, ledger):
        if time.monotonic() > deadline:
            logs = {name: p.output()[-600:] for name, p in deployment.projectors.items()}
            raise AssertionError(
                f"read models still behind after {timeout:.0f} s: {behind}\n{logs}"
            )
        time.sleep(0.5)


def assert_chains_verify(deployment: ClusterDeployment) -> str:
    """`senki verify` recomputes every shard's hash chain on its own cluster."""
    verified = deployment.senki("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return verified.stdout


def streams_of(played: Played, shard_of: dict[str, int], shard: int) -> set[UUID]:
    return {UUID(s) for s in played.streams if shard_of[s] == shard}


def missing_lines(live: dict[str, Snapshot], streams: Streams, played: Played) -> str:
    """Each encounter whose events have no line in the encounter log, and which versions."""
    lines: dict[str, set[int]] = {}
    for row in live["encounter_log"]["encounter_log"]:
        fields = json.loads(row)
        lines.setdefault(str(fields["encounter_id"]), set()).add(int(fields["version"]))
    found = []
    for stream, acks in played.streams.items():
        if not acks[0].path.endswith("/encounters"):
            continue
        versions = {r.version for r in streams[UUID(stream)]}
        lost = sorted(versions - lines.get(stream, set()))
        if lost:
            found.append(
                f"{stream}: {len(lost)} of {len(versions)} versions, {lost[0]}..{lost[-1]}"
            )
    return "\n".join(found)
