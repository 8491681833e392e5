"""A scripted WZ fight over four rounds: a fighter and a mage against a goblin and an ogre.

The mage tires fast (endurance 3, Fatigue 2: k = 1) and reaches the first fatigue step in
round 2 and the second in round 3; the fighter (k = 2) reaches the first in round 3. In
round 1 the fighter and the goblin share the inning at INI 14 (the goblin's 11 + 3), and the
goblin's paralysing blow lands mid-inning: the fighter still acts in that inning, and the
paralysis takes effect at its end. The whole log is stored as JSON, decoded through the
registry and replayed to the identical state.
"""

from __future__ import annotations

import json

from domain.catalog import registry
from domain.encounter import aggregate, snapshot
from domain.encounter.commands import RevealSeed
from domain.events import DomainEvent
from domain.rules.records import EncounterEnded
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from tests.unit.encounter.table import ENCOUNTER, SEED, of_type
from tests.unit.rules.wizardry_round.table import P1, P2, WzTable, sheet


def line_up() -> WzTable:
    table = (
        WzTable()
        .open()
        .join("fighter", "p1", "pc", sheet(15, endurance=4, fatigue=2, strategy=2))
        .join("mage", "p2", "pc", sheet(13, endurance=3, fatigue=2, tactics=1))
        .join("goblin", "gm", "enemy", sheet(11))
        .join("ogre", "gm", "enemy", sheet(8, weapons=["club"]))
    )
    table.do(cmd.ResolveSurprise(note="the ogre heard us coming: no surprise"))
    return table


def close_round(t: WzTable) -> None:
    t.do(cmd.EndPhase())  # recovery
    t.do(cmd.EndPhase())  # end: the next round opens


def round_1(t: WzTable) -> None:
    t.do(cmd.EndPhase())
    t.declare("fighter", 14)
    t.declare("mage", 13, form="c", sub=None, main=None, full="cast Katino")
    t.declare("goblin", 11)
    t.declare("ogre", 8)
    t.do(cmd.EndPhase())
    t.do(cmd.RollInitiative(representative="fighter"), faces=[4, 7])  # enemies' INI +3
    assert [(i.ini, i.members) for i in t.wz.innings] == [
        (14, ("fighter", "goblin")),
        (13, ("mage",)),
        (11, ("ogre",)),
    ]
    t.do(cmd.RollCheck(combatant_id="goblin", expression="1D20+2"), faces=[15])
    t.do(cmd.RuleCheck(success=True, outcome="the fighter is hit and paralysed"))
    t.do(cmd.InflictStatus(target="fighter", status="paralysis", incapacitating=True))
    assert t.wc("fighter").able  # WZ-8: not before the inning's end
    t.do(cmd.Act(combatant_id="goblin"))
    assert t.wz.inning is not None
    assert t.wz.inning.ini == 14
    t.do(cmd.RollCheck(combatant_id="fighter", expression="1D20+4"), faces=[12])
    t.do(cmd.RuleCheck(success=True, outcome="goblin takes the blow"))
    t.do(cmd.Act(combatant_id="fighter", note="strikes the goblin"), by=P1)
    assert not t.wc("fighter").able
    t.do(cmd.Act(combatant_id="mage"), by=P2)
    t.do(cmd.DropDeclaration(combatant_id="ogre", fallback="defensive_stance"))
    assert t.wz.phase == "recovery"
    t.do(cmd.RollCheck(combatant_id="fighter", expression="1D20"), faces=[3])
    t.do(cmd.RuleCheck(success=False, outcome="still paralysed"))
    close_round(t)


def round_2(t: WzTable) -> None:
    assert t.wc("mage").die_penalty == 2
    assert t.wc("mage").ac == 7
    t.do(cmd.EndPhase())
    t.declare("mage", 13)
    t.declare("goblin", 11)
    t.declare("ogre", 8)
    assert t.wz.phase == "strategy"  # the paralysed fighter declares nothing
    t.do(cmd.EndPhase())
    t.do(cmd.RollInitiative(representative="mage"), faces=[6, 6])
    t.do(cmd.RollCheck(combatant_id="mage", expression="1D20+3"), faces=[10])
    assert t.wz.pending_check is not None
    assert t.wz.pending_check.total == 15
    t.do(cmd.RuleCheck(success=True, outcome="goblin falls asleep"))
    t.do(cmd.InflictStatus(target="goblin", status="sleep", incapacitating=True))
    t.do(cmd.Act(combatant_id="mage"), by=P2)
    assert [i.ini for i in t.wz.innings[t.wz.inning_index :]] == [8]  # the goblin is passed
    t.do(cmd.Act(combatant_id="ogre"))
    t.do(cmd.RollCheck(combatant_id="fighter", expression="1D20"), faces=[18])
    t.do(cmd.RuleCheck(success=True, outcome="shakes off the paralysis"))
    t.do(cmd.RemoveStatus(target="fighter", status="paralysis"))
    close_round(t)


