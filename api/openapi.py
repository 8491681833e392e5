"""The OpenAPI document a sheet site generates its client from: what every operation shares
(problem-details errors, ETags, Idempotency-Key), added in one place.

Each operation's id, summary and examples stand on its route (`operation_id=`, `summary=`,
`responses=answered(...)`): a stable id chosen on purpose, so renaming a path or a function
changes no generated method name (`getCharacterSheet` stays `getCharacterSheet`); a route
without one fails tests/api/test_openapi.py. The
errors each operation documents follow from what the operation takes: a token can be refused
(401/403), an id can name nothing (404), an `If-Match` can be stale (412) or missing (428),
and so on; each is an RFC 9457 `application/problem+json` body of the shared `Problem` schema.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI

from api import writes
from api.problems import PROBLEM_JSON, TYPE_BASE, Problem

Doc = dict[str, Any]


def answered(example: Doc) -> dict[int | str, Doc]:
    """A route's `responses=` entry for its 200 answer's example (FastAPI merges it into the
    response model's schema): an answer of a real run, trimmed to what a site reads."""
    # FastAPI encodes the document without None values, which drops an example's nulls (a
    # site token's member_id, a pilot on foot's unit_id): refine puts them back.
    _NULLS_DROPPED[_key(_without_nulls(example))] = example
    return {200: {"content": {"application/json": {"example": example}}}}


_NULLS_DROPPED: dict[str, Doc] = {}


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _document_success(operation: Doc) -> None:
    ok = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json")
    if ok is not None and "example" in ok:
        ok["example"] = _NULLS_DROPPED.get(_key(ok["example"]), ok["example"])


def install(app: FastAPI) -> None:
    """Serve the refined document at /openapi.json (FastAPI's documented way to extend it)."""
    generate = app.openapi
    refined: list[Doc] = []

    def openapi() -> Doc:
        doc = generate()  # FastAPI's cached dict, rebuilt only when routes change
        if not refined or refined[0] is not doc:
            refine(doc)
            refined[:] = [doc]
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def refine(doc: Doc) -> None:
    """Problem responses, ETag headers, the sheets' two shapes, the Problem schema, and the
    Idempotency-Key every POST requires (ids, summaries and examples stand on the routes)."""
    writes.document_keys_required(doc)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(_problem_schemas())
    for path, methods in doc.get("paths", {}).items():
        for method, operation in methods.items():
            _document_errors(path, method, operation)
            _document_etag(operation)
            _document_sheet_shapes(operation)
            _document_success(operation)
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)  # FastAPI's own 422 body: every 422 here is a Problem


def _problem_schemas() -> dict[str, Doc]:
    schema = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    found: dict[str, Doc] = schema.pop("$defs", {})
    found["Problem"] = schema
    return found


# --- errors -------------------------------------------------------------------------------

_EXAMPLES: dict[int, tuple[str, str, str, Doc]] = {
    400: ("bad-request", "Bad request", "every POST needs an Idempotency-Key header", {}),
    401: (
        "unauthenticated",
        "Authentication required",
        "send `Authorization: Bearer <token>`; a campaign's first token is returned when it "
        "is created, others are issued by its GM",
        {},
    ),
    403: (
        "forbidden",
        "Not allowed",
        "a site token may not do this; it needs one of: gm, player",
        {},
    ),
    404: ("not-found", "Not found", "no character 5b0c…: check the id", {}),
    409: ("wrong-state", "Not possible now", "the scenario has already started", {}),
    412: (
        "stale-version",
        "The resource changed",
        "you acted on version 3, but it is now at version 4: reload it, check what changed, "
        "and send the command again with If-Match: 4",
        {"current_version": 4},
    ),
    413: ("too-large", "Request body too large", "send less per request", {}),
    422: (
        "invalid-request",
        "Invalid request",
        "body.name: String should have at least 1 character",
        {"errors": [{"field": "body.name", "message": "String should have at least 1 character"}]},
    ),
    428: (
        "precondition-required",
        "Precondition required",
        "send If-Match with the version you read (the ETag of the resource)",
        {},
    ),
    503: (
        "unavailable",
        "Database unavailable",
        "PostgreSQL did not answer; retry with the same Idempotency-Key.",
        {},
    ),
}

