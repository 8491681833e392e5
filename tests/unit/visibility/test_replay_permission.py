"""Who may run a what-if replay (docs/visibility.md "A what-if is not an oracle"): given a
fight with a hidden grunt, a reader it is hidden from is refused; whoever sees it all is not."""

from __future__ import annotations

import pytest

from domain.errors import NotPermitted
from domain.visibility.encounter import Reader
from domain.visibility.replay import check_may_replay
from tests.unit.visibility.test_policy import FIGHT, Joined


@pytest.mark.parametrize(
    "reader", [Reader("player", "aoi"), Reader("viewer", "mio"), Reader("site")]
)
def test_a_reader_the_grunt_is_hidden_from_may_not_replay(reader: Reader) -> None:
    with pytest.raises(NotPermitted, match="the GM's"):
        check_may_replay(reader, FIGHT)


@pytest.mark.parametrize("reader", [Reader("gm", "gm"), Reader("player", "gm")])
def test_the_gm_and_the_grunts_controller_may_replay(reader: Reader) -> None:
    check_may_replay(reader, FIGHT)


def test_a_player_replays_a_fight_with_nothing_hidden() -> None:
    check_may_replay(Reader("player", "aoi"), [Joined("ace", "エース", "aoi", False)])
