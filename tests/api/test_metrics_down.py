"""/metrics when the database is down or slow: the scrape still answers, says `senki_database_up
0`, and asks the database at most once per cache period however often it is scraped."""

from __future__ import annotations

import threading
from typing import ClassVar

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from api.app import create_app
from api.metrics.projections import ProjectionCollector
from infra.services.ports import LivenessView, LogHeadView, ProjectionPositionView, Unavailable

BEHIND = ProjectionPositionView("rulings", 1, "live", 0, position=7, head=10)


class FakeSenki:
    """A service whose database answers after `gate` opens (at once by default), or not at all."""

    version = "test"
    ruleset_versions: ClassVar[dict[str, str]] = {}

    def __init__(self, *, down: bool = False) -> None:
        self.down = down
        self.gate = threading.Event()
        self.gate.set()
        self.reads = 0

    def liveness(self) -> LivenessView:
        return LivenessView("ok")

    def check_ready(self) -> None:
        if self.down:
            raise Unavailable("PostgreSQL does not answer; retry shortly")

    def log_heads(self) -> list[LogHeadView]:
        self.check_ready()
        return [LogHeadView(0, 10, "00" * 32)]

    def projection_positions(self) -> list[ProjectionPositionView]:
        self.reads += 1
        self.gate.wait()
        self.check_ready()
        return [BEHIND]


def families(collector: ProjectionCollector) -> dict[str, list[float]]:
    return {f.name: [s.value for s in f.samples] for f in collector.collect()}


def test_a_scrape_with_the_database_down_answers_with_up_zero() -> None:
    down = FakeSenki(down=True)
    with TestClient(create_app(lambda: down, lambda _: None)) as client:
        client.get("/healthz")
        answer = client.get("/metrics")

    assert answer.status_code == 200
    found = {f.name: f for f in text_string_to_metric_families(answer.text)}
    assert [s.value for s in found["senki_database_up"].samples] == [0]
    assert "senki_projection_lag_events" not in found
    assert "senki_http_request_duration_seconds" in found  # what the process knows, it says


def test_the_lag_is_head_minus_position() -> None:
    collector = ProjectionCollector(FakeSenki)

    found = families(collector)

    assert found["senki_database_up"] == [1]
    assert found["senki_projection_lag_events"] == [3]
    assert found["senki_projection_position"] == [7]
    assert found["senki_log_head_position"] == [10]


def test_scrapes_within_the_cache_period_ask_the_database_once() -> None:
    senki, now = FakeSenki(), [100.0]
    collector = ProjectionCollector(lambda: senki, ttl=2.0, clock=lambda: now[0])

    families(collector)
    families(collector)
    assert senki.reads == 1
    now[0] += 2.0
    families(collector)
    assert senki.reads == 2


def test_a_hanging_database_costs_one_read_and_the_scrape_answers_meanwhile() -> None:
    senki = FakeSenki()
    senki.gate.clear()
    collector = ProjectionCollector(lambda: senki, timeout=0.05)

    first, second = families(collector), families(collector)
    collector.timeout = 10.0
    senki.gate.set()
    third = families(collector)

    assert first["senki_database_up"] == second["senki_database_up"] == [0]
    assert "senki_projection_lag_events" not in second
    assert senki.reads == 1  # the second scrape waited on the read already in flight
    assert third["senki_database_up"] == [1]
