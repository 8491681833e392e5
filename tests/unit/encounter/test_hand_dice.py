"""Hand dice asked one at a time (issue 19): given an encounter opened with the table's dice,
when a command needs a die, then it waits (RollAwaited) naming the die, and the right member
enters it (EnterDie) until the command resolves, exactly as if the faces had been given at once.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.dice import commitment
from domain.encounter import aggregate
from domain.encounter.awaited import AwaitedRollWithdrawn, RollAwaited
from domain.encounter.errors import NotPermitted, WrongState
from domain.encounter.record import CommandIssued, issue
from domain.encounter.replay import replay
from domain.encounter.snapshot import SNAPSHOTS
from domain.events import DomainEvent
from domain.rules.records import EncounterDiceRolled
from domain.rules.ruleset import CommandContext
from tests.unit.encounter.log import FIGHT, SEED
from tests.unit.encounter.table import AT, sheet

CORE = {"phys_atk": 150, "phys_def": 100, "evasion": 60, "ranged_hit": 70, "hp": 400}
GRUNT = {"phys_atk": 90, "phys_def": 30, "evasion": 40, "hp": 80}


class HandLog:
    """An encounter stream through `issue` (as the service runs it), opened with `dice`."""

    def __init__(
        self,
        dice: str = "hand",
        ruleset_id: str = "glorious_drive",
        battle_map: dict[str, Any] | None = None,
    ) -> None:
        self.events: list[DomainEvent] = []
        opening = {"ruleset_id": ruleset_id, "commitment": commitment(SEED), "dice": dice}
        opening["battle_map"] = battle_map or {}
        self.do("OpenEncounter", opening)

    @property
    def state(self) -> aggregate.Encounter:
        return aggregate.KIND.rebuild(FIGHT, self.events)

    def do(
        self,
        command: str,
        payload: dict[str, Any],
        *,
        by: str = "gm",
        faces: list[int] | None = None,
        hand: bool | None = None,
    ) -> list[DomainEvent]:
        ctx = CommandContext(at=AT, by=by, is_gm=by == "gm")
        new = issue(
            self.state, command, payload, ctx, server_seed=SEED, hand_faces=faces, hand=hand
        )
        self.events += new
        return new

    def join(self, combatant: str, controller: str, side: str, sheet_: dict[str, Any]) -> None:
        payload = {"combatant_id": combatant, "name": combatant, "side": side}
        self.do("JoinCombatant", payload | {"controller": controller, "sheet": sheet_})

    def enter(self, face: int, *, by: str = "gm") -> list[DomainEvent]:
        return self.do("EnterDie", {"faces": [face]}, by=by)

    def awaited(self) -> str | None:
        awaiting = self.state.awaiting
        return None if awaiting is None else awaiting.die.text_en


def ace_against_a_grunt(dice: str = "hand", grunt_by: str = "gm") -> HandLog:
    """Ace (p1's Assault Core, attack 170) against a grunt (defence 30, HP 80), ace first."""
    log = HandLog(dice)
    log.join("ace", "p1", "pc", sheet(1, 1, body="assault_core", stats=CORE | {"reaction": 10}))
    log.join("grunt", grunt_by, "enemy", sheet(3, 1, reaction=5, stats=GRUNT))
    log.do("RollInitiative", {}, faces=[1, 1])  # faces up front still work in hand mode
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "grunt"}, by="p1")
    return log


def decided(events: list[DomainEvent]) -> list[dict[str, Any]]:
    """What a block decided, without the command record, the wait, who or when."""
    skip = (CommandIssued, RollAwaited)
    return [
        {"type": e.event_type} | e.model_dump(mode="json", exclude={"at", "by"})
        for e in events
        if not isinstance(e, skip)
    ]


