"""Schemathesis over the whole OpenAPI document, against the live app on real PostgreSQL.

Property: whatever a client sends that the schema allows (and much it does not), the answer is
never a 5xx and always fits the response schema documented for its status. Driven through
Schemathesis' Hypothesis strategies in one ordinary test (its pytest plugin does not work with
this pytest), with a bounded number of examples per operation so CI stays quick.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error, response_schema_conformance

from api.app import create_app
from infra.services.runtime import Runtime
from tests.api.conftest import open_campaign

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

EXAMPLES_PER_OPERATION = 12


def test_no_5xx_and_every_answer_fits_its_schema(runtime: Runtime, client: TestClient) -> None:
    app = create_app(lambda: runtime, lambda _: None)
    app.state.senki = runtime  # the lifespan does not run under schemathesis' ASGI transport
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    headers = {"Authorization": f"Bearer {open_campaign(client).gm}"}
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def exercise(case: Any) -> None:
            case.call_and_validate(
                headers=headers, checks=[not_a_server_error, response_schema_conformance]
            )

        exercise()
        checked.append(operation.label)
    assert len(checked) >= 10, checked
