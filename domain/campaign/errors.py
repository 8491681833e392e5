"""Refusals of campaign commands that no game rule forbids (those raise `RuleViolation`).

Each one is a `ValueError`, so the API maps both kinds to a client error; the message says
what was wrong and what to do instead.
"""

from __future__ import annotations


class CommandRefused(ValueError):
    """A command that does not fit the aggregate's current state."""


class NotPermitted(CommandRefused):
    """The actor's role in the campaign does not allow this command."""


class UnknownMember(CommandRefused):
    """The command names someone who is not a member of the campaign."""


class LastGameMaster(CommandRefused):
    """The command would leave the campaign without a GM."""


class InvalidOptions(CommandRefused):
    """House-rule options that the ruleset's options model does not accept."""


class WrongState(CommandRefused):
    """The aggregate does not exist yet, exists already, or is past the step asked for."""
