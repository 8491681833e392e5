"""WZ facts about bad statuses (WZ-8 timing, WZ-9 recovery)."""

from __future__ import annotations

from domain.events import registry, sample
from domain.rules.wizardry_round.events import Logged


class StatusInflicted(Logged):
    """WZ-8: a bad status; `deferred` ones take effect at the end of the current inning."""

    model_config = sample(
        combatant="fighter",
        status="paralysis",
        incapacitating=True,
        deferred=True,
    )

    event_type = "wz.StatusInflicted"
    combatant: str
    status: str
    incapacitating: bool
    deferred: bool


class StatusTookEffect(Logged):
    """WZ-8: a status inflicted during an inning takes effect at the inning's end."""

    model_config = sample(combatant="fighter", status="paralysis", incapacitating=True)

    event_type = "wz.StatusTookEffect"
    combatant: str
    status: str
    incapacitating: bool


class StatusRemoved(Logged):
    """WZ-9 (or WZ-8): a bad status ends, as the GM ruled."""

    model_config = sample(combatant="fighter", status="paralysis")

    event_type = "wz.StatusRemoved"
    combatant: str
    status: str


registry.register(StatusInflicted, StatusTookEffect, StatusRemoved)
