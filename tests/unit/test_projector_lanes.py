"""How `senki project --lanes N` deals the read models to its processes."""

from __future__ import annotations

import pytest

from infra.projector.lanes import model_lock, split
from projections.catalog import PROJECTIONS


@pytest.mark.parametrize("lanes", [1, 2, 3, 5, 9])
def test_every_model_goes_to_exactly_one_lane_and_no_lane_is_empty(lanes: int) -> None:
    dealt = split(PROJECTIONS, lanes)

    assert len(dealt) == min(lanes, len(PROJECTIONS))
    assert all(dealt)
    names = sorted(p.name for lane in dealt for p in lane)
    assert names == sorted(p.name for p in PROJECTIONS)


def test_two_lanes_keep_the_two_costliest_models_apart() -> None:
    first, second = split(PROJECTIONS, 2)

    assert "encounter_log" in {p.name for p in first}
    assert "character_sheets" in {p.name for p in second}


def test_each_model_has_its_own_lock_within_int4() -> None:
    keys = [model_lock(p.name) for p in PROJECTIONS]

    assert len(set(keys)) == len(keys)
    assert all(-(2**31) <= k < 2**31 for key in keys for k in key)
