"""GD-MAIN-5 C/D/F and GD-MAIN-8 through the Encounter: lending, swapping, items, other actions."""

from __future__ import annotations

from typing import Any

import pytest

from domain.encounter.errors import NotPermitted
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import (
    DamageApplied,
    EquipmentSwapped,
    ItemLent,
    LoanDeclined,
    LoanOffered,
    ReactionDeclared,
)
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import GM, Table, names, of_type, player, sheet, weapon

MEDKIT = {"name": "medkit", "kind": "general", "rules": "heal 20"}
VEST = {"name": "vest", "kind": "armour"}
GOGGLES = {"name": "goggles", "kind": "general", "rules": "see in the dark"}
RADIO = {"name": "radio", "kind": "general"}
CHARM = {"name": "charm", "kind": "flavour", "rules": "a lucky charm"}
SMOKE = {"name": "smoke", "kind": "general", "timing": "reaction", "rules": "hides the user"}


def lending(bob: tuple[int, int] = (1, 0), bob_first: bool = False, **ace: Any) -> Table:
    """Given: ace (p1) holds items and acts (first, unless bob does); ally bob (p2); orc."""
    fields = {"reaction": 9, "items": [MEDKIT, VEST, GOGGLES, RADIO, CHARM, SMOKE]} | ace
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, **fields))
        .join("bob", "p2", "pc", sheet(*bob, reaction=20 if bob_first else 5))
        .join("orc", "gm", "enemy", sheet(5, 0, reaction=1))
    )
    table.do(cmd.RollInitiative(), faces=[6, 1, 1])
    if bob_first:
        table.do(cmd.Cleanup(combatant_id="bob"), by=player("p2"))
        table.do(cmd.ForgoAction(combatant_id="bob"), by=player("p2"))
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    return table


def refused(table: Table, command: cmd.Command, by: Any = None) -> RuleViolation:
    before = table.state
    with pytest.raises(RuleViolation) as refusal:
        table.do(command, by=by or player("p1"))
    assert table.state == before
    return refusal.value


def test_GD_MAIN_5_C_a_loan_awaits_the_borrowers_consent_then_spends_both_action_steps() -> None:
    table = lending()
    offered = table.do(
        cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"), by=player("p1")
    )
    assert names(offered) == ["LoanOffered"]
    awaited = {(a.command, a.combatant) for a in table.state.ruleset.legal_commands(table.gd)}
    assert ("AcceptLoan", "bob") in awaited
    assert ("DeclareAttack", "ace") not in awaited

    events = table.do(cmd.AcceptLoan(combatant_id="bob"), by=player("p2"))
    assert names(events) == ["RulingRecorded", "ItemLent", "MainActionEnded"]
    assert of_type(events, RulingRecorded)[0].rule_ids == ("GD-MAIN-5",)
    assert table.c("ace").item("medkit") is None
    assert table.c("bob").item("medkit") is not None
    assert "medkit" not in table.c("bob").equipped_items  # it arrives carried
    # bob's own action step this turn is spent: only ending it is left
    table.do(cmd.Cleanup(combatant_id="bob"), by=player("p2"))
    assert refused(
        table, cmd.DeclareAttack(combatant_id="bob", target="orc"), player("p2")
    ).rule_id == ("GD-TURN-1")
    table.do(cmd.ForgoAction(combatant_id="bob"), by=player("p2"))
    assert table.gd.acting == "orc"
    assert table.gd.actions_spent == ()


