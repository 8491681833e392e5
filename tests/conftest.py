"""Fixtures shared by every test folder: one real PostgreSQL server, fresh databases, ledgers.

The server is chosen once per run, never collected twice: the embedded PostgreSQL by default,
an external one when `--pg-url URL` (or `SENKI_TEST_DATABASE_URL`) names a superuser on it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.databases import APP_ROLE, TestServer, embedded_data_dir, external_url
from tests.support.prerequisites import check_prerequisites, refuse_if_missing


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--pg-url",
        default=None,
        help="run the PostgreSQL tests against this external server (a superuser URL) "
        "instead of the embedded one; the same as SENKI_TEST_DATABASE_URL",
    )


def pytest_configure(config: pytest.Config) -> None:
    url = config.getoption("--pg-url")
    if url:
        # Subprocesses the tests start (the CLI, benchmarks) read the same variable.
        os.environ["SENKI_TEST_DATABASE_URL"] = url


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.option.collectonly:
        check_prerequisites(config, items)


def pytest_runtest_setup(item: pytest.Item) -> None:
    refuse_if_missing(item)


def pytest_report_header(config: pytest.Config) -> str:
    url = external_url()
    return f"PostgreSQL: {'external ' + url if url else 'embedded, in ' + str(embedded_data_dir())}"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[TestServer]:
    """The run's PostgreSQL server: every PostgreSQL test uses this one."""
    url = external_url()
    if url is not None:
        test_server = TestServer("external", url)
        yield test_server
        test_server.drop_template()
        return
    from infra.postgres.embedded import EmbeddedPostgres

    server = EmbeddedPostgres(embedded_data_dir())
    server.start()
    test_server = TestServer("embedded", server.superuser_url)
    try:
        yield test_server
    finally:
        test_server.drop_template()
        server.stop()


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
