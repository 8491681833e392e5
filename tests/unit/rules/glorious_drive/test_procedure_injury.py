"""GD-INJ-1..5 through the Encounter: checks after damage, who then acts, faint recovery."""

from __future__ import annotations

from typing import Any

import pytest

from domain.dice import DiceEntryError
from domain.encounter.awaited import DiceMode, RollAwaited
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import InjurySuffered, ReactionDeclared
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from tests.unit.encounter.table import Table, names, of_type, sheet


def hit_down_to(
    hp_after: int, dice: DiceMode = "hand", faint_rule: str = "example", **ace: Any
) -> Table:
    """Given: orc's attack (damage 70) is declared on ace, who will be left at `hp_after`; the
    table rolls its own dice, so a test names each face, the recovery die too (`then`)."""
    table = (
        Table()
        .open(dice=dice, faint_rule=faint_rule)
        .join("ace", "p1", "pc", sheet(0, 0, **ace) | {"hp": hp_after + 70})
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=9))
    )
    table.do(cmd.RollInitiative(), faces=[1, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    return table


def test_GD_INJ_1_EX_hp_minus_8_resistance_3_faints_on_a_4() -> None:
    table = hit_down_to(-8)
    events = table.do(cmd.TakeHit(combatant_id="ace"), faces=[4], then=[4])  # then its recovery
    (check,) = [r for r in of_type(events, RulingRecorded) if r.rule_ids == ("GD-INJ-1",)]
    assert check.outcome["injury"] == "faint"
    assert of_type(events, InjurySuffered)[0].injury == "faint"


def test_GD_INJ_negative_hp_alone_is_no_injury_and_the_character_acts_on() -> None:
    table = hit_down_to(-8)
    events = table.do(cmd.TakeHit(combatant_id="ace"), faces=[5])
    assert not of_type(events, InjurySuffered)
    assert table.c("ace").hp == -8
    assert table.gd.acting == "ace"


def test_GD_INJ_no_check_at_zero_hp() -> None:
    table = hit_down_to(0)
    events = table.do(cmd.TakeHit(combatant_id="ace"))
    assert "EncounterDiceRolled" not in names(events)


def test_GD_INJ_2_only_the_heaviest_injury_applies() -> None:
    table = hit_down_to(-22)
    events = table.do(cmd.TakeHit(combatant_id="ace"), faces=[1, 1])  # faint, then critical
    assert [e.injury for e in of_type(events, InjurySuffered)] == ["critical"]
    assert table.gd.acting is None  # the turn ended: ace is out of action
    assert table.gd.phase == "initiative"


def test_GD_INJ_1_an_assault_core_shuts_down_and_makes_no_other_check() -> None:
    table = hit_down_to(-30, body="assault_core")
    events = table.do(cmd.TakeHit(combatant_id="ace"), faces=[1])
    assert of_type(events, InjurySuffered)[0].injury == "shutdown"
    table.do(cmd.RollInitiative(), faces=[3])  # only orc is still able to roll
    assert table.gd.order == ("orc",)


def test_GD_INJ_1_a_fainted_character_cannot_react_and_is_hit() -> None:
    table = hit_down_to(-8)
    table.do(cmd.TakeHit(combatant_id="ace"), faces=[4], then=[4])  # its cleanup: stays fainted
    table.do(cmd.RollInitiative(), faces=[1, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    attack = cmd.DeclareAttack(combatant_id="orc", target="ace")
    events = table.do(attack, faces=[6, 90], then=[4])  # faint, critical; then its recovery
    assert of_type(events, ReactionDeclared)[0].reaction == "none_possible"
    assert table.c("ace").hp == -78


def test_GD_INJ_1_a_fainted_characters_cleanup_runs_by_itself_when_its_phase_comes() -> None:
    """Issue 19: given ace fainted by orc's attack, when orc's action ends (the hit taken),
    then ace's cleanup runs in the same decision: a ruling citing GD-MAIN-2 and GD-INJ-1
    says it advanced by itself, then the recovery die and its ruling."""
    table = hit_down_to(-8)
    events = table.do(cmd.TakeHit(combatant_id="ace"), faces=[4], then=[5])  # 5 + 3 − 8 = 0
    advanced = [r for r in of_type(events, RulingRecorded) if r.outcome.get("advanced")]
    assert [(r.rule_ids, r.outcome) for r in advanced] == [
        (("GD-MAIN-2", "GD-INJ-1"), {"advanced": "cleanup"})
    ]
    after = names(events)[names(events).index("MainActionEnded") :]
    assert after == [
        "MainActionEnded",
        "RulingRecorded",  # advanced: cleanup
        "EncounterDiceRolled",
        "RulingRecorded",  # GD-INJ-1 recovery
        "FaintRecovered",
        "CleanupCompleted",
    ]
    assert table.c("ace").injury == "none"
    assert (table.gd.acting, table.gd.step) == ("ace", "weapon_swap")


def test_GD_INJ_1_a_fainted_character_that_fails_recovery_ends_its_phase_by_itself() -> None:
    table = hit_down_to(-8)
    events = table.do(cmd.TakeHit(combatant_id="ace"), faces=[4], then=[4])
    assert names(events)[-3:] == ["CleanupCompleted", "MainActionEnded", "TurnEnded"]
    assert table.c("ace").injury == "faint"
    assert table.gd.phase == "initiative"


def test_GD_INJ_1_an_explicit_cleanup_for_a_fainted_character_is_refused_saying_why() -> None:
    """The step never waits for it any more: a client that still sends it is told so."""
    table = hit_down_to(-8)
    table.do(cmd.TakeHit(combatant_id="ace"), faces=[4], then=[4])
    table.do(cmd.RollInitiative(), faces=[1, 6])
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Cleanup(combatant_id="ace"), faces=[4])
    assert refused.value.rule_id == "GD-INJ-1"
    assert "runs by itself" in refused.value.detail


# Issue 35 §6: a command given faces needs exactly the faces of its own resolution; the step
# that then runs by itself (a fainted character's cleanup, GD-MAIN-2 with GD-INJ-1) uses the
# encounter's dice and never a face of the command before it.
DODGE_FACES = [100, 1, 4]  # GD-REACT-1 hit and evasion (ace fails to dodge), GD-INJ-1 faint


def test_GD_INJ_1_a_dodge_that_faints_its_defender_takes_only_its_own_faces() -> None:
    """Ace is hit to −8 and faints on a 4; orc's phase ends, ace's comes and its cleanup runs
    by itself: the GM's three faces were the Dodge's, the recovery die is the server's (it was
    refused 'one more die face is needed (a 1D6)')."""
    table = hit_down_to(-8, dice="server")
    events = table.do(cmd.Dodge(combatant_id="ace"), faces=DODGE_FACES)
    rolled = [(e.result.purpose, e.result.source) for e in of_type(events, EncounterDiceRolled)]
    assert rolled == [
        ("GD-REACT-1 hit orc", "hand"),
        ("GD-REACT-1 evasion", "hand"),
        ("GD-INJ-1 faint ace", "hand"),
        ("GD-INJ-1 faint ace", "server"),  # its recovery, at the cleanup that ran by itself
    ]


def test_GD_INJ_1a_the_same_dodge_and_faces_under_the_text_reading() -> None:
    """Under `faint_rule: text` ace does not faint (4 + 3 − 8 = −1 is not < −1), so no cleanup
    runs by itself: the same three faces are exactly what the Dodge needs (a fourth, given for
    a recovery the client could not know about, was refused 'entered but not needed')."""
    table = hit_down_to(-8, dice="server", faint_rule="text")
    events = table.do(cmd.Dodge(combatant_id="ace"), faces=DODGE_FACES)
    assert len(of_type(events, EncounterDiceRolled)) == 3
    assert table.c("ace").injury == "none"


def test_GD_INJ_1_with_hand_dice_the_recovery_die_is_asked_for_not_taken_from_the_dodge() -> None:
    table = hit_down_to(-8)
    with pytest.raises(DiceEntryError, match="1 die faces were entered but not needed"):
        table.do(cmd.Dodge(combatant_id="ace"), faces=[*DODGE_FACES, 6])
    waited = table.do(cmd.Dodge(combatant_id="ace"), faces=DODGE_FACES)
    [wait] = of_type(waited, RollAwaited)
    assert (wait.die.purpose, wait.die.for_member) == ("GD-INJ-1 faint ace", "p1")
    assert wait.pending.faces == tuple(DODGE_FACES)
