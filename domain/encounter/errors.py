"""Refusals of encounter commands that no game rule forbids (those raise `RuleViolation`)."""

from __future__ import annotations

from domain.errors import CommandRefused, NotPermitted, WrongState

__all__ = ["CommandRefused", "NotPermitted", "WrongState"]
