"""The scripted fights of the rulesets as their event logs, for tests that read whole fights."""

from __future__ import annotations

from domain.events import DomainEvent
from tests.unit.rules.armor_knights import test_scripted_duel as ak_duel
from tests.unit.rules.wizardry_round import test_scripted_encounter as wz_fight


def wizardry_round() -> list[DomainEvent]:
    return wz_fight.fight().events


def armor_knights() -> list[DomainEvent]:
    table = ak_duel.line_up()
    ak_duel.turn_1(table)
    ak_duel.turn_2(table)
    return table.events
