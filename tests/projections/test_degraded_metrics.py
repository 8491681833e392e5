"""A degraded read model shows in /metrics: its parked events and where it is degraded,
per generation and shard (beside position and lag), or that it is stalled; a healthy one
shows 0 parked and 0 stalled."""

from __future__ import annotations

from typing import Any, cast

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from api.metrics.projections import ProjectionCollector
from infra.services.ports import LogHeadView, ProjectionPositionView, SenkiPort


class Positions:
    """The part of the port the collector asks: one degraded model, one healthy."""

    def projection_positions(self) -> list[ProjectionPositionView]:
        return [
            ProjectionPositionView(
                "character_sheets", 1, "live", 0, 40, 40, parked=2, parked_at=17, reason="boom"
            ),
            ProjectionPositionView("hp_ledger", 1, "live", 0, 40, 40),
            ProjectionPositionView("rulings", 1, "live", 0, 30, 40, still_s=120.0, stalled=True),
        ]

    def log_heads(self) -> list[LogHeadView]:
        return [LogHeadView(0, 40, "00")]


def samples() -> dict[tuple[str, str], float]:
    registry = CollectorRegistry()
    port = cast("SenkiPort", Positions())
    registry.register(ProjectionCollector(lambda: port, ttl=0))
    text = generate_latest(registry).decode()
    found: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels: dict[str, Any] = sample.labels
            found[(sample.name, labels.get("projection", ""))] = sample.value
    return found


def test_a_degraded_model_reports_its_parked_events_and_first_parked_position() -> None:
    found = samples()
    assert found[("senki_projection_parked_events", "character_sheets")] == 2
    assert found[("senki_projection_degraded_position", "character_sheets")] == 17
    assert found[("senki_projection_parked_events", "hp_ledger")] == 0
    assert ("senki_projection_degraded_position", "hp_ledger") not in found
    assert found[("senki_projection_lag_events", "character_sheets")] == 0  # it is current


def test_a_stalled_model_reports_1_and_how_long_it_has_stood_still() -> None:
    found = samples()
    assert found[("senki_projection_stalled", "rulings")] == 1
    assert found[("senki_projection_still_seconds", "rulings")] == 120
    assert found[("senki_projection_stalled", "hp_ledger")] == 0
    assert found[("senki_projection_lag_events", "rulings")] == 10
