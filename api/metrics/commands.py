"""Encounter commands counted where they are executed: the command route tells its tally the
command it read, the ruleset that decided it, and what the service answered or refused.

Every other write is counted by the middleware by its route (api/metrics/writes.py). A command
refused before the route runs (a body of no command's shape, no token, no Idempotency-Key) is
not a command the server read: it shows in the latency histogram by its status only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from pydantic import ValidationError

from api.metrics.families import Families
from api.metrics.writes import COMMANDS_ROUTE, DICE_SOURCES, UNKNOWN, SeenKeys, replay_key_of
from domain.aggregate import NotFound
from domain.campaign.errors import InvalidOptions
from domain.dice import DiceEntryError, DiceSyntaxError
from domain.errors import CommandRefused, NotPermitted
from domain.rules.errors import RuleViolation
from infra.services import (
    ConcurrencyConflict,
    IdempotencyKeyReused,
    RefusedAfterDice,
    StaleVersion,
)

__all__ = ["COMMANDS_ROUTE", "CommandTally", "CommandTallyDep", "Counted", "outcome_of"]

# What refused a command, as the outcome label names it (api/problems.py maps the same errors
# to their problems); any other error is the server's ("error").
_REFUSALS: tuple[tuple[tuple[type[BaseException], ...], str], ...] = (
    ((RuleViolation, RefusedAfterDice), "refused_by_rule"),
    ((CommandRefused,), "refused_by_state"),
    ((StaleVersion, ConcurrencyConflict, IdempotencyKeyReused), "conflict"),
    (
        (NotFound, NotPermitted, InvalidOptions, ValidationError, DiceSyntaxError, DiceEntryError),
        "rejected",
    ),
)
PRECONDITION_REQUIRED = 428


def outcome_of(error: BaseException) -> str:
    """The `outcome` label of a command that `error` refused."""
    if isinstance(error, HTTPException):
        if error.status_code == PRECONDITION_REQUIRED:
            return "conflict"
        return "rejected" if error.status_code < 500 else "error"
    for kinds, outcome in _REFUSALS:
        if isinstance(error, kinds):
            return outcome
    return "error"


@dataclass
class Counted:
    """One command as the route runs it: the ruleset that decides it, once known, and the
    sources of the dice its answer recorded."""

    ruleset: str
    dice: list[str] = field(default_factory=list)

    def rolled(self, sources: Iterable[str]) -> None:
        self.dice = [source for source in sources if source in DICE_SOURCES]


@dataclass(frozen=True)
class CommandTally:
    """The counters of one app, for the command route."""

    families: Families
    seen: SeenKeys

    @contextmanager
    def command(self, ruleset: str | None, name: str, key: str | None) -> Iterator[Counted]:
        """Count the command run inside: accepted (or replayed: a retry of a key this process
        answered), or refused by what raised; its dice once, on its first answer."""
        counted = Counted(ruleset or UNKNOWN)
        try:
            yield counted
        except BaseException as error:
            self._count(counted, name, outcome_of(error))
            raise
        first = self.seen.first_time(None if key is None else replay_key_of(key))
        self._count(counted, name, "accepted" if first else "replayed")
        if first:
            for source in counted.dice:
                self.families.dice.labels(source).inc()

    def _count(self, counted: Counted, name: str, outcome: str) -> None:
        self.families.commands.labels(counted.ruleset, name, outcome).inc()


async def command_tally(request: Request) -> CommandTally:
    tally = request.app.state.command_tally
    assert isinstance(tally, CommandTally)  # api/metrics install() puts it there
    return tally


CommandTallyDep = Annotated[CommandTally, Depends(command_tally)]
