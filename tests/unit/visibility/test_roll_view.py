"""Who rolled a roll (docs/visibility.md, "Secret rolls"): shown with the roll, withheld with it.

A secret roll's roller is what the table would guess its purpose from, so a reader who may not
see the roll does not see who rolled it either; the roll-log page shows it beside each roll.
"""

from __future__ import annotations

from domain.dice.bcdice import roll_by_hand
from domain.visibility.encounter import Reader
from domain.visibility.rolls import roll_view

ROLL = roll_by_hand("1D100<=47", [12], roll_seq=0, purpose="table roll")
VIEWER = Reader("viewer", "mio")


def test_an_open_roll_names_who_rolled_it_to_every_reader() -> None:
    view = roll_view(ROLL, VIEWER, secret=False, rolled_by="aoi", revealed=False)
    assert (view.withheld, view.rolled_by, view.text) == (False, "aoi", ROLL.text)


def test_a_withheld_secret_roll_does_not_say_who_rolled_it() -> None:
    view = roll_view(ROLL, VIEWER, secret=True, rolled_by="aoi", revealed=False)
    assert (view.withheld, view.rolled_by, view.command) == (True, None, "")


def test_the_roller_and_then_everyone_after_the_reveal_see_who_rolled() -> None:
    own = roll_view(ROLL, Reader("player", "aoi"), secret=True, rolled_by="aoi", revealed=False)
    revealed = roll_view(ROLL, VIEWER, secret=True, rolled_by="aoi", revealed=True)
    assert (own.rolled_by, revealed.rolled_by) == ("aoi", "aoi")
