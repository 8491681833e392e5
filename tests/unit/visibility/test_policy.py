"""The redaction policy alone (docs/visibility.md): given a hidden grunt, what a player sees."""

from __future__ import annotations

from dataclasses import dataclass

from domain.rules.records import CommandRefusedAfterDice
from domain.visibility.encounter import Blocks, Policy, Reader
from projections.render import render
from tests.unit.encounter.table import AT


@dataclass(frozen=True)
class Joined:
    combatant_id: str
    name: str
    controller: str
    hidden: bool


FIGHT = [Joined("ace", "エース", "aoi", False), Joined("grunt", "グラント", "gm", True)]
PLAYER = Policy.for_reader(Reader("player", "aoi"), FIGHT)


def test_the_gm_and_the_controller_see_everything() -> None:
    assert Policy.for_reader(Reader("gm", "gm"), FIGHT).sees_all
    assert Policy.for_reader(Reader("player", "gm"), FIGHT).sees_all  # controls the grunt
    assert PLAYER.hidden == {"grunt"}


def test_a_fact_about_the_hidden_combatant_keeps_what_the_table_sees() -> None:
    damage = {"combatant": "grunt", "damage": 18, "hp": 7901}
    assert PLAYER.record(damage) == {"combatant": "grunt", "damage": None, "hp": None}
    injury = {"combatant": "grunt", "injury": "faint"}
    assert PLAYER.record(injury) == injury


def test_its_join_shows_no_sheet() -> None:
    joined = {"combatant_id": "grunt", "name": "グラント", "hidden": True, "sheet": {"hp": 7919}}
    assert PLAYER.record(joined) == joined | {"sheet": None}


def test_a_value_keyed_by_the_hidden_combatant_is_withheld_and_the_others_stay() -> None:
    ruling = {"inputs": {"reaction": {"ace": 20, "grunt": 1811}}}
    assert PLAYER.record(ruling) == {"inputs": {"reaction": {"ace": 20, "grunt": None}}}


def test_a_ruling_that_names_nobody_is_judged_by_its_block() -> None:
    ruling = {"inputs": {"attack": 120, "defence": 1303}, "summary_en": "defence 1303: HP 7901"}
    assert PLAYER.record(ruling) == ruling  # alone it says nothing about the grunt
    hidden = PLAYER.record(ruling, about_hidden=True)
    assert hidden == {"inputs": {"attack": None, "defence": None}, "summary_en": "defence …: HP …"}


def test_a_visible_combatants_own_values_stay_in_a_block_about_the_hidden_one() -> None:
    check = {"inputs": {"combatant": "ace", "target": "grunt"}, "outcome": {"total": 17}}
    assert PLAYER.record(check, about_hidden=True) == check


def test_a_text_naming_the_hidden_combatant_keeps_rule_ids_and_dice() -> None:
    line = "GD-DMG-1: グラント takes 18 (1D100 vs 1601), HP now 7901"
    assert PLAYER.text(line) == "GD-DMG-1: グラント takes … (1D100 vs …), HP now …"


def test_blocks_mark_every_event_of_a_command_that_names_the_hidden_combatant() -> None:
    blocks = Blocks(Policy.of(c for c in FIGHT if c.hidden))
    blocks.feed(
        1, "CommandIssued", {"command_type": "TakeHit", "payload": {"combatant_id": "grunt"}}
    )
    blocks.feed(2, "RulingRecorded", {"inputs": {"defence": 1303}})
    blocks.feed(3, "CommandIssued", {"command_type": "Cleanup", "payload": {"combatant_id": "ace"}})
    assert [blocks.about_hidden(v, PLAYER) for v in (1, 2, 3)] == [True, True, False]


def test_a_shown_key_holding_the_hidden_combatants_number_is_withheld() -> None:
    roll = {"combatant_id": "grunt", "reaction": 1823, "die": 4}
    assert PLAYER.record(roll) == {"combatant_id": "grunt", "reaction": None, "die": None}
    declared = {"combatant": "grunt", "reaction": "dodge"}
    assert PLAYER.record(declared) == declared


def test_a_refusal_after_dice_in_a_block_about_the_hidden_one_shows_its_rule_and_dice() -> None:
    """Issue 33 §1: it holds no value of anyone's (the dice are the table's, before it), so a
    player reads it whole; its line keeps the rule ID and has no number to withhold."""
    refused = {"command_type": "TakeHit", "rule_id": "GD-DMG-1", "roll_seqs": [12, 13]}
    assert PLAYER.record(refused, about_hidden=True) == refused
    line = render(
        CommandRefusedAfterDice(
            command_type="TakeHit", rule_id="GD-DMG-1", roll_seqs=(12, 13), at=AT, by="gm"
        )
    )
    assert [PLAYER.text(text, about_hidden=True) for text in line] == list(line)
    assert "GD-DMG-1" in line[0]
