"""GD-INIT-1..3 and GD-MAIN-1 through the Encounter: given events, when a command, then events."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import ActionDelayed, CombatantWaited, InitiativeOrdered
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from tests.unit.encounter.table import Table, of_type, player, sheet


def three(reactions: tuple[int, int, int] = (8, 5, 5)) -> Table:
    a, b, c = reactions
    return (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, reaction=a))
        .join("orc", "gm", "enemy", sheet(4, 0, reaction=b))
        .join("imp", "gm", "enemy", sheet(4, 4, reaction=c))
    )


def test_GD_INIT_1_higher_reaction_plus_1d6_acts_first() -> None:
    table = three()
    events = table.do(cmd.RollInitiative(), faces=[1, 6, 2])  # 9, 11, 7
    (ordered,) = of_type(events, InitiativeOrdered)
    assert ordered.order == ("orc", "ace", "imp")
    assert ordered.turn == 1
    assert table.gd.acting == "orc"


def test_GD_INIT_2_a_tie_goes_to_the_higher_reaction_without_a_reroll() -> None:
    table = three((8, 5, 5))
    events = table.do(cmd.RollInitiative(), faces=[1, 4, 2])  # ace 9, orc 9, imp 7
    assert of_type(events, InitiativeOrdered)[0].order == ("ace", "orc", "imp")
    assert len(of_type(events, EncounterDiceRolled)) == 3


def test_GD_INIT_2_a_full_tie_is_rerolled_until_ordered_and_every_reroll_is_recorded() -> None:
    table = three((8, 5, 5))
    # orc and imp tie at 8 with reaction 5: re-roll 3/3 (still tied), then 2/5.
    events = table.do(cmd.RollInitiative(), faces=[6, 3, 3, 3, 3, 2, 5])
    (ruling,) = of_type(events, RulingRecorded)
    assert ruling.rule_ids == ("GD-INIT-1", "GD-INIT-2")
    assert len(ruling.outcome["rerolls"]) == 4
    assert ruling.roll_seqs == tuple(range(7))
    assert of_type(events, InitiativeOrdered)[0].order == ("ace", "imp", "orc")


def test_GD_INIT_3_a_delay_moves_the_actor_right_after_the_named_combatant() -> None:
    table = three()
    table.do(cmd.RollInitiative(), faces=[6, 1, 2])  # ace 14, imp 7, orc 6
    (delayed,) = table.do(cmd.Delay(combatant_id="ace", after="orc"), by=player("p1"))
    assert isinstance(delayed, ActionDelayed)
    assert delayed.order == ("imp", "orc", "ace")
    assert table.gd.acting == "imp"


def test_GD_INIT_3_no_one_acts_earlier_than_the_order_allows() -> None:
    table = three()
    table.do(cmd.RollInitiative(), faces=[6, 1, 2])  # ace, imp, orc
    table.do(cmd.Wait(combatant_id="ace"), by=player("p1"))
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Delay(combatant_id="imp", after="ace"))
    assert refused.value.rule_id == "GD-INIT-3"
    assert "already acted" in refused.value.detail
    assert table.state == before


def test_GD_MAIN_1_a_waiting_character_takes_no_step_and_the_next_acts() -> None:
    table = three()
    table.do(cmd.RollInitiative(), faces=[6, 1, 2])
    (waited,) = table.do(cmd.Wait(combatant_id="ace"), by=player("p1"))
    assert isinstance(waited, CombatantWaited)
    assert table.gd.acting == "imp"
    assert table.gd.step == "cleanup"


def test_GD_TURN_1_when_the_last_has_acted_the_turn_ends_and_initiative_is_awaited() -> None:
    table = three()
    table.do(cmd.RollInitiative(), faces=[6, 1, 2])
    for who in ("ace", "imp"):
        table.do(cmd.Wait(combatant_id=who))
    events = table.do(cmd.Wait(combatant_id="orc"))
    assert [type(e).__name__ for e in events] == ["CombatantWaited", "TurnEnded"]
    assert table.gd.phase == "initiative"
    events = table.do(cmd.RollInitiative(), faces=[1, 2, 3])
    assert of_type(events, InitiativeOrdered)[0].turn == 2
