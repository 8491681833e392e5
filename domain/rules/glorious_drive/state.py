"""The Glorious Drive ruleset's own state inside an encounter (frozen; evolve makes new copies)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.frozen import replaced
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.injury import Injury
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.reload import WeaponAmmo
from domain.rules.glorious_drive.sheet import (
    AttackMeans,
    AttackType,
    GdMap,
    GdSheet,
    Item,
    Reach,
    Weapon,
)
from domain.rules.glorious_drive.situation import SituationGrade

Phase = Literal["setup", "initiative", "main_action", "over"]
# GD-TURN-1: the steps of one character's main action phase, in order (2-1 .. 2-5).
Step = Literal["cleanup", "weapon_swap", "move", "action", "reaction"]
STEPS: tuple[Step, ...] = ("cleanup", "weapon_swap", "move", "action", "reaction")

# GD-INJ-1..4: out of action for the rest of the scenario (shutdown: an Assault Core's faint,
# which does not recover). A fainted character still gets its cleanup recovery check.
OUT_OF_ACTION: frozenset[Injury] = frozenset({"shutdown", "critical", "incapacitated", "dead"})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Status(_Frozen):
    """GD-CHK-2: a status (変調); its effect value is its strength and its duration in turns.

    `turns_left` starts at the effect value and counts down at each failed cleanup check;
    at a cleanup with none left the duration has ended and the status is removed.
    """

    name: str
    effect_value: int
    turns_left: int


class GdCombatant(_Frozen):
    """A combatant as the fight has left it."""

    id: str
    name: str
    side: str
    controller: str
    sheet: GdSheet
    position: Position
    hp: int
    main_weapon: str | None
    sub_weapon: str | None
    ammo: dict[str, WeaponAmmo] = {}
    injury: Injury = "none"
    statuses: tuple[Status, ...] = ()
    skill_uses: dict[str, int] = {}  # uses left of each skill with limited uses
    items: tuple[Item, ...] = ()  # GD-MAIN-5 C/D: held now (lent, swapped and thrown ones move)
    equipped_items: tuple[str, ...] = ()  # names among `items`; the rest are carried (携帯品)

    def item(self, name: str) -> Item | None:
        return next((i for i in self.items if i.name == name), None)

    def carried_weapons(self) -> tuple[str, ...]:
        """GD-MAIN-5 C: weapons on the sheet in neither the main nor the sub slot."""
        held = (self.main_weapon, self.sub_weapon)
        return tuple(w.name for w in self.sheet.weapons if w.name not in held)

    def can_use(self, skill: str) -> bool:
        """GD-MAIN-5 B: a skill on the sheet with uses left (or unlimited)."""
        return self.sheet.skill(skill) is not None and self.skill_uses.get(skill, 1) > 0

    def has_skill(self, skill_type: str) -> bool:
        """Whether the sheet lists a skill of this type (uses are checked when it is used)."""
        return any(s.skill_type == skill_type for s in self.sheet.skills)

    @property
    def max_hp(self) -> int:
        return self.sheet.stats.hp

    @property
    def out_of_action(self) -> bool:
        return self.injury in OUT_OF_ACTION

    @property
    def can_react(self) -> bool:
        """GD-INJ-1: a fainted (or worse) character acts in no phase."""
        return self.injury == "none"

    def weapon(self, name: str | None) -> Weapon | None:
        return next((w for w in self.sheet.weapons if w.name == name), None)

    def main(self) -> Weapon:
        """GD-MAIN-5 A: the main weapon, or a refusal when none is held."""
        weapon = self.weapon(self.main_weapon)
        if weapon is None:
            raise RuleViolation(
                "GD-MAIN-5",
                f"{self.id} holds no main weapon",
                ja=f"{self.id} はメイン武器を持っていません",
            )
        return weapon


class SituationGrant(_Frozen):
    """GD-DMG-4: a GM's extra damage for one defender of the pending attack."""

    percent: int
    grade: SituationGrade | None
    reason: str


class PendingAttack(_Frozen):
    """An attack declared and waiting for its defenders' reactions (GD-REACT)."""

    attacker: str
    weapon: str
    attack_type: AttackType
    reach: Reach
    attack: int
    hit: int
    point: Position | None = None
    area: int = 0
    defenders: tuple[str, ...]
    hit_die: int | None = None  # GD-REACT-6: rolled once, at the first dodge
    hit_roll_seq: int | None = None
    # A factory, not `= {}`: a mutable default is deep-copied for every attack declared.
    situation: dict[str, SituationGrant] = Field(default_factory=dict)
    means: AttackMeans = "weapon"  # GD-MAIN-6 unarmed / bash, GD-MAIN-7 thrown item


class PendingLoan(_Frozen):
    """GD-MAIN-5 C: a general item offered to an adjacent ally, awaiting the borrower's consent."""

    lender: str
    borrower: str
    item: str


class GdState(_Frozen):
    """Where a Glorious Drive fight stands."""

    options: GloriousDriveOptions
    battle_map: GdMap
    combatants: dict[str, GdCombatant] = {}
    turn: int = 0
    phase: Phase = "setup"
    order: tuple[str, ...] = ()
    acting_index: int = 0
    step: Step = "cleanup"
    pending: PendingAttack | None = None
    pending_loan: PendingLoan | None = None
    # GD-MAIN-5 C: borrowers who spent this turn's action step consenting to a loan.
    actions_spent: tuple[str, ...] = ()

    @property
    def acting(self) -> str | None:
        """The combatant whose main action phase it is, if any."""
        if self.phase != "main_action" or self.acting_index >= len(self.order):
            return None
        return self.order[self.acting_index]

    def combatant(self, combatant_id: str, rule_id: str = "GD-TURN-1") -> GdCombatant:
        found = self.combatants.get(combatant_id)
        if found is None:
            raise RuleViolation(
                rule_id,
                f"no combatant {combatant_id!r} in this encounter",
                ja=f"この戦闘に参加者 {combatant_id!r} はいません",
            )
        return found

    def replace(self, combatant: GdCombatant) -> GdState:
        return replaced(self, {"combatants": {**self.combatants, combatant.id: combatant}})


def next_acting_index(state: GdState, start: int) -> int:
    """GD-TURN-1 / GD-INJ: the first position from `start` whose combatant takes a phase."""
    index = start
    while index < len(state.order) and state.combatants[state.order[index]].out_of_action:
        index += 1
    return index
