"""Refusals shared by every rule system.

A refusal is an input the rules forbid (a guard that would push HP below zero, a move
that costs more than the mover has, a die face that cannot exist). It is raised, not
returned, so that no caller can silently record an outcome computed from a forbidden input.
"""

from __future__ import annotations


class RuleViolation(ValueError):
    """An input the rules forbid; the message cites the rule ID and the numbers.

    `detail` is English; `ja` says the same in Japanese with the seed's terms, declared at
    the raise site so that the two cannot drift apart (tests/unit/test_refusal_words.py)."""

    def __init__(self, rule_id: str, detail: str, *, ja: str | None = None) -> None:
        self.rule_id = rule_id
        self.detail = detail
        self.ja = ja
        # The rule ID leads the message so that a log line or an API problem detail
        # can be traced to the clause without parsing anything else.
        super().__init__(f"{rule_id}: {detail}")

    @property
    def message_ja(self) -> str | None:
        """The Japanese message, led by the rule ID as the English one is."""
        return None if self.ja is None else f"{self.rule_id}: {self.ja}"
