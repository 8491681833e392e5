"""Turning failures into one line a person can act on (CLI) — never a traceback."""

from __future__ import annotations

import logging

log = logging.getLogger("senki")
_USAGE_ERRORS = {
    "UsageError",
    "BadParameter",
    "MissingParameter",
    "NoSuchOption",
    "BadOptionUsage",
    "BadArgumentUsage",
}

# Exit codes: 2 bad input, 3 database or setup, 4 not found, 1 unexpected.
BAD_INPUT, SETUP, NOT_FOUND, UNEXPECTED = 2, 3, 4, 1


def _known() -> list[tuple[tuple[type[BaseException], ...], int]]:
    from domain.aggregate import NotFound
    from domain.dice import DiceEntryError, DiceSyntaxError
    from domain.roll_log import RollLogClosed
    from domain.rules.errors import RuleViolation
    from infra.bootstrap import NotMigrated
    from infra.cli.workers import WorkersRefused
    from infra.dice_key import DiceKeyError
    from infra.postgres.database import DatabaseUnavailable
    from infra.store.migrate import MigrationError
    from infra.store.move import MoveFailed, MoveRefused
    from infra.store.placement import ShardsShrunk

    return [
        ((DiceSyntaxError, DiceEntryError, RollLogClosed, RuleViolation, MoveRefused), BAD_INPUT),
        ((MoveFailed,), UNEXPECTED),
        (
            (
                NotMigrated,
                MigrationError,
                DiceKeyError,
                DatabaseUnavailable,
                ShardsShrunk,
                WorkersRefused,
            ),
            SETUP,
        ),
        ((NotFound,), NOT_FOUND),
    ]


def explain(error: BaseException) -> tuple[str, int]:
    """A message saying what went wrong and what to do, and the exit code for it."""
    from infra.store.ledger import is_unavailable

    # Typer carries its own copy of click's exceptions (typer._click), so they are recognised
    # by what they offer rather than by class.
    message = getattr(error, "format_message", None)
    code = getattr(error, "exit_code", None)
    if callable(message) and isinstance(code, int):
        suffix = " (see --help)" if type(error).__name__ in _USAGE_ERRORS else ""
        return f"{message()}{suffix}", code
    for kinds, code in _known():
        if isinstance(error, kinds):
            return str(error), code
    if is_unavailable(error):
        first = (str(error).strip().splitlines() or ["no answer"])[0]
        return (
            f"cannot reach PostgreSQL ({first}); check SENKI_DATABASE_URL or unset it to use "
            "the embedded server",
            SETUP,
        )
    log.debug("unexpected error", exc_info=error)
    return (
        f"unexpected {type(error).__name__}: {error}. Re-run with SENKI_LOG_LEVEL=debug and "
        "report it with that output",
        UNEXPECTED,
    )