def test_GD_a_whole_attack_asks_for_hit_dodge_faint_and_critical_dice_one_at_a_time() -> None:
    log = ace_against_a_grunt()
    waited = log.do("Dodge", {"combatant_id": "grunt"})
    assert [type(e) for e in waited] == [CommandIssued, RollAwaited]
    asked = [log.awaited()]
    for face in (50, 10, 1):
        assert isinstance(log.enter(face)[-1], RollAwaited)
        asked.append(log.awaited())
    resolved = log.enter(1)
    assert asked == [
        "1D100 hit for ace, GD-REACT-1",  # the attacker's die
        "1D100 evasion for grunt, GD-REACT-1",
        "1D6 faint for grunt, GD-INJ-1",
        "1D100 critical for grunt, GD-INJ-2",
    ]
    assert log.state.awaiting is None
    grunt = log.state.rules.combatants["grunt"]  # type: ignore[union-attr]
    assert (grunt.hp, grunt.injury) == (-60, "critical")
    rolls = [e.result for e in resolved if isinstance(e, EncounterDiceRolled)]
    assert [r.total for r in rolls] == [50, 10, 1, 1]
    assert {r.source for r in rolls} == {"hand"}


def test_the_faces_entered_one_at_a_time_decide_what_the_same_faces_given_at_once_decide() -> None:
    at_once = ace_against_a_grunt("server")
    given = at_once.do("Dodge", {"combatant_id": "grunt"}, faces=[50, 10, 1, 1])
    asked = ace_against_a_grunt()
    asked.do("Dodge", {"combatant_id": "grunt"})
    for face in (50, 10, 1):
        asked.enter(face)
    resolved = asked.enter(1)
    assert decided(resolved) == decided(given)
    assert asked.state.rules == at_once.state.rules


def test_the_die_is_entered_by_the_member_it_is_for_or_the_gm() -> None:
    log = ace_against_a_grunt()
    log.do("Dodge", {"combatant_id": "grunt"})
    with pytest.raises(NotPermitted, match="entered by p1"):
        log.enter(50, by="p2")  # the hit die is the attacker's: p1's
    log.enter(50, by="p1")
    with pytest.raises(NotPermitted, match="entered by gm"):
        log.enter(10, by="p1")  # the grunt's evasion die is the GM's
    log2 = HandLog()
    log2.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log2.join("grunt", "gm", "enemy", sheet(3, 1, reaction=5))
    log2.do("RollInitiative", {})
    assert log2.awaited() == "1D6 roll for ace, GD-INIT-1"
    log2.enter(3, by="p1")  # ace's initiative die is p1's
    assert log2.awaited() == "1D6 roll for grunt, GD-INIT-1"


def test_while_a_die_is_awaited_other_commands_are_refused_and_the_procedure_awaits_it() -> None:
    log = ace_against_a_grunt()
    log.do("Dodge", {"combatant_id": "grunt"})
    point = aggregate.procedure(log.state)
    assert [(a.command, a.issuer, a.combatant) for a in point.awaiting] == [
        ("EnterDie", "controller", "ace"),
        ("WithdrawAwaitedRoll", "gm", None),
    ]
    with pytest.raises(WrongState, match="awaits 1D100 hit for ace"):
        log.do("TakeHit", {"combatant_id": "grunt"})


def test_the_gm_withdraws_a_waiting_command_and_nothing_it_would_have_done_happens() -> None:
    log = ace_against_a_grunt()
    before = log.state
    log.do("Dodge", {"combatant_id": "grunt"})
    log.enter(50)
    with pytest.raises(NotPermitted):
        log.do("WithdrawAwaitedRoll", {}, by="p1")
    withdrawn = log.do("WithdrawAwaitedRoll", {"reason": "the grunt takes the hit instead"})
    assert isinstance(withdrawn[-1], AwaitedRollWithdrawn)
    assert log.state.awaiting is None
    assert log.state.rules == before.rules
    assert log.state.roll_count == before.roll_count
    log.do("TakeHit", {"combatant_id": "grunt"}, faces=[1, 1])
    assert log.state.rules.combatants["grunt"].injury == "critical"  # type: ignore[union-attr]


def test_entering_a_die_nobody_awaits_or_one_face_too_many_is_refused() -> None:
    log = ace_against_a_grunt()
    with pytest.raises(WrongState, match="no die is awaited"):
        log.enter(3)
    log.do("Dodge", {"combatant_id": "grunt"})
    with pytest.raises(ValueError, match="entered but not needed"):
        log.do("EnterDie", {"faces": [50, 10, 1, 1, 6]})
    assert log.awaited() == "1D100 hit for ace, GD-REACT-1"


