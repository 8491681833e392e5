"""`last_answer` keeps a function's answer for the frozen state it was last asked about."""

from __future__ import annotations

from domain.frozen import last_answer
from domain.rules.glorious_drive.position import Position


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
