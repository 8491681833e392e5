"""`Projection.wants`: the projector hands a read model only the events it wants and decodes
an event only when some read model asks for it."""

from __future__ import annotations

import uuid

import pytest

from domain.campaign.character import ItemEquipped
from domain.catalog import registry
from domain.encounter.events import EncounterOpened
from infra.projector.log import Entry
from projections.hp_ledger import HpLedgerV1
from projections.memory import MemoryRows
from projections.rulings import RulingsV2
from tests.projections import events
from tests.support.story import campaign_story


def test_a_read_model_wants_its_own_events_and_not_the_rest() -> None:
    assert not HpLedgerV1().wants(ItemEquipped)  # a sheet change is no scenario's business
    assert not RulingsV2().wants(EncounterOpened)
    assert RulingsV2().wants(type(events.joined("c1")))  # it names a combatant


def test_an_event_is_decoded_only_when_a_read_model_asks_for_it() -> None:
    row = (7, uuid.uuid4(), 1, "ItemEquipped.v1", b"not JSON at all")
    entry = Entry(registry, row)

    assert entry.event_class is ItemEquipped  # known from the topic alone
    with pytest.raises(ValueError, match="JSON"):
        _ = entry.event


class Liar(HpLedgerV1):
    """Says it wants no event at all, yet handles scenario events."""

    def wants(self, event_class: type) -> bool:
        return False


def test_a_read_model_that_handles_what_it_says_it_does_not_want_is_caught() -> None:
    with pytest.raises(AssertionError, match="fix its `wants`"):
        MemoryRows(Liar()).feed(campaign_story().log)
