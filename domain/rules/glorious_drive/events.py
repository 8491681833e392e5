"""Glorious Drive's state changes inside an encounter: past-tense facts, each with its results.

Each carries the values it leaves behind (HP after, the new order), so replaying the log never
re-runs a rule; the ruling recorded just before says which rule produced it and from what.
"""

from __future__ import annotations

from typing import Literal

from domain.events import DomainEvent, registry, sample
from domain.rules.glorious_drive.injury import Injury
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.sheet import AttackMeans, AttackType, Reach
from domain.rules.glorious_drive.situation import SituationGrade

ReactionKind = Literal[
    "dodge", "guard", "wait", "intercept", "counter_skill", "item", "none_possible"
]


class InitiativeOrdered(DomainEvent):
    """GD-INIT-1/2: the order of turn `turn`, first to act first."""

    model_config = sample(turn=1, order=("ace", "orc"))

    event_type = "gd.InitiativeOrdered"
    turn: int
    order: tuple[str, ...]


class ActionDelayed(DomainEvent):
    """GD-INIT-3: `combatant` acts right after `after`; `order` is the new order."""

    model_config = sample(combatant="ace", after="orc", order=("orc", "ace"))

    event_type = "gd.ActionDelayed"
    combatant: str
    after: str
    order: tuple[str, ...]


class CombatantWaited(DomainEvent):
    """GD-MAIN-1: `combatant` takes no step this turn."""

    model_config = sample(combatant="ace")

    event_type = "gd.CombatantWaited"
    combatant: str


class CleanupCompleted(DomainEvent):
    """GD-MAIN-2: the cleanup step of `combatant` is done (one turn elapsed for durations)."""

    model_config = sample(combatant="ace")

    event_type = "gd.CleanupCompleted"
    combatant: str


class WeaponsSwapped(DomainEvent):
    """GD-MAIN-3: main and sub weapon changed hands."""

    model_config = sample(combatant="ace", main_weapon="cannon", sub_weapon="shield")

    event_type = "gd.WeaponsSwapped"
    combatant: str
    main_weapon: str | None
    sub_weapon: str | None


class CombatantMoved(DomainEvent):
    """GD-MAIN-4 A: squares entered in order, and the move points paid."""

    model_config = sample(combatant="ace", path=({"x": 1, "y": 2},), cost=1)

    event_type = "gd.CombatantMoved"
    combatant: str
    path: tuple[Position, ...]
    cost: int


class AttackDeclared(DomainEvent):
    """GD-MAIN-5 A: an attack with the main weapon, its final values and its defenders."""

    model_config = sample(
        attacker="ace",
        weapon="grenade",
        attack_type="physical",
        reach="ranged",
        attack=120,
        hit=50,
        defenders=("orc",),
        point={"x": 1, "y": 2},
        area=1,
    )

    event_type = "gd.AttackDeclared"
    attacker: str
    weapon: str
    attack_type: AttackType
    reach: Reach
    attack: int
    hit: int
    defenders: tuple[str, ...]
    point: Position | None = None
    area: int = 0
    means: AttackMeans = "weapon"  # GD-MAIN-6/7: `weapon` then names the bashed or thrown thing


class SituationModifierGranted(DomainEvent):
    """GD-DMG-4: the GM's extra damage against one defender, with grade and reason."""

    model_config = sample(defender="orc", percent=20, grade="small", reason="flank open")

    event_type = "gd.SituationModifierGranted"
    defender: str
    percent: int
    grade: SituationGrade | None
    reason: str


class ReactionDeclared(DomainEvent):
    """GD-REACT-1..5: a defender's reaction (or an interceptor taking the attack instead)."""

    model_config = sample(combatant="bob", reaction="intercept", instead_of="ace", guard=True)

    event_type = "gd.ReactionDeclared"
    combatant: str
    reaction: ReactionKind
    instead_of: str | None = None
    guard: bool = False


