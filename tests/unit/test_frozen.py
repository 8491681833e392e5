"""`replaced` makes the copy `model_copy(update=...)` makes, field for field and set for set."""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel, ConfigDict, PrivateAttr

from domain.encounter.state import Encounter
from domain.frozen import last_answer, replaced
from domain.rules.glorious_drive.position import Position


def _parts(model: BaseModel) -> tuple[object, ...]:
    return (
        type(model),
        list(model.__dict__.items()),
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


def test_a_replaced_copy_is_the_model_copy() -> None:
    encounter = Encounter(id=UUID(int=1), ruleset_id="glorious_drive", roll_count=3)
    changes = {"version": 4, "roll_count": 5, "awaiting": None}
    copy = replaced(encounter, changes)
    assert _parts(copy) == _parts(encounter.model_copy(update=changes))
    assert copy == encounter.model_copy(update=changes)
    assert encounter.roll_count == 3  # the original is untouched
    position = Position(x=1, y=2)
    assert _parts(replaced(position, {"z": 3})) == _parts(position.model_copy(update={"z": 3}))
    assert hash(replaced(position, {"z": 3})) == hash(Position(x=1, y=2, z=3))


class _Extra(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    a: int


class _Private(BaseModel):
    model_config = ConfigDict(frozen=True)

    a: int
    _seen: int = PrivateAttr(default=7)


def test_a_model_with_extra_or_private_values_is_copied_by_model_copy() -> None:
    extra = _Extra(a=1, b=2)
    assert _parts(replaced(extra, {"a": 3})) == _parts(extra.model_copy(update={"a": 3}))
    private = _Private(a=1)
    assert _parts(replaced(private, {"a": 3})) == _parts(private.model_copy(update={"a": 3}))


def test_the_last_answer_is_given_again_for_the_same_state_only() -> None:
    asked: list[Position] = []

    @last_answer
    def around(position: Position) -> list[int]:
        asked.append(position)
        return [position.x, position.y]

    here, there = Position(x=1, y=2), Position(x=1, y=2)
    first = around(here)
    again = around(here)
    assert first == again == [1, 2]
    assert again is not first  # each caller gets its own list
    again.append(3)
    assert around(here) == [1, 2]
    assert asked == [here]
    assert around(there) == [1, 2]  # an equal state, but another one: asked again
    assert len(asked) == 2
