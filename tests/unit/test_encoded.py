"""A typed answer is serialised once: the idempotency record and the response share the bytes."""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel, ConfigDict

from infra.services.executor import encoded, stored


class Answer(BaseModel):
    model_config = ConfigDict(frozen=True)
    version: int
    facts: list[str]


@pytest.fixture
def dumps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The versions of the answers serialised, one entry per serialisation."""
    counted: list[int] = []
    serializer = Answer.__pydantic_serializer__

    class Counting:
        """The model's serializer, counting what it is asked to write as JSON."""

        def to_json(self, answer: Answer, **kwargs: object) -> bytes:
            counted.append(answer.version)
            return serializer.to_json(answer, **kwargs)  # type: ignore[arg-type]

        def __getattr__(self, name: str) -> object:
            return getattr(serializer, name)

    monkeypatch.setattr(Answer, "__pydantic_serializer__", Counting())
    return counted


def test_the_record_and_the_response_are_one_serialisation(dumps: list[int]) -> None:
    answer = Answer(version=3, facts=["DamageApplied"])
    record = stored(answer)
    assert encoded(answer) is record
    assert record == b'{"version":3,"facts":["DamageApplied"]}'
    assert dumps == [3]


def test_a_copy_filtered_for_a_reader_is_serialised_anew(dumps: list[int]) -> None:
    answer = Answer(version=4, facts=["DamageApplied"])
    encoded(answer)
    seen = answer.model_copy(update={"facts": []})  # as a player's lens filters it
    assert encoded(seen) == b'{"version":4,"facts":[]}'
    assert encoded(answer) == b'{"version":4,"facts":["DamageApplied"]}'
    assert dumps == [4, 4, 4]


def test_each_thread_keeps_its_own_last_answer(dumps: list[int]) -> None:
    mine = Answer(version=5, facts=[])
    encoded(mine)
    other = threading.Thread(target=lambda: encoded(Answer(version=6, facts=[])))
    other.start()
    other.join()
    assert encoded(mine) == b'{"version":5,"facts":[]}'
    assert dumps == [5, 6]


def test_a_plain_json_answer_is_stored_as_it_is() -> None:
    plain = {"version": 1}
    assert stored(plain) is plain
