"""Refusals of encounter commands that no game rule forbids (those raise `RuleViolation`)."""

from __future__ import annotations


class CommandRefused(ValueError):
    """A command that does not fit the encounter's current state."""


class NotPermitted(CommandRefused):
    """The issuer may not issue this command (not the GM, not the combatant's controller)."""


class WrongState(CommandRefused):
    """The encounter is not open yet, is open already, or has ended."""
