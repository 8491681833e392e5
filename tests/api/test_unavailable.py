"""When PostgreSQL goes away, readiness says 503 with a problem document, not a stack trace."""

from __future__ import annotations

from typing import ClassVar

from fastapi.testclient import TestClient

from api.app import create_app
from infra.services.ports import LivenessView, LogHeadView, Unavailable


class DownDatabase:
    """A fake service whose database does not answer."""

    version = "test"
    ruleset_versions: ClassVar[dict[str, str]] = {}

    def liveness(self) -> LivenessView:
        return LivenessView("ok")

    def check_ready(self) -> None:
        raise Unavailable("PostgreSQL does not answer; retry shortly")

    def log_heads(self) -> list[LogHeadView]:
        raise RuntimeError("boom: internal detail that must not leak")


def test_readiness_is_503_when_the_database_is_down() -> None:
    with TestClient(create_app(DownDatabase, lambda _: None)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["detail"] == "PostgreSQL does not answer; retry shortly"


def test_an_unexpected_error_is_a_500_problem_without_internals() -> None:
    app = create_app(DownDatabase, lambda _: None)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/v1/log/head")
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/problem+json"
    assert "boom" not in response.text
    assert "Traceback" not in response.text


class OperationalError(Exception):
    """Named as the driver names a lost connection (psycopg.OperationalError)."""


class RestartedDatabase(DownDatabase):
    """A pooled connection died with a database restart: the driver's error surfaces."""

    def log_heads(self) -> list[LogHeadView]:
        raise OperationalError("consuming input failed: server closed the connection")


def test_a_connection_lost_to_a_restart_is_a_503_to_retry_not_a_500() -> None:
    app = create_app(RestartedDatabase, lambda _: None)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/v1/log/head")
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    assert response.json()["type"].endswith("/unavailable")
    assert "server closed" not in response.text
