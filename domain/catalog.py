"""Imports every aggregate module so that each registers its events with the registry."""

from __future__ import annotations

from domain import roll_log, roll_logs
from domain.campaign import campaign, character, dice_tables, scenario, unit
from domain.encounter import aggregate as encounter
from domain.encounter import record as _commands_are_recorded  # noqa: F401  (registers CommandIssued)
from domain.events import registry

AGGREGATES = (
    roll_log.KIND,
    campaign.KIND,
    character.KIND,
    unit.KIND,
    scenario.KIND,
    encounter.KIND,
    dice_tables.KIND,
    roll_logs.KIND,
)

__all__ = ["AGGREGATES", "registry"]
