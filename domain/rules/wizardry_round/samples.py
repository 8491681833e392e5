"""One sample of every Wizardry Round fact, each loading from its stored JSON in golden/events/
(never edited; docs/architecture.md, "A rule system's samples and golden files")."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent
from domain.rules.wizardry_round import events as wz
from domain.rules.wizardry_round import status_events as wzs
from domain.rules.wizardry_round.state import Inning

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the goldens were written at this instant
M = {"at": AT, "by": "gm", "summary_en": "a log line", "summary_ja": "ログの一行"}

SAMPLES: list[DomainEvent] = [
    wz.SurpriseResolved(surprising=("goblin",), note="the goblins lay in wait", **M),
    wz.PhaseEntered(round=1, phase="combat_start", **M),
    wz.CombatStarted(combatant="fighter", weapon="sword", strategy=2, **M),
    wz.TpGained(pool="pc", gain=2, tp=3, rule_id="WZ-2", **M),
    wz.FatigueChanged(combatant="mage", step=2, die_penalty=4, ac_penalty=4, collapsed=False, **M),
    wz.IdentificationNamed(target="ogre", difficulty=12, skill="monster lore", **M),
    wz.CheckRolled(
        combatant="mage",
        kind="action",
        expression="1D20+3",
        faces=(10,),
        fatigue_penalty=2,
        total=15,
        roll_seqs=(4,),
        **M,
    ),
    wz.CheckRuled(combatant="mage", success=True, outcome="the goblin falls asleep", **M),
    wz.ActionDeclared(
        combatant="fighter",
        form="a",
        sub="combat move",
        main="attack",
        passive="shield",
        full=None,
        free=("shout",),
        two_handed_attack=False,
        ini=15,
        **M,
    ),
    wz.FormationDeclared(combatant="fighter", formation="wedge", pool="pc", cost=2, tp=1, **M),
    wz.InitiativeRolled(
        pc_die=4,
        gm_die=7,
        difference=3,
        innings=(Inning(ini=14, members=("fighter", "goblin")), Inning(ini=13, members=("mage",))),
        **M,
    ),
    wz.ActionTaken(combatant="fighter", ini=14, note="strikes the goblin", **M),
    wz.DeclarationDropped(
        combatant="ogre", ini=11, fallback="defensive_stance", passive_kept=False, **M
    ),
    wzs.StatusInflicted(
        combatant="fighter", status="paralysis", incapacitating=True, deferred=True, **M
    ),
    wzs.StatusTookEffect(combatant="fighter", status="paralysis", incapacitating=True, **M),
    wzs.StatusRemoved(combatant="fighter", status="paralysis", **M),
    wz.InningEnded(ini=14, **M),
]