class HitRolled(DomainEvent):
    """GD-REACT-1/6: the attacker's one 1D100 for this attack, met by every dodge."""

    model_config = sample(attacker="ace", die=50, roll_seq=3)

    event_type = "gd.HitRolled"
    attacker: str
    die: int
    roll_seq: int


class GuardCostPaid(DomainEvent):
    """GD-REACT-4: HP paid to guard (not damage; not cut)."""

    model_config = sample(combatant="bob", cost=5, hp=95)

    event_type = "gd.GuardCostPaid"
    combatant: str
    cost: int
    hp: int


class DamageApplied(DomainEvent):
    """GD-DMG-1..4: HP lost to the attack and HP after."""

    model_config = sample(combatant="orc", damage=70, hp=-8)

    event_type = "gd.DamageApplied"
    combatant: str
    damage: int
    hp: int


class InjurySuffered(DomainEvent):
    """GD-INJ-1..4: the heaviest injury now on the combatant."""

    model_config = sample(combatant="orc", injury="faint")

    event_type = "gd.InjurySuffered"
    combatant: str
    injury: Injury


class DefenceResolved(DomainEvent):
    """GD-REACT: one defender of the pending attack is settled (hit or not)."""

    model_config = sample(combatant="orc", hit=True)

    event_type = "gd.DefenceResolved"
    combatant: str
    hit: bool


class WeaponReloaded(DomainEvent):
    """GD-RLD-2/3: one reload action; the ammunition it leaves."""

    model_config = sample(combatant="ace", weapon="cannon", shots_left=1, reloads_done=0)

    event_type = "gd.WeaponReloaded"
    combatant: str
    weapon: str
    shots_left: int
    reloads_done: int


class LoanOffered(DomainEvent):
    """GD-MAIN-5 C: `lender` offers the general item `item` to `borrower`, awaiting consent."""

    model_config = sample(lender="ace", borrower="bob", item="medkit")

    event_type = "gd.LoanOffered"
    lender: str
    borrower: str
    item: str


class LoanDeclined(DomainEvent):
    """GD-MAIN-5 C: the borrower did not consent; the lender's action step is still open."""

    model_config = sample(lender="ace", borrower="bob", item="medkit")

    event_type = "gd.LoanDeclined"
    lender: str
    borrower: str
    item: str


class ItemLent(DomainEvent):
    """GD-MAIN-5 C: both consented; the item is now carried by `borrower`; both spent the step."""

    model_config = sample(lender="ace", borrower="bob", item="medkit")

    event_type = "gd.ItemLent"
    lender: str
    borrower: str
    item: str


class EquipmentSwapped(DomainEvent):
    """GD-MAIN-5 C: carried items and equipment changed places; what is equipped after."""

    model_config = sample(combatant="ace", sub_weapon="knife", equipped_items=("goggles",))

    event_type = "gd.EquipmentSwapped"
    combatant: str
    sub_weapon: str | None
    equipped_items: tuple[str, ...]


class MainActionEnded(DomainEvent):
    """GD-MAIN: `combatant`'s main action phase is over; the next in order acts."""

    model_config = sample(combatant="ace")

    event_type = "gd.MainActionEnded"
    combatant: str


class TurnEnded(DomainEvent):
    """GD-TURN-1 phase 3: every main action phase of the turn is over."""

    model_config = sample(turn=1)

    event_type = "gd.TurnEnded"
    turn: int


registry.register(
    InitiativeOrdered,
    ActionDelayed,
    CombatantWaited,
    CleanupCompleted,
    WeaponsSwapped,
    CombatantMoved,
    AttackDeclared,
    SituationModifierGranted,
    ReactionDeclared,
    HitRolled,
    GuardCostPaid,
    DamageApplied,
    InjurySuffered,
    DefenceResolved,
    WeaponReloaded,
    LoanOffered,
    LoanDeclined,
    ItemLent,
    EquipmentSwapped,
    MainActionEnded,
    TurnEnded,
)
