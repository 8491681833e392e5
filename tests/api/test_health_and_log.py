"""The API skeleton: probes, version, the log head, and problem details for every error."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.services.runtime import Runtime
from tests.support.runtime import start_runtime

pytestmark = pytest.mark.postgres


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
        yield client


def test_liveness_needs_no_database(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


def test_readiness_queries_the_database(client: TestClient) -> None:
    assert client.get("/readyz").json() == {"status": "ready"}


def test_version_names_the_service(client: TestClient) -> None:
    body = client.get("/v1/version").json()
    assert body["version"]


def test_given_an_empty_log_the_head_is_the_genesis_link(client: TestClient) -> None:
    heads = client.get("/v1/log/head").json()["heads"]
    assert heads[0]["shard"] == 0
    assert heads[0]["position"] == 0
    assert len(heads[0]["chain_hash"]) == 64


def test_given_rolls_the_head_moves_and_matches_verify(
    client: TestClient, runtime: Runtime
) -> None:
    log = runtime.roll_logs.open("table", by="gm")
    runtime.roll_logs.roll(uuid.UUID(log.id), "2D6", by="gm")
    head = client.get("/v1/log/head").json()["heads"][0]
    report = runtime.ledger.verify()
    assert (head["position"], head["chain_hash"]) == (report.head_position, report.head_hash.hex())


def test_an_unknown_path_is_a_problem_document(client: TestClient) -> None:
    response = client.get("/v1/nothing-here")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"].endswith("/not-found")


def test_a_body_over_the_limit_is_refused_with_413(client: TestClient) -> None:
    response = client.post("/v1/log/head", content=b"x" * (300 * 1024))
    assert response.status_code == 413
    assert response.json()["status"] == 413


def test_openapi_documents_the_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/healthz", "/readyz", "/v1/version", "/v1/log/head"} <= set(paths)
    assert client.get("/docs").status_code == 200
