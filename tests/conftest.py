"""Fixtures shared by every test folder: real PostgreSQL servers, fresh databases, ledgers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.databases import APP_ROLE, TestServer, embedded_data_dir, external_url

BACKENDS = ["embedded", "external"]


@pytest.fixture(scope="session")
def embedded_server() -> Iterator[TestServer]:
    from infra.postgres.embedded import EmbeddedPostgres

    server = EmbeddedPostgres(embedded_data_dir())
    server.start()
    test_server = TestServer("embedded", server.superuser_url)
    try:
        yield test_server
    finally:
        test_server.drop_template()
        server.stop()


@pytest.fixture(scope="session")
def external_server() -> Iterator[TestServer]:
    url = external_url()
    if url is None:
        pytest.skip("external PostgreSQL not configured (set SENKI_TEST_DATABASE_URL)")
    test_server = TestServer("external", url)
    yield test_server
    test_server.drop_template()


@pytest.fixture(params=BACKENDS)
def pg_server(request: pytest.FixtureRequest) -> TestServer:
    """Each persistence option in turn: the contract suite runs once per backend."""
    server: TestServer = request.getfixturevalue(f"{request.param}_server")
    return server


@pytest.fixture
def database(pg_server: TestServer) -> Iterator[str]:
    with pg_server.fresh_database() as name:
        yield name


@pytest.fixture
def app_url(pg_server: TestServer, database: str) -> str:
    """The service's connection: the low-privilege role, as in production."""
    return pg_server.url(database, user=APP_ROLE)


@pytest.fixture
def owner_url(pg_server: TestServer, database: str) -> str:
    """A superuser on the same database, for tampering tests."""
    return pg_server.url(database)
