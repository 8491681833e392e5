"""`built` (infra/services/built.py) makes what `model_construct` makes, without its per-field
loop, and refuses what it cannot make the same way."""

from __future__ import annotations

from datetime import UTC, datetime

import pydantic
import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from infra.services.built import built
from infra.services.encounter_answers import Awaited, EventPublic


def test_a_built_model_is_the_one_model_construct_makes() -> None:
    fields = {
        "type": "gd.DamageApplied",
        "version": 7,
        "position": None,
        "at": datetime(2026, 12, 3, tzinfo=UTC),
        "by": "gm",
        "payload": {"combatant": "brute", "hp": [3, 1]},
    }
    made, constructed = built(EventPublic, **fields), EventPublic.model_construct(**fields)

    assert made == constructed
    assert made.model_fields_set == constructed.model_fields_set == set(EventPublic.model_fields)
    assert made.model_dump_json() == constructed.model_dump_json()
    assert EventPublic.model_validate_json(made.model_dump_json()) == made
    assert made.model_copy(update={"version": 8}).version == 8
    assert made.version == 7


def test_a_built_frozen_model_stays_frozen() -> None:
    awaited = built(Awaited, command="DeclareAttack", issuer="controller", combatant="ace")

    with pytest.raises(pydantic.ValidationError, match="frozen"):
        awaited.command = "Pass"
    assert hash(awaited) == hash(
        Awaited(command="DeclareAttack", issuer="controller", combatant="ace")
    )


def test_a_model_missing_a_field_or_given_one_it_lacks_is_refused() -> None:
    with pytest.raises(TypeError, match="every field"):
        built(Awaited, command="Pass", issuer="gm")  # combatant: model_construct's default
    with pytest.raises(TypeError, match="every field"):
        built(Awaited, command="Pass", issuer="gm", combatant=None, extra=1)


def test_a_model_with_private_attributes_is_refused() -> None:
    class Secretive(BaseModel):
        model_config = ConfigDict(frozen=True)
        name: str
        _seen: int = PrivateAttr(default=0)

    with pytest.raises(TypeError, match="private attributes"):
        built(Secretive, name="x")


def test_fields_given_in_any_order_are_written_in_the_models_order() -> None:
    made = built(Awaited, combatant="ace", issuer="controller", command="DeclareAttack")

    assert made.model_dump_json() == (
        '{"command":"DeclareAttack","issuer":"controller","combatant":"ace"}'
    )


def test_a_model_that_allows_extra_fields_is_refused() -> None:
    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str

    with pytest.raises(TypeError, match="extras"):
        built(Open, name="x")
