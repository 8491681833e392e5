"""Refusals shared by every rule system.

A refusal is an input the rules forbid (a guard that would push HP below zero, a move
that costs more than the mover has, a die face that cannot exist). It is raised, not
returned, so that no caller can silently record an outcome computed from a forbidden input.
"""

from __future__ import annotations


class RuleViolation(ValueError):
    """An input the rules forbid; the message cites the rule ID and the numbers."""

    def __init__(self, rule_id: str, detail: str) -> None:
        self.rule_id = rule_id
        self.detail = detail
        # The rule ID leads the message so that a log line or an API problem detail
        # can be traced to the clause without parsing anything else.
        super().__init__(f"{rule_id}: {detail}")