def test_per_roll_each_command_chooses_server_or_hand_dice() -> None:
    log = HandLog("per_roll")
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("grunt", "gm", "enemy", sheet(3, 1, reaction=5))
    log.do("RollInitiative", {}, hand=True)
    assert log.awaited() == "1D6 roll for ace, GD-INIT-1"
    log.do("WithdrawAwaitedRoll", {})
    rolled = log.do("RollInitiative", {})  # server dice by default
    assert {e.result.source for e in rolled if isinstance(e, EncounterDiceRolled)} == {"server"}
    with pytest.raises(WrongState, match="per_roll"):
        HandLog("server").do("RollInitiative", {}, hand=True)


def test_a_player_may_give_faces_up_front_only_with_hand_dice() -> None:
    log = ace_against_a_grunt("server", grunt_by="p2")
    with pytest.raises(NotPermitted, match="only the GM"):
        log.do("Dodge", {"combatant_id": "grunt"}, by="p2", faces=[50, 10, 1, 1])
    log = ace_against_a_grunt("hand", grunt_by="p2")
    log.do("Dodge", {"combatant_id": "grunt"}, by="p2")
    log.enter(50, by="p1")  # the attacker's hit die is p1's (issue 33 §3)
    log.do("EnterDie", {"faces": [10, 1]}, by="p2")  # evasion and faint: the grunt's own
    assert log.awaited() == "1D100 critical for grunt, GD-INJ-2"
    assert log.state.awaiting is not None
    assert log.state.awaiting.die.for_member == "p2"
    log.enter(1, by="p2")
    assert log.state.rules.combatants["grunt"].injury == "critical"  # type: ignore[union-attr]


def test_a_players_faces_go_only_to_her_own_dice() -> None:
    """Issue 33 §3: p2's Dodge may not carry the attacker's hit die (p1's), nor her EnterDie
    run on into another member's die; a refused face changes nothing."""
    log = ace_against_a_grunt("hand", grunt_by="p2")
    with pytest.raises(NotPermitted, match=r"1D100 hit for ace, GD-REACT-1, which p1"):
        log.do("Dodge", {"combatant_id": "grunt"}, by="p2", faces=[50, 10, 1])
    log.do("Dodge", {"combatant_id": "grunt"}, by="p2")
    with pytest.raises(NotPermitted, match=r"face 2 .* evasion for grunt"):
        log.do("EnterDie", {"faces": [50, 10]}, by="p1")
    entered = log.enter(50, by="p1")
    assert log.state.awaiting is not None
    assert log.state.awaiting.pending.entered_by == ("p1",)
    assert isinstance(entered[-1], RollAwaited)
    resolved = log.do("EnterDie", {"faces": [10, 1, 1]}, by="p2")
    rolled = [e for e in resolved if isinstance(e, EncounterDiceRolled)]
    assert [(e.result.total, e.entered_by, e.by) for e in rolled] == [
        (50, "p1", "p2"),  # entered by the attacker's player; the command was p2's
        (10, "p2", "p2"),
        (1, "p2", "p2"),
        (1, "p2", "p2"),
    ]


def test_WZ_initiative_asks_for_each_side_die() -> None:
    log = HandLog(ruleset_id="wizardry_round")
    wz = {"ac": 5, "endurance": 10, "weapons": ["sword"]}
    log.join("fighter", "p1", "pc", wz | {"ini": 15, "strategy": 2})
    log.join("goblin", "gm", "enemy", wz | {"ini": 11})
    log.do("ResolveSurprise", {"note": "no surprise"})
    log.do("EndPhase", {})
    for cid, by in (("fighter", "p1"), ("goblin", "gm")):
        declared = {"combatant_id": cid, "ini": 10, "form": "b", "sub": "combat move"}
        log.do("Declare", declared | {"main": "attack"}, by=by)
    log.do("EndPhase", {})
    log.do("RollInitiative", {"representative": "fighter"})
    assert log.awaited() == "1D10 PCs' representative, WZ-7"
    log.enter(7)
    assert log.awaited() == "1D10 GM, WZ-7"
    resolved = log.enter(2)
    assert log.state.awaiting is None
    assert [e.result.total for e in resolved if isinstance(e, EncounterDiceRolled)] == [7, 2]


