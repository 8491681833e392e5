"""Senki as deployed, on loopback, under faults: no acknowledged command lost, none applied
twice, every read model equal to a rebuild, and the hash chains verify.

A private PostgreSQL server, `senki db migrate`, three `senki serve` and two `senki project`
(one on standby) take a couple of thousand commands over 24 encounters and 4 roll logs from
clients that retry with the same Idempotency-Key, while the test SIGKILLs an API process,
SIGKILLs the active projector and restarts PostgreSQL (fast, then immediate; the chain heads
read just before each restart must still hold afterwards).

Run it alone with `pytest -m fault -s` (the summary is printed); SENKI_FAULT_SHARDS=1,2 picks
the shard counts (default 2: campaigns routed to two shards, the projectors following both;
60 to 150 s each on a busy 2-core machine).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from infra.store.ledger import Ledger
from tests.fault.checks import (
    Streams,
    assert_exactly_once,
    differences,
    encounter_log_gaps,
    event_log,
    every_stream,
    lagging,
    live_read_models,
    rebuilt_read_models,
    stored_answers,
)
from tests.fault.client import Acks
from tests.fault.deployment import Deployment
from tests.fault.faults import Struck, play_through_faults
from tests.fault.load import Plan
from tests.support.private_pg import PrivateServer
from tests.support.processes import free_port, wait_for

pytestmark = [pytest.mark.fault, pytest.mark.slow, pytest.mark.postgres]

# Two shards by default: each gets its share of the campaigns, and the projectors follow both.
SHARDS = [int(n) for n in os.environ.get("SENKI_FAULT_SHARDS", "2").split(",")]


@pytest.mark.parametrize("shards", SHARDS)
def test_faults_lose_no_acknowledged_command_and_apply_none_twice(
    shards: int, tmp_path: Path
) -> None:
    plan, started = Plan(), time.monotonic()
    with PrivateServer(free_port()) as server:
        deployment = Deployment(server, shards, tmp_path)
        try:
            # Given Senki deployed as in production, on a server the test may restart
            deployment.migrate()
            deployment.start_projectors(("blue", "green"))
            deployment.start_apis(3)
            wait_for(lambda: deployment.active_projector() is not None, timeout=60)
            acks = Acks()

            # When the clients play every table while the faults strike
            played, struck = play_through_faults(deployment, acks, plan)
            with event_log(deployment.app_url, shards) as ledger:
                settle(deployment, ledger)

                # Then every acknowledged command is in the log once, as it was answered
                streams = every_stream(ledger)
                stored = stored_answers(deployment.owner_url, shards)
                replays = assert_exactly_once(streams, played, acks, stored, plan.commands)

                # and the hash chains, the revealed dice and the receipts kept before each
                # restart verify
                assert_verifies(deployment, struck)

                # and the read models kept through it all equal a rebuild from position 0
                live = live_read_models(deployment.app_url)
                rebuilt = rebuilt_read_models(deployment.app_url, ledger)
                print(summary(shards, acks, struck, streams, replays=replays, started=started))
                differ = differences(live, rebuilt)
                assert not differ, "\n".join(f"{table}: {text}" for table, text in differ.items())
                gaps = encounter_log_gaps(live, streams, played)
                assert not gaps, gaps
        finally:
            deployment.stop_all()


def settle(deployment: Deployment, ledger: Ledger) -> None:
    """Wait until the read models have caught up, check nothing died, shut everything down."""
    wait_for(lambda: not lagging(deployment.app_url, ledger), timeout=90, every=0.5)
    for process in [*deployment.apis, *deployment.projectors.values()]:
        deployment.check_alive(process)  # none died of the faults
    deployment.stop_all()
    assert not deployment.unexplained_errors()  # every 5xx: PostgreSQL was down


def assert_verifies(deployment: Deployment, struck: Struck) -> None:
    """`senki verify`, with every receipt kept before a restart, exits 0."""
    assert len(struck.receipts) == 2 * deployment.shards, struck.receipts
    kept = [arg for receipt in struck.receipts for arg in ("--expect-head", receipt)]
    verified = deployment.senki("verify", *kept)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def summary(
    shards: int, acks: Acks, struck: Struck, streams: Streams, *, replays: int, started: float
) -> str:
    counts, events = acks.counts, sum(len(e) for e in streams.values())
    causes = {k: v for k, v in counts.items() if k not in {"sent", "acknowledged", "retried"}}
    restarts = ", ".join(f"{mode} {s:.1f} s" for mode, s in struck.restarts.items())
    return (
        f"\nfault test, {shards} shard(s): {counts['acknowledged']} commands acknowledged "
        f"({replays} answered from the idempotency record after a lost answer), "
        f"{counts['sent']} requests, {counts['retried']} retries {causes}; {events} events; "
        f"SIGKILLed {struck.killed_api}; SIGKILLed projector {struck.killed_projector}, "
        f"{struck.standby} took over in {struck.takeover_s:.2f} s; PostgreSQL restarted "
        f"{restarts}, {len(struck.receipts)} receipts kept before held; "
        f"faults struck after {struck.acks_at} acks; "
        f"{time.monotonic() - started:.0f} s in all"
    )
