"""The kinds of refusal every aggregate shares, so callers map them the same way.

A rule that forbids a command raises `domain.rules.errors.RuleViolation` (citing the rule);
these are the refusals no game rule covers: who may act, and what state the aggregate is in.
Each message says what was wrong and what to do instead, in English (`str()`) and in Japanese
(`ja`, in the seed's terms), declared together where the refusal is raised.
"""

from __future__ import annotations


class CommandRefused(ValueError):
    """A command that does not fit the aggregate's current state.

    `ja` is the same message in Japanese, so a Japanese table shows the refusal in its own
    language (tests/unit/test_refusal_words.py holds every raise site to giving one)."""

    def __init__(self, detail: str, *, ja: str | None = None) -> None:
        super().__init__(detail)
        self.ja = ja


class NotPermitted(CommandRefused):
    """The actor may not issue this command (role, ownership, controller)."""


class WrongState(CommandRefused):
    """The aggregate does not exist yet, exists already, or is past the step asked for."""
