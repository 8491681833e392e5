"""One sample of every Glorious Drive fact, each loading from its stored JSON in golden/events/
(never edited; docs/architecture.md, "A rule system's samples and golden files")."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent
from domain.rules.glorious_drive import condition_events as cev
from domain.rules.glorious_drive import events as gd
from domain.rules.glorious_drive.position import Position

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the goldens were written at this instant
M = {"at": AT, "by": "gm"}
HERE = Position(x=1, y=2)

SAMPLES: list[DomainEvent] = [
    gd.InitiativeOrdered(turn=1, order=("ace", "orc"), **M),
    gd.ActionDelayed(combatant="ace", after="orc", order=("orc", "ace"), **M),
    gd.CombatantWaited(combatant="ace", **M),
    gd.CleanupCompleted(combatant="ace", **M),
    cev.StatusInflicted(combatant="ace", status="poison", effect_value=2, **M),
    cev.StatusExpired(combatant="ace", status="poison", reason="recovered", **M),
    cev.StatusDurationElapsed(combatant="ace", status="poison", turns_left=1, **M),
    cev.FaintRecovered(combatant="ace", **M),
    gd.WeaponsSwapped(combatant="ace", main_weapon="cannon", sub_weapon="shield", **M),
    gd.CombatantMoved(combatant="ace", path=(HERE,), cost=1, **M),
    gd.AttackDeclared(
        attacker="ace",
        weapon="grenade",
        attack_type="physical",
        reach="ranged",
        attack=120,
        hit=50,
        defenders=("orc",),
        point=HERE,
        area=1,
        **M,
    ),
    gd.SituationModifierGranted(
        defender="orc", percent=20, grade="small", reason="flank open", **M
    ),
    gd.ReactionDeclared(combatant="bob", reaction="intercept", instead_of="ace", guard=True, **M),
    gd.HitRolled(attacker="ace", die=50, roll_seq=3, **M),
    gd.GuardCostPaid(combatant="bob", cost=5, hp=95, **M),
    gd.DamageApplied(combatant="orc", damage=70, hp=-8, **M),
    gd.InjurySuffered(combatant="orc", injury="faint", **M),
    gd.DefenceResolved(combatant="orc", hit=True, **M),
    gd.WeaponReloaded(combatant="ace", weapon="cannon", shots_left=1, reloads_done=0, **M),
    cev.SkillUsed(combatant="ace", skill="Burst", uses_left=0, hp=40, **M),
    gd.LoanOffered(lender="ace", borrower="bob", item="medkit", **M),
    gd.LoanDeclined(lender="ace", borrower="bob", item="medkit", **M),
    gd.ItemLent(lender="ace", borrower="bob", item="medkit", **M),
    gd.EquipmentSwapped(combatant="ace", sub_weapon="knife", equipped_items=("goggles",), **M),
    gd.MainActionEnded(combatant="ace", **M),
    gd.TurnEnded(turn=1, **M),
]
