"""Rule systems: pure functions that decide; the aggregates apply what they decide."""

from domain.rules.errors import RuleViolation

__all__ = ["RuleViolation"]
