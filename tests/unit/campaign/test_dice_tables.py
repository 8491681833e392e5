"""Dice tables a GM keeps: given the tables kept so far, when the GM saves one, then a version
is recorded (or nothing, or a refusal saying why)."""

from __future__ import annotations

import pytest

from domain.campaign import dice_tables as dt
from domain.dice.bcdice.user_table import TableRefused
from domain.errors import CommandRefused
from tests.unit.campaign.table import AT, GM, new_id

CAMPAIGN = new_id(7)
DRINKS = "飲み物表\n1D2\n1:水\n2:緑茶\n"
DRINKS_2 = "飲み物表\n1D2\n1:水\n2:麦茶\n"


def kept(*saved: tuple[str, str]) -> dt.DiceTables:
    """The tables after the GM saved each (name, text) in turn."""
    state = dt.KIND.initial(dt.stream_of(CAMPAIGN))
    for name, text in saved:
        for event in dt.save(state, CAMPAIGN, name, text, at=AT, by=GM):
            state = dt.evolve(state, event)
    return state


def test_the_first_save_of_a_name_is_its_version_1() -> None:
    events = dt.save(kept(), CAMPAIGN, "飲み物表", DRINKS, at=AT, by=GM)
    assert events == [
        dt.DiceTableSaved(
            campaign_id=CAMPAIGN, name="飲み物表", table_version=1, text=DRINKS, at=AT, by=GM
        )
    ]


def test_saving_again_is_the_next_version_and_every_version_stays() -> None:
    state = kept(("飲み物表", DRINKS), ("飲み物表", DRINKS_2))
    assert [(v.version, v.text) for v in state.tables["飲み物表"]] == [(1, DRINKS), (2, DRINKS_2)]
    assert state.latest("飲み物表") == state.tables["飲み物表"][1]


def test_the_same_text_as_the_latest_version_records_nothing() -> None:
    assert dt.save(kept(("飲み物表", DRINKS)), CAMPAIGN, "飲み物表", DRINKS, at=AT, by=GM) == []


def test_a_table_bcdice_could_not_roll_is_refused_saying_why() -> None:
    with pytest.raises(TableRefused, match="1–6"):
        dt.save(kept(), CAMPAIGN, "表", "表\n1D6\n1:a\n2:b\n", at=AT, by=GM)


@pytest.mark.parametrize("name", ["", " 表", "a/b", "改\n行", "x" * (dt.MAX_NAME + 1)])
def test_a_name_that_cannot_be_kept_is_refused(name: str) -> None:
    with pytest.raises(dt.TableNameRefused):
        dt.save(kept(), CAMPAIGN, name, DRINKS, at=AT, by=GM)


def test_the_count_of_tables_and_of_versions_is_bounded() -> None:
    full = kept(*((f"表{n}", DRINKS) for n in range(dt.MAX_TABLES)))
    with pytest.raises(CommandRefused, match=f"at most {dt.MAX_TABLES} tables"):
        dt.save(full, CAMPAIGN, "もう一つ", DRINKS, at=AT, by=GM)
    assert dt.save(full, CAMPAIGN, "表0", DRINKS_2, at=AT, by=GM)  # a new version still fits
    texts = [f"表\n1D2\n1:{n}\n2:b\n" for n in range(dt.MAX_VERSIONS)]
    many = kept(*(("表", text) for text in texts))
    with pytest.raises(CommandRefused, match="under a new name"):
        dt.save(many, CAMPAIGN, "表", DRINKS, at=AT, by=GM)
