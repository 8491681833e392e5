"""Imports every aggregate module so that each registers its events with the registry."""

from __future__ import annotations

from domain import roll_log
from domain.events import registry

AGGREGATES = (roll_log.KIND,)

__all__ = ["AGGREGATES", "registry"]
