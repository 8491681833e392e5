"""Refusals of campaign commands that no game rule forbids (those raise `RuleViolation`).

Each one is a `ValueError`, so the API maps both kinds to a client error; the message says
what was wrong and what to do instead.
"""

from __future__ import annotations

from domain.errors import CommandRefused, NotPermitted, WrongState

__all__ = [
    "CommandRefused",
    "InvalidOptions",
    "LastGameMaster",
    "NotPermitted",
    "UnknownMember",
    "WrongState",
]


class UnknownMember(CommandRefused):
    """The command names someone who is not a member of the campaign."""


class LastGameMaster(CommandRefused):
    """The command would leave the campaign without a GM."""


class InvalidOptions(CommandRefused):
    """House-rule options that the ruleset's options model does not accept."""