def test_GD_MAIN_5_C_the_gm_may_record_the_borrowers_consent() -> None:
    table = lending()
    table.do(cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"), by=player("p1"))
    events = table.do(cmd.AcceptLoan(combatant_id="bob"))
    assert "GM records" in str(of_type(events, RulingRecorded)[0].outcome["consent"])
    assert of_type(events, ItemLent)[0].borrower == "bob"


def test_GD_MAIN_5_C_the_lender_cannot_consent_for_the_borrower() -> None:
    table = lending()
    table.do(cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"), by=player("p1"))
    with pytest.raises(NotPermitted):
        table.do(cmd.AcceptLoan(combatant_id="bob"), by=player("p1"))


def test_GD_MAIN_5_C_a_declined_loan_leaves_the_lenders_action_step_open() -> None:
    table = lending()
    table.do(cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"), by=player("p1"))
    events = table.do(cmd.DeclineLoan(combatant_id="bob"), by=player("p2"))
    assert of_type(events, LoanDeclined)[0].item == "medkit"
    assert table.c("ace").item("medkit") is not None
    table.do(cmd.DeclareAttack(combatant_id="ace", target="orc"), by=player("p1"))
    assert table.gd.step == "reaction"


def test_GD_MAIN_5_C_only_general_items_may_be_lent() -> None:
    table = lending()
    refusal = refused(table, cmd.LendItem(combatant_id="ace", item="vest", borrower="bob"))
    assert refusal.rule_id == "GD-MAIN-5"
    assert "general items" in refusal.detail


def test_GD_MAIN_5_C_weapons_cannot_be_lent() -> None:
    table = lending()
    refusal = refused(table, cmd.LendItem(combatant_id="ace", item="rifle", borrower="bob"))
    assert refusal.rule_id == "GD-MAIN-5"


def test_GD_MAIN_5_C_the_borrower_must_be_in_an_adjacent_square() -> None:
    table = lending(bob=(2, 0))
    refusal = refused(table, cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"))
    assert refusal.rule_id == "GD-MAIN-5"
    assert "adjacent" in refusal.detail


def test_GD_MAIN_5_C_the_borrower_must_be_an_ally() -> None:
    table = lending()
    refusal = refused(table, cmd.LendItem(combatant_id="ace", item="medkit", borrower="orc"))
    assert refusal.rule_id == "GD-MAIN-5"


def test_GD_MAIN_5_C_a_borrower_who_already_acted_this_turn_has_no_step_to_spend() -> None:
    table = lending(bob_first=True)
    refusal = refused(table, cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"))
    assert refusal.rule_id == "GD-MAIN-5"
    assert "no action step left" in refusal.detail


def test_GD_MAIN_5_C_carried_items_and_equipment_are_swapped_as_the_action() -> None:
    table = lending(equipped_items=["goggles"], item_slots=1)
    events = table.do(
        cmd.SwapEquipment(combatant_id="ace", equip=("radio",), unequip=("goggles",)),
        by=player("p1"),
    )
    (swapped,) = of_type(events, EquipmentSwapped)
    assert swapped.equipped_items == ("radio",)
    assert table.c("ace").equipped_items == ("radio",)
    assert names(events)[-1] == "MainActionEnded"


def test_GD_MAIN_5_C_the_sub_weapon_may_be_swapped_with_a_carried_weapon() -> None:
    arms = [weapon(), weapon("blade", reach="melee", range=1), weapon("knife", reach="melee")]
    table = lending(weapons=arms, sub_weapon="blade")
    table.do(
        cmd.SwapEquipment(combatant_id="ace", equip=("knife",), unequip=("blade",)),
        by=player("p1"),
    )
    assert (table.c("ace").main_weapon, table.c("ace").sub_weapon) == ("rifle", "knife")


def test_GD_MAIN_5_C_the_main_weapon_is_never_swapped() -> None:
    table = lending()
    refusal = refused(table, cmd.SwapEquipment(combatant_id="ace", unequip=("rifle",)))
    assert refusal.rule_id == "GD-MAIN-5"
    assert "main weapon" in refusal.detail


def test_GD_MAIN_5_C_equipment_slots_limit_a_swap() -> None:
    table = lending(equipped_items=["goggles"], item_slots=1)
    refusal = refused(table, cmd.SwapEquipment(combatant_id="ace", equip=("radio",)))
    assert refusal.rule_id == "GD-MAIN-5"
    assert "slots" in refusal.detail


def test_GD_MAIN_5_D_an_equipped_item_is_used_and_its_effect_is_the_gms_ruling() -> None:
    table = lending(equipped_items=["goggles"])
    events = table.do(
        cmd.UseItem(combatant_id="ace", item="goggles", note="spots the sniper"), by=player("p1")
    )
    assert names(events) == ["RulingRecorded", "MainActionEnded"]
    ruling = of_type(events, RulingRecorded)[0]
    assert ruling.rule_ids == ("GD-MAIN-5",)
    assert ruling.outcome["effect"] == "spots the sniper"


def test_GD_MAIN_5_D_a_carried_item_works_only_if_it_is_a_flavour_item() -> None:
    table = lending()
    refusal = refused(table, cmd.UseItem(combatant_id="ace", item="goggles"))
    assert refusal.rule_id == "GD-MAIN-5"
    assert "flavour" in refusal.detail
    events = table.do(cmd.UseItem(combatant_id="ace", item="charm"), by=player("p1"))
    assert of_type(events, RulingRecorded)[0].outcome["effect"] == "a lucky charm"


def test_GD_MAIN_8_an_item_for_the_reaction_step_is_refused_in_the_action_step() -> None:
    table = lending(equipped_items=["smoke"])
    refusal = refused(table, cmd.UseItem(combatant_id="ace", item="smoke"))
    assert refusal.rule_id == "GD-MAIN-8"
    assert refusal.ja == "smoke を使うのは対抗判定ステップで、行動ステップではありません"


def attacked_holding(*equipped: str) -> Table:
    """Given: orc has attacked ace, who has `equipped` (smoke is for the reaction step)."""
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, items=[SMOKE, GOGGLES], equipped_items=equipped))
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=9))
    )
    table.do(cmd.RollInitiative(), faces=[1, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    return table


def test_GD_MAIN_8_an_item_for_the_reaction_step_is_the_defenders_reaction() -> None:
    table = attacked_holding("smoke", "goggles")
    events = table.do(cmd.UseItem(combatant_id="ace", item="smoke"), by=player("p1"))
    assert of_type(events, ReactionDeclared)[0].reaction == "item"
    assert of_type(events, RulingRecorded)[0].rule_ids == ("GD-MAIN-8", "GD-MAIN-5")
    assert of_type(events, DamageApplied)[0].damage == 70


def test_GD_MAIN_8_only_the_gm_may_rule_that_the_item_stops_the_hit() -> None:
    table = attacked_holding("smoke")
    stop = cmd.UseItem(combatant_id="ace", item="smoke", negates_hit=True)
    assert refused(table, stop).rule_id == "GD-MAIN-8"
    events = table.do(stop)
    assert not of_type(events, DamageApplied)
    assert table.c("ace").hp == 100


def test_GD_MAIN_8_an_action_step_item_is_refused_in_the_reaction_step() -> None:
    table = attacked_holding("smoke", "goggles")
    refusal = refused(table, cmd.UseItem(combatant_id="ace", item="goggles"))
    assert refusal.rule_id == "GD-MAIN-8"
    assert refusal.ja == "goggles を使うのは行動ステップで、対抗判定ステップではありません"


def test_GD_MAIN_5_F_GD_CHK_1_the_gm_rules_another_action_and_the_check_it_calls_for() -> None:
    table = lending()
    other = cmd.TakeOtherAction(
        combatant_id="ace", action="pry the door", check_stat="phys_atk", difficulty=150
    )
    events = table.do(other, faces=[50])  # 100 + 50 ≥ 150
    check, ruling = of_type(events, RulingRecorded)
    assert check.rule_ids == ("GD-MAIN-5", "GD-CHK-1")
    assert check.outcome["success"] is True
    assert ruling.outcome == {"doable_in_10s": True, "check_success": True}
    assert names(events)[-1] == "MainActionEnded"


def test_GD_CHK_1_a_96_succeeds_whatever_the_difficulty() -> None:
    table = lending()
    other = cmd.TakeOtherAction(
        combatant_id="ace", action="leap the gap", check_stat="evasion", difficulty=999
    )
    check, _ = of_type(table.do(other, faces=[96]), RulingRecorded)
    assert check.outcome["critical"] is True
    assert check.outcome["success"] is True


def test_GD_MAIN_5_F_without_a_check_the_action_is_just_ruled() -> None:
    table = lending()
    events = table.do(cmd.TakeOtherAction(combatant_id="ace", action="shout a warning"))
    assert names(events) == ["RulingRecorded", "MainActionEnded"]
    assert of_type(events, RulingRecorded)[0].outcome["check_success"] is None


def test_GD_MAIN_5_F_only_the_gm_judges_an_action_doable_in_10_seconds() -> None:
    table = lending()
    with pytest.raises(NotPermitted):
        table.do(cmd.TakeOtherAction(combatant_id="ace", action="hack"), by=player("p1"))


def test_GD_CHK_1_a_check_needs_both_stat_and_difficulty() -> None:
    table = lending()
    half = cmd.TakeOtherAction(combatant_id="ace", action="climb", check_stat="move")
    assert refused(table, half, GM).rule_id == "GD-CHK-1"


def test_GD_MAIN_5_C_a_loan_offer_is_a_stored_fact() -> None:
    table = lending()
    (offer,) = table.do(
        cmd.LendItem(combatant_id="ace", item="medkit", borrower="bob"), by=player("p1")
    )
    assert isinstance(offer, LoanOffered)
    assert table.gd.pending_loan is not None
