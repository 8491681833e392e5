"""The kinds of refusal every aggregate shares, so callers map them the same way.

A rule that forbids a command raises `domain.rules.errors.RuleViolation` (citing the rule);
these are the refusals no game rule covers: who may act, and what state the aggregate is in.
Each message says what was wrong and what to do instead.
"""

from __future__ import annotations


class CommandRefused(ValueError):
    """A command that does not fit the aggregate's current state."""


class NotPermitted(CommandRefused):
    """The actor may not issue this command (role, ownership, controller)."""


class WrongState(CommandRefused):
    """The aggregate does not exist yet, exists already, or is past the step asked for."""
