"""The OpenAPI document a sheet site generates its client from (issue 20): it passes the
ecosystem's validator, every schema has one meaningful name, every operation a stable id chosen on
its route, a summary, examples, and its errors as RFC 9457 problem details."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate

from api.app import create_app
from api.problems import PROBLEM_JSON

Doc = dict[str, Any]


@pytest.fixture(scope="module")
def doc() -> Doc:
    # The document needs no running service: the routes and models alone make it.
    return create_app(lambda: None, lambda _: None).openapi()  # type: ignore[arg-type,return-value]


def operations(doc: Doc) -> list[tuple[str, str, Doc]]:
    return [(path, method, op) for path, ops in doc["paths"].items() for method, op in ops.items()]


def test_the_document_passes_openapi_spec_validator(doc: Doc) -> None:
    validate(doc)  # raises on the first error, naming where it is


def test_every_schema_has_one_meaningful_name(doc: Doc) -> None:
    """Two models named alike in two modules came out as `api__routes__rolls__Check`, and
    openapi-python-client dropped RollLogAudit and two responses over it."""
    names = list(doc["components"]["schemas"])
    qualified = [n for n in names if "__" in n or n.endswith(("-Input", "-Output"))]
    assert qualified == [], f"rename these models so each has one name: {qualified}"
    assert not [n for n in names if n.startswith("Body_")], "name every request body model"
    checks = doc["components"]["schemas"]["RollLogAudit"]["properties"]["checks"]
    assert checks["items"] == {"$ref": "#/components/schemas/RollLogCheck"}


def test_every_operation_has_its_own_id_chosen_on_its_route(doc: Doc) -> None:
    """A route without `operation_id=` gets FastAPI's generated id (`me_v1_me_get`), which
    changes with its path: a generated client's method would be renamed with it."""
    ids = [op["operationId"] for _, _, op in operations(doc)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    generated = [i for i in ids if not i[0].islower() or "_" in i]
    assert generated == [], f"give these routes an operation_id= of their own: {generated}"


def test_every_operation_has_a_summary_and_an_example(doc: Doc) -> None:
    for path, method, op in operations(doc):
        assert op.get("summary"), (method, path)
        contents = [c for r in op["responses"].values() for c in r.get("content", {}).values()]
        assert any("example" in c or "examples" in c for c in contents), (method, path)


def test_every_error_is_a_problem_document_with_an_example(doc: Doc) -> None:
    for path, method, op in operations(doc):
        for status, response in op["responses"].items():
            if int(status) < 400:
                continue
            content = response["content"]
            assert list(content) == [PROBLEM_JSON], (method, path, status)
            body = content[PROBLEM_JSON]
            assert body["schema"] == {"$ref": "#/components/schemas/Problem"}
            assert body["example"]["status"] == int(status), (method, path, status)
    assert "HTTPValidationError" not in doc["components"]["schemas"]


def test_errors_follow_from_what_an_operation_takes(doc: Doc) -> None:
    ops = {op["operationId"]: op for _, _, op in operations(doc)}
    assert set(ops["checkLiveness"]["responses"]) == {"200"}
    assert {"401", "403", "404", "503"} <= set(ops["getCharacterSheet"]["responses"])
    assert "412" not in ops["getCharacterSheet"]["responses"]
    close = ops["closeScenario"]["responses"]
    assert {"400", "401", "403", "404", "409", "412", "413", "422", "428"} <= set(close)
    assert "ETag" in ops["getCharacterSheet"]["responses"]["304"]["headers"]


def test_a_sheet_answers_a_sheet_or_a_ccfolia_piece(doc: Doc) -> None:
    ok = doc["paths"]["/v1/characters/{character_id}/sheet"]["get"]["responses"]["200"]
    shapes = ok["content"]["application/json"]["schema"]["anyOf"]
    assert shapes == [
        {"$ref": "#/components/schemas/CharacterSheet"},
        {"$ref": "#/components/schemas/CcfoliaPiece"},
    ]