def test_AK_the_first_move_roll_asks_each_unit_for_its_die() -> None:
    log = HandLog(ruleset_id="armor_knights", battle_map={"width": 8, "height": 3})
    knight = {
        "armor": {"physical": 10, "beam": 8},
        "m_move": 2,
        "f_move": 3,
        "active_points": 3,
        "response_points": 2,
        "actions": ["evade"],
        "weapons": [{"name": "rifle", "range": "far+3"}],
    }
    log.join("red", "p1", "red", knight | {"cell": {"x": 0, "y": 0}})
    log.join("blue", "p2", "blue", knight | {"cell": {"x": 3, "y": 0}})
    log.do("RollFirstMove", {})
    assert log.awaited() == "1D6 roll for blue, AK-TURN-2"
    with pytest.raises(NotPermitted):
        log.enter(2, by="p1")
    log.enter(2, by="p2")
    assert log.awaited() == "1D6 roll for red, AK-TURN-2"
    log.enter(5, by="p1")
    assert log.state.rules.order == ("red", "blue")  # type: ignore[union-attr]


def test_replay_time_travel_audit_and_snapshots_treat_an_awaited_die_like_any_other() -> None:
    log = ace_against_a_grunt()
    log.do("Dodge", {"combatant_id": "grunt"})
    log.enter(50)
    waiting_at = len(log.events)
    for face in (10, 1, 1):
        log.enter(face)
    # Time travel: the encounter as it stood while the evasion die was awaited.
    then = aggregate.KIND.rebuild(FIGHT, log.events[:waiting_at])
    assert then.awaiting is not None
    assert then.awaiting.die.purpose == "GD-REACT-1 evasion"
    assert aggregate.legal_commands(then)[0].command == "EnterDie"
    # A snapshot taken while waiting reads back the same.
    assert SNAPSHOTS.load(SNAPSHOTS.dump(then)) == then
    # Replay: the waits are kept, the entry that resolved re-runs with the entered faces.
    result = replay(FIGHT, log.events)
    assert result.complete
    assert result.divergence is None
    assert result.differences == {}
    assert result.state is not None
    assert result.state.rules == log.state.rules
    # Under another reading the same entered faces decide again, and the replay says so.
    other = replay(FIGHT, log.events, options={"faint_rule": "text"})
    assert other.complete
    # Audit: every recorded die is counted once, the waits record none.
    log.do("RevealSeed", {"server_seed": SEED.hex()})
    rolls = aggregate.rolls_of(log.events)
    checks = aggregate.audit(log.state, rolls)
    assert len(checks) == log.state.roll_count == 6
    assert [r.source for r in rolls[-4:]] == ["hand"] * 4


def test_GD_INJ_1_a_fainted_characters_cleanup_runs_by_itself_and_awaits_its_recovery_die() -> None:
    """Issue 19: with hand dice, the cleanup that runs by itself (GD-INJ-1: the fainted
    character's phase holds nothing else) asks for its recovery die like any other die: the
    hit taken waits for it, and resolves with the cleanup once it is entered."""
    log = HandLog()
    log.join("ace", "p1", "pc", sheet(0, 0, hp=62))  # orc's 70 damage leaves −8
    log.join("orc", "gm", "enemy", sheet(3, 0, reaction=9))
    log.do("RollInitiative", {}, faces=[1, 6])
    log.do("Cleanup", {"combatant_id": "orc"})
    log.do("DeclareAttack", {"combatant_id": "orc", "target": "ace"})
    log.do("TakeHit", {"combatant_id": "ace"}, by="p1")
    assert log.awaited() == "1D6 faint for ace, GD-INJ-1"  # 4 + 3 − 8 = −1: faints
    waited = log.enter(4, by="p1")
    assert isinstance(waited[-1], RollAwaited)
    assert waited[-1].die.rule_id == "GD-INJ-1"  # its recovery, at its cleanup by itself
    assert waited[-1].die.for_member == "p1"
    resolved = log.enter(5, by="p1")  # 5 + 3 − 8 = 0 > −1: comes round
    rulings = [e for e in resolved if e.event_type == "RulingRecorded"]
    assert {"advanced": "cleanup"} in [r.outcome for r in rulings]  # type: ignore[attr-defined]
    assert log.state.awaiting is None
    ace = log.state.rules.combatants["ace"]  # type: ignore[union-attr]
    assert ace.injury == "none"
    assert log.state.rules.step == "weapon_swap"  # type: ignore[union-attr]
