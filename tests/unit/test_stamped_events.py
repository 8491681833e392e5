"""`DomainEvent.stamped`: every fact a rule system decides is made by it, so it must be what
`model_validate` makes, and refuse what `model_validate` refuses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from domain.rules.glorious_drive import events as ev

AT = datetime(2026, 12, 5, 21, 0, tzinfo=UTC)


def test_a_stamped_fact_is_the_validated_fact_with_when_and_who() -> None:
    fields = {"combatant": "brute", "damage": 7, "hp": 3}
    stamped = ev.DamageApplied.stamped(fields, at=AT, by="gm")
    assert stamped == ev.DamageApplied.model_validate({**fields, "at": AT, "by": "gm"})
    assert (stamped.at, stamped.by) == (AT, "gm")
    assert type(stamped) is ev.DamageApplied


def test_a_stamped_fact_is_validated_as_model_validate_validates_it() -> None:
    with pytest.raises(ValidationError, match="by"):
        ev.DamageApplied.stamped({"combatant": "brute", "damage": 7, "hp": 3}, at=AT, by="")
    with pytest.raises(ValidationError, match="extra"):
        ev.DamageApplied.stamped({"combatant": "b", "damage": 7, "hp": 3, "x": 1}, at=AT, by="gm")
    # a value of the wrong type is refused as a field of that event
    with pytest.raises(ValidationError, match="damage"):
        ev.DamageApplied.stamped({"combatant": "brute", "damage": "lots", "hp": 3}, at=AT, by="gm")
