"""Turning failures into one line a person can act on (CLI) — never a traceback."""

from __future__ import annotations

import logging

import click

log = logging.getLogger("senki")

# Exit codes: 2 bad input, 3 database or setup, 4 not found, 1 unexpected.
BAD_INPUT, SETUP, NOT_FOUND, UNEXPECTED = 2, 3, 4, 1


def _known() -> list[tuple[tuple[type[BaseException], ...], int]]:
    from domain.aggregate import NotFound
    from domain.dice import DiceEntryError, DiceSyntaxError
    from domain.roll_log import RollLogClosed
    from domain.rules.errors import RuleViolation
    from infra.bootstrap import NotMigrated
    from infra.database import DatabaseUnavailable
    from infra.dice_key import DiceKeyError
    from infra.store.migrate import MigrationError

    return [
        ((DiceSyntaxError, DiceEntryError, RollLogClosed, RuleViolation), BAD_INPUT),
        ((NotMigrated, MigrationError, DiceKeyError, DatabaseUnavailable), SETUP),
        ((NotFound,), NOT_FOUND),
    ]


def explain(error: BaseException) -> tuple[str, int]:
    """A message saying what went wrong and what to do, and the exit code for it."""
    from infra.store.ledger import is_unavailable

    if isinstance(error, click.ClickException):
        suffix = " (see --help)" if isinstance(error, click.UsageError) else ""
        return error.format_message() + suffix, error.exit_code
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