def round_3(t: WzTable) -> None:
    assert (t.wc("mage").die_penalty, t.wc("mage").ac_penalty) == (4, 4)  # second step
    assert (t.wc("fighter").die_penalty, t.wc("fighter").ac_penalty) == (2, 2)
    t.do(cmd.NameIdentification(target="ogre", difficulty=12, skill="lore"))
    t.do(cmd.EndPhase())
    t.declare("fighter", 15)
    t.declare("mage", 10)
    t.declare("ogre", 8)
    t.do(cmd.EndPhase())
    t.do(cmd.RollInitiative(representative="fighter"), faces=[3, 5])  # enemies +2: ogre 10
    assert t.wz.innings[1].members == ("mage", "ogre")
    t.do(cmd.Act(combatant_id="fighter"), by=P1)
    t.do(cmd.Act(combatant_id="ogre"))
    t.do(cmd.Act(combatant_id="mage"), by=P2)
    t.do(cmd.EndPhase())
    t.do(cmd.RollCheck(combatant_id="goblin", expression="1D6"), faces=[2])
    t.do(cmd.RuleCheck(outcome="the poison cloud deals 2 to the goblin"))
    t.do(cmd.EndPhase())


def round_4(t: WzTable) -> None:
    assert t.wc("mage").die_penalty == 6  # every further k: +2 more
    t.do(cmd.EndPhase())
    t.declare("fighter", 15)
    t.declare("mage", 13)
    t.declare("ogre", 8)
    t.do(cmd.EndPhase())
    t.do(cmd.RollInitiative(representative="fighter"), faces=[5, 5])
    t.do(cmd.Act(combatant_id="fighter"), by=P1)
    t.do(cmd.Act(combatant_id="mage"), by=P2)
    t.do(cmd.DropDeclaration(combatant_id="ogre", fallback="surrender"))
    t.do(cmd.EndCombat(reason="the ogre surrenders; the goblin sleeps"))


def fight() -> WzTable:
    table = line_up()
    for played in (round_1, round_2, round_3, round_4):
        played(table)
    return table


def stored(events: list[DomainEvent]) -> list[DomainEvent]:
    """What the event store would give back: topic + JSON, decoded through the registry."""
    rows = json.loads(json.dumps([[registry.topic(e), e.model_dump(mode="json")] for e in events]))
    return [registry.decode(topic, data) for topic, data in rows]


def test_a_four_round_fight_reaches_two_fatigue_steps_and_ends() -> None:
    table = fight()
    assert table.state.ended
    assert table.wz.round == 4
    steps = [(e.combatant, e.step) for e in of_type(table.events, ev.FatigueChanged)]
    assert steps == [("mage", 1), ("fighter", 1), ("mage", 2), ("mage", 3)]
    assert table.wc("ogre").surrendered
    assert of_type(table.events, EncounterEnded)[0].rule_id == "WZ"


def test_the_status_landing_mid_inning_takes_effect_only_at_the_inning_end() -> None:
    table = fight()
    kinds = [type(e).__name__ for e in table.events]
    landed = kinds.index("StatusTookEffect")
    fighter_acts = next(
        i for i, e in enumerate(table.events) if isinstance(e, ev.ActionTaken) and e.ini == 14
    )
    assert kinds.index("StatusInflicted") < fighter_acts < landed
    assert kinds[landed + 1] == "InningEnded"


def test_the_fight_replays_from_its_stored_events_to_the_identical_state() -> None:
    table = fight()
    table.do(RevealSeed(server_seed=SEED.hex()))
    rebuilt = aggregate.KIND.rebuild(ENCOUNTER, stored(table.events))
    assert rebuilt == table.state
    assert rebuilt.version == len(table.events)
    assert snapshot.load(json.loads(json.dumps(snapshot.dump(rebuilt)))) == rebuilt
    assert all(check.ok for check in aggregate.audit(rebuilt, aggregate.rolls_of(table.events)))
