"""Two API processes sharing one database: a retried request with the same Idempotency-Key
reaches the other process and gets the first answer; one copy of each event is stored."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import psycopg
import pytest

from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def api_process(app_url: str, **settings: str) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env |= {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_LOG_LEVEL": "warning",
        "SENKI_SHARDS": str(shard_count()),
    } | {f"SENKI_{name.upper()}": value for name, value in settings.items()}
    child = subprocess.Popen(
        [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise AssertionError(f"senki serve did not start: {child.stderr}")
        yield base
    finally:
        child.terminate()
        child.wait(timeout=30)


def count_events(owner_url: str) -> int:
    """Events in the whole log, on every shard."""
    total = 0
    with psycopg.connect(owner_url) as conn:
        for shard in range(shard_count()):
            row = conn.execute(f"SELECT count(*) FROM senki.events_{shard}").fetchone()
            assert row is not None
            total += int(row[0])
    return total


def test_a_retry_on_the_other_process_appends_nothing(app_url: str, owner_url: str) -> None:
    """The GM's token issue, sent to both processes at once and then again: one token, issued
    once, and the same answer (its token included: the GM's own retry) every time."""
    with api_process(app_url) as first, api_process(app_url) as second:
        opened = httpx.post(
            f"{first}/v1/campaigns",
            json={"name": "二つの窓口", "gm_member_id": "gm"},
            headers={"Idempotency-Key": str(uuid.uuid4())},
            timeout=30,
        ).json()
        path = f"/v1/campaigns/{opened['id']}/tokens"
        body = {"kind": "site", "label": "wiki"}
        headers = {
            "Idempotency-Key": str(uuid.uuid4()),
            "Authorization": f"Bearer {opened['token']}",
        }
        with ThreadPoolExecutor(2) as pool:
            answers = list(
                pool.map(
                    lambda base: httpx.post(
                        f"{base}{path}", json=body, headers=headers, timeout=30
                    ),
                    [first, second],
                )
            )
        again = httpx.post(f"{second}{path}", json=body, headers=headers, timeout=30)
    assert {a.status_code for a in answers} == {201}
    assert answers[0].json() == answers[1].json() == again.json()
    # CampaignOpened, the first token's AccessTokenIssued, and the site token's, once.
    assert count_events(owner_url) == 3


def test_metrics_served_on_their_own_port_are_not_on_the_api_port(app_url: str) -> None:
    """Given SENKI_METRICS_PORT, /metrics moves to that port, so a NetworkPolicy can admit
    only the monitoring system to it (k8s/base/networkpolicy.yaml)."""
    metrics_port = free_port()
    with api_process(app_url, metrics_port=str(metrics_port)) as base:
        httpx.get(f"{base}/v1/log/head", timeout=5)
        scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5)
        on_api = httpx.get(f"{base}/metrics", timeout=5)

    assert scraped.status_code == 200
    assert 'route="/v1/log/head"' in scraped.text
    assert on_api.status_code == 404
