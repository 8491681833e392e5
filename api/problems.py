"""RFC 9457 problem details for every error the API returns; never a stack trace."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from domain.aggregate import NotFound
from domain.campaign.errors import InvalidOptions
from domain.dice import DiceEntryError, DiceSyntaxError
from domain.errors import CommandRefused, NotPermitted
from domain.rules.errors import RuleViolation
from infra.services import (
    ConcurrencyConflict,
    IdempotencyKeyReused,
    NotBuilt,
    RefusedAfterDice,
    ShardUnavailable,
    StaleVersion,
    StreamMoved,
    TreeDisagrees,
    Unavailable,
    is_unavailable,
)

log = logging.getLogger("senki.api")

PROBLEM_JSON = "application/problem+json"
TYPE_BASE = "https://senki.dev/problems/"


class FieldError(BaseModel):
    field: str
    message: str


class Problem(BaseModel):
    """An error, as RFC 9457 describes it, plus the rule that refused the request if any."""

    type: str = Field(description="A stable URI naming the kind of problem.")
    title: str
    status: int
    detail: str = Field(description="What was wrong and what to do about it.")
    detail_ja: str | None = Field(
        default=None,
        description="The same detail in Japanese (the rule texts' terms), for a refusal by the "
        "rules or by the state of the game: a Japanese client shows it instead of `detail`.",
    )
    rule_id: str | None = Field(default=None, description="The rule (RULES.md) that refused it.")
    current_version: int | None = Field(default=None, description="The version now (412).")
    errors: list[FieldError] | None = Field(default=None, description="Field errors (422).")
    shards: list[int] | None = Field(
        default=None, description="The shards whose PostgreSQL cluster is unavailable (503)."
    )
    evidence: dict[str, Any] | None = Field(
        default=None, description="Where a shard's Merkle tree and its log part (503, issue 37)."
    )


def problem(status: int, kind: str, title: str, detail: str, **extra: Any) -> JSONResponse:
    body = Problem(type=TYPE_BASE + kind, title=title, status=status, detail=detail, **extra)
    return JSONResponse(
        body.model_dump(exclude_none=True), status_code=status, media_type=PROBLEM_JSON
    )


_TITLES = {
    400: ("bad-request", "Bad request"),
    401: ("unauthenticated", "Authentication required"),
    403: ("forbidden", "Not allowed"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    409: ("conflict", "Conflict"),
    412: ("precondition-failed", "Precondition failed"),
    413: ("too-large", "Request body too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
    428: ("precondition-required", "Precondition required"),
}


def _field_error(found: Any, body: Any) -> FieldError:
    """One invalid part; broken JSON says where it broke (line and column, as an editor
    shows them) and why, not a character offset."""
    where = [str(p) for p in found["loc"]]
    if found.get("type") == "json_invalid" and isinstance(body, str) and len(where) == 2:
        offset = int(where[1])
        line = body.count("\n", 0, offset) + 1
        column = offset - (body.rfind("\n", 0, offset) + 1) + 1
        why = found.get("ctx", {}).get("error", "not JSON")
        return FieldError(
            field="body",
            message=f"broken JSON at line {line}, column {column} (character {offset}): {why}",
        )
    return FieldError(field=".".join(where), message=found["msg"])


def install(app: FastAPI) -> None:
    """Map every exception the app can raise to a problem response."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        kind, title = _TITLES.get(error.status_code, ("error", "Error"))
        return problem(error.status_code, kind, title, str(error.detail))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        errors = [_field_error(e, error.body) for e in error.errors()]
        summary = "; ".join(f"{e.field}: {e.message}" for e in errors[:5])
        return problem(422, "invalid-request", "Invalid request", summary, errors=errors)

    @app.exception_handler(RuleViolation)
    async def refused(request: Request, error: RuleViolation) -> JSONResponse:
        return problem(
            422,
            "rule-violation",
            "Refused by the rules",
            str(error),
            rule_id=error.rule_id,
            detail_ja=error.message_ja,
        )

    @app.exception_handler(RefusedAfterDice)
    async def refused_after_dice(request: Request, error: RefusedAfterDice) -> JSONResponse:
        # Issue 33 §1: recorded, then refused; the ETag is the version the record reached.
        response = problem(
            422,
            "refused-after-dice",
            "Refused after the dice were drawn",
            str(error),
            rule_id=error.rule_id,
        )
        response.headers["ETag"] = f'"{error.version}"'
        return response

    @app.exception_handler(StaleVersion)
    async def stale(request: Request, error: StaleVersion) -> JSONResponse:
        response = problem(
            412, "stale-version", "The resource changed", str(error), current_version=error.current
        )
        response.headers["ETag"] = f'"{error.current}"'
        return response

    @app.exception_handler(ConcurrencyConflict)
    async def conflict(request: Request, error: ConcurrencyConflict) -> JSONResponse:
        return problem(409, "conflict", "Concurrent change", str(error))

    @app.exception_handler(IdempotencyKeyReused)
    async def reused(request: Request, error: IdempotencyKeyReused) -> JSONResponse:
        return problem(422, "idempotency-key-reused", "Idempotency-Key reused", str(error))

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> JSONResponse:
        return problem(404, "not-found", "Not found", f"{error}: check the id")

    @app.exception_handler(NotPermitted)
    async def not_permitted(request: Request, error: NotPermitted) -> JSONResponse:
        return problem(403, "forbidden", "Not allowed", str(error), detail_ja=error.ja)

    @app.exception_handler(InvalidOptions)
    async def bad_options(request: Request, error: InvalidOptions) -> JSONResponse:
        return problem(
            422, "invalid-options", "Invalid house rules", str(error), detail_ja=error.ja
        )

    @app.exception_handler(CommandRefused)
    async def wrong_state(request: Request, error: CommandRefused) -> JSONResponse:
        return problem(409, "wrong-state", "Not possible now", str(error), detail_ja=error.ja)

    async def bad_dice(request: Request, error: Exception) -> JSONResponse:
        return problem(422, "bad-dice", "Bad dice", str(error))

    for dice_error in (DiceSyntaxError, DiceEntryError):
        app.add_exception_handler(dice_error, bad_dice)

    @app.exception_handler(ValidationError)
    async def invalid_inside(request: Request, error: ValidationError) -> JSONResponse:
        # A body that passed the route's schema but not the domain's (a sheet, a command).
        errors = [
            FieldError(field=".".join(str(p) for p in e["loc"]), message=e["msg"])
            for e in error.errors()
        ]
        summary = "; ".join(f"{e.field}: {e.message}" for e in errors[:5])
        return problem(422, "invalid-request", "Invalid request", summary, errors=errors)

    @app.exception_handler(NotBuilt)
    async def not_built(request: Request, error: NotBuilt) -> JSONResponse:
        response = problem(
            503,
            "read-model-building",
            "Read model not built yet",
            str(error),  # it says to retry shortly; Retry-After says when
        )
        response.headers["Retry-After"] = "2"
        return response

    @app.exception_handler(StreamMoved)
    async def moving(request: Request, error: StreamMoved) -> JSONResponse:
        # A campaign being moved between shards: writes pause until its placement switches.
        response = problem(503, "campaign-moving", "Campaign is being moved", str(error))
        response.headers["Retry-After"] = "1"
        return response

    @app.exception_handler(TreeDisagrees)
    async def tree_disagrees(request: Request, error: TreeDisagrees) -> JSONResponse:
        # The shard's Merkle tree and its events part: it signs nothing more (issue 37).
        return problem(
            503,
            "log-tree-disagrees",
            "The log no longer matches its Merkle tree",
            f"{error} This log signs nothing more; keep this evidence.",
            evidence=error.found.as_dict(),
        )

    @app.exception_handler(Unavailable)
    async def unavailable(request: Request, error: Unavailable) -> JSONResponse:
        return problem(503, "unavailable", "Database unavailable", str(error))

    @app.exception_handler(ShardUnavailable)
    async def shard_unavailable(request: Request, error: ShardUnavailable) -> JSONResponse:
        # One shard's cluster is down: its campaigns wait, the other shards serve (issue #18).
        log.warning("shard %s unavailable: %s %s", error.shards, request.method, request.url)
        response = problem(
            503,
            "shard-unavailable",
            "Shard unavailable",
            f"{error} Retry with the same Idempotency-Key.",
            shards=list(error.shards),
        )
        response.headers["Retry-After"] = "2"
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        shard_error = _shard_error(error)
        if shard_error is not None:
            return await shard_unavailable(request, shard_error)
        if is_unavailable(error):
            # A pooled connection that died with a database restart fails one write; the
            # client's retry (same Idempotency-Key) gets a fresh connection.
            log.warning("database unavailable: %s %s: %s", request.method, request.url, error)
            response = problem(
                503,
                "unavailable",
                "Database unavailable",
                "PostgreSQL did not answer; retry with the same Idempotency-Key.",
            )
            response.headers["Retry-After"] = "1"
            return response
        # Logged with its traceback for the operator; the client gets no internals.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(
            500,
            "internal",
            "Internal error",
            "Senki hit an unexpected error; it is logged. Retry with the same Idempotency-Key.",
        )


def _shard_error(error: BaseException) -> ShardUnavailable | None:
    """The ShardUnavailable behind an error that wraps it (a service re-raising), if any."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of causes is short; never loop on a cycle
        if seen is None:
            return None
        if isinstance(seen, ShardUnavailable):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