_DESCRIPTIONS = {
    400: "Bad request: a missing Idempotency-Key, or a malformed If-Match or Last-Event-ID",
    401: "No token, or an unknown or revoked one (problem type `unauthenticated`)",
    403: "The token's role or campaign does not allow this (`forbidden`)",
    404: "No such resource (`not-found`)",
    409: "Not possible in the resource's current state, or a concurrent change",
    412: "If-Match names an older version (`stale-version`; current_version and ETag say which)",
    413: "Body too large (`too-large`)",
    422: "Invalid request (`invalid-request`, with errors), refused by a rule (`rule-violation`,"
    " with rule_id), or an Idempotency-Key reused with another body",
    428: "If-Match is required on this resource (`precondition-required`)",
    503: "The database is unavailable, or a read model is still being built (Retry-After)",
}

_WRITES = {"post", "put", "patch", "delete"}


def _statuses(path: str, method: str, operation: Doc) -> set[int]:
    """The errors this operation can answer, from what it takes."""
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
    found = set() if path == "/healthz" else {503}
    rules: list[tuple[bool, set[int]]] = [
        (bool(operation.get("security")), {401, 403}),
        ("{" in path, {404}),
        (bool(operation.get("parameters")) or "requestBody" in operation, {422}),
        ("requestBody" in operation, {413, 422}),
        ("idempotency-key" in headers, {400, 409, 422}),
        ("if-match" in headers, {400, 412, 428}),
        ("last-event-id" in headers, {400}),
        (method in _WRITES, {409}),
    ]
    for applies, statuses in rules:
        if applies:
            found |= statuses
    return found


def _problem_response(status: int) -> Doc:
    kind, title, detail, extra = _EXAMPLES[status]
    example = {"type": TYPE_BASE + kind, "title": title, "status": status, "detail": detail}
    return {
        "description": _DESCRIPTIONS[status],
        "content": {
            PROBLEM_JSON: {
                "schema": {"$ref": "#/components/schemas/Problem"},
                "example": example | extra,
            }
        },
    }


def _document_errors(path: str, method: str, operation: Doc) -> None:
    responses = operation.setdefault("responses", {})
    for status in list(responses):
        if status.isdigit() and int(status) >= 400:
            del responses[status]  # FastAPI's defaults; replaced by the ones that apply
    for status in sorted(_statuses(path, method, operation)):
        responses[str(status)] = _problem_response(status)


# --- ETags and examples -------------------------------------------------------------------

_ETAG = {
    "description": "The version(s) the answer was computed from, quoted: send it back as "
    "If-None-Match to get 304 while nothing changed (or as If-Match to change the resource).",
    "schema": {"type": "string"},
    "example": '"7"',
}


def _document_etag(operation: Doc) -> None:
    """Operations that answer 304 to If-None-Match say so, and that they send an ETag."""
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
    if "if-none-match" not in headers:
        return
    for status in ("200", "304"):
        if status in operation["responses"]:
            operation["responses"][status].setdefault("headers", {})["ETag"] = _ETAG


def _document_sheet_shapes(operation: Doc) -> None:
    """A sheet is one of two shapes, chosen by `format`: say both, so a generated client
    parses a CCFolia piece as one (not as a sheet it is not)."""
    names = {p["name"] for p in operation.get("parameters", [])}
    ok = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json")
    if "format" not in names or ok is None or "anyOf" in ok["schema"]:
        return
    # anyOf, not oneOf: a CCFolia piece is read leniently, so a sheet would match it too.
    ok["schema"] = {"anyOf": [ok["schema"], {"$ref": "#/components/schemas/CcfoliaPiece"}]}
