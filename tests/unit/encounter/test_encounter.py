"""The Encounter aggregate, whatever the ruleset: opening, joining, turn order, issuers, dice."""

from __future__ import annotations

import pytest

from domain.dice import DiceEntryError, commitment
from domain.encounter import aggregate
from domain.encounter.commands import JoinCombatant, OpenEncounter, RevealSeed
from domain.encounter.errors import NotPermitted, WrongState
from domain.encounter.events import CombatantJoined, EncounterOpened, EncounterSeedRevealed
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from tests.unit.encounter.table import ENCOUNTER, GM, SEED, Table, of_type, player, sheet


def two_sides() -> Table:
    return (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, body="assault_core", reaction=8))
        .join("orc", "gm", "enemy", sheet(3, 0))
    )


def test_when_the_gm_opens_an_encounter_the_options_in_force_and_commitment_are_recorded() -> None:
    table = Table()
    (opened,) = table.do(
        OpenEncounter(
            ruleset_id="glorious_drive",
            options={"faint_rule": "text"},
            commitment=commitment(SEED),
        )
    )
    assert isinstance(opened, EncounterOpened)
    assert opened.ruleset_version == "1"
    assert opened.options["faint_rule"] == "text"
    assert opened.options["piloting_rounding"] == "floor"  # defaults filled in
    assert opened.commitment == commitment(SEED)
    assert table.state.opened


def test_a_player_cannot_open_an_encounter() -> None:
    with pytest.raises(NotPermitted):
        aggregate.decide(
            aggregate.KIND.initial(ENCOUNTER),
            OpenEncounter(ruleset_id="glorious_drive", commitment=commitment(SEED)),
            player("p1"),
        )


def test_an_unknown_ruleset_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(WrongState, match="glorious_drive"):
        Table().do(OpenEncounter(ruleset_id="nope", commitment=commitment(SEED)))


def test_opening_twice_is_refused() -> None:
    with pytest.raises(WrongState, match="open already"):
        Table().open().open()


def test_a_joining_combatant_is_recorded_with_its_normalised_sheet() -> None:
    table = Table().open()
    (joined,) = table.do(
        JoinCombatant(
            combatant_id="ace",
            name="Ace",
            side="pc",
            controller="p1",
            sheet=sheet(1, 2, body="assault_core"),
        )
    )
    assert isinstance(joined, CombatantJoined)
    assert joined.sheet["body"] == "assault_core"
    assert joined.sheet["weapons"][0]["cut"] is None
    assert table.c("ace").position.x == 1
    assert table.c("ace").hp == 100


def test_a_combatant_cannot_join_twice() -> None:
    with pytest.raises(WrongState, match="joined already"):
        two_sides().join("ace", "p1", "pc", sheet(0, 0))


def test_a_command_out_of_turn_cites_the_procedure_rule_and_changes_nothing() -> None:
    table = two_sides()
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        aggregate.decide(before, cmd.Cleanup(combatant_id="ace"), player("p1"), server_seed=SEED)
    assert refused.value.rule_id == "GD-TURN-1"
    assert "RollInitiative" in refused.value.detail
    assert table.state == before
    assert table.state.version == 3


def test_a_player_cannot_act_for_a_combatant_they_do_not_control() -> None:
    table = two_sides()
    table.do(cmd.RollInitiative(), faces=[3, 3])  # ace 11, orc 8
    with pytest.raises(NotPermitted, match="p2"):
        table.do(cmd.Cleanup(combatant_id="ace"), by=player("p2"))


def test_a_player_cannot_issue_a_gm_command() -> None:
    with pytest.raises(NotPermitted, match="only the GM"):
        two_sides().do(cmd.RollInitiative(), by=player("p1"), faces=[1, 1])


def test_only_the_gm_enters_dice_by_hand() -> None:
    table = two_sides()
    table.do(cmd.RollInitiative(), faces=[1, 6])  # ace 9, orc 11
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    with pytest.raises(NotPermitted, match="by hand"):
        table.do(cmd.Dodge(combatant_id="ace"), by=player("p1"), faces=[1, 1])
    table.do(cmd.Dodge(combatant_id="ace"), by=player("p1"))  # server dice: fine


def test_every_die_is_recorded_before_the_ruling_that_cites_it() -> None:
    table = two_sides()
    events = table.do(cmd.RollInitiative())
    dice = of_type(events, EncounterDiceRolled)
    (ruling,) = of_type(events, RulingRecorded)
    assert [d.result.roll_seq for d in dice] == [0, 1]
    assert ruling.roll_seqs == (0, 1)
    assert events.index(ruling) > max(events.index(d) for d in dice)
    assert all(d.result.source == "server" for d in dice)


def test_too_few_or_too_many_hand_entered_faces_are_refused() -> None:
    with pytest.raises(DiceEntryError, match="one more die face"):
        two_sides().do(cmd.RollInitiative(), faces=[3])
    with pytest.raises(DiceEntryError, match="not needed"):
        two_sides().do(cmd.RollInitiative(), faces=[3, 2, 1])


def test_a_server_seed_that_does_not_match_the_commitment_is_refused() -> None:
    table = two_sides()
    with pytest.raises(WrongState, match="commitment"):
        aggregate.decide(table.state, cmd.RollInitiative(), GM, server_seed=bytes(32))


def test_after_the_reveal_every_server_die_recomputes() -> None:
    table = two_sides()
    table.do(cmd.RollInitiative())
    (revealed,) = table.do(RevealSeed(server_seed=SEED.hex()))
    assert isinstance(revealed, EncounterSeedRevealed)
    checks = aggregate.audit(table.state, aggregate.rolls_of(table.events))
    assert [c.verified for c in checks] == [True, True]
    assert table.do(RevealSeed(server_seed=SEED.hex())) == []


def test_a_wrong_seed_cannot_be_revealed() -> None:
    with pytest.raises(WrongState, match="commitment"):
        two_sides().do(RevealSeed(server_seed="00" * 32))


def test_the_procedure_names_turn_phase_step_and_what_is_awaited() -> None:
    table = two_sides()
    table.do(cmd.RollInitiative(), faces=[3, 3])
    point = aggregate.procedure(table.state)
    assert (point.turn, point.phase, point.step, point.acting) == (
        1,
        "main_action",
        "cleanup",
        "ace",
    )
    awaited = {(a.command, a.issuer, a.combatant) for a in point.awaiting}
    assert ("Cleanup", "controller", "ace") in awaited
    assert ("Delay", "controller", "ace") in awaited
    assert ("EndCombat", "gm", None) in awaited


def test_after_a_mid_fight_reveal_server_dice_are_refused_and_hand_dice_still_roll() -> None:
    table = two_sides()
    table.do(RevealSeed(server_seed=SEED.hex()))
    with pytest.raises(DiceEntryError, match="revealed"):
        table.do(cmd.RollInitiative())
    table.do(cmd.RollInitiative(), faces=[3, 3])
    assert table.gd.order == ("ace", "orc")


def test_a_command_is_read_by_name_from_the_encounter_or_its_ruleset() -> None:
    table = two_sides()
    dodge = aggregate.parse_command(table.state, "Dodge", {"combatant_id": "ace"})
    assert dodge == cmd.Dodge(combatant_id="ace")
    assert isinstance(
        aggregate.parse_command(table.state, "RevealSeed", {"server_seed": "ab" * 32}), RevealSeed
    )
    with pytest.raises(WrongState, match="unknown command"):
        aggregate.parse_command(table.state, "Teleport", {})
