"""The WZ ruleset's own state inside an encounter (frozen; evolve makes new copies)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from domain.frozen import replaced
from domain.rules.errors import RuleViolation
from domain.rules.wizardry_round.options import WizardryRoundOptions
from domain.rules.wizardry_round.sheet import WzSheet

# The order of a round (WZ-1..WZ-10); "encounter" is round 0, before round 1 begins.
Phase = Literal[
    "encounter",
    "combat_start",
    "fatigue",
    "identification",
    "declaration",
    "strategy",
    "initiative",
    "action",
    "recovery",
    "end",
    "over",
]
Form = Literal["a", "b", "c"]
CheckKind = Literal["surprise", "identification", "action", "recovery", "end"]
# Each kind of check is made in one phase, whose rule it cites.
CHECK_RULE: dict[CheckKind, str] = {
    "surprise": "WZ-1",
    "identification": "WZ-4",
    "action": "WZ-8",
    "recovery": "WZ-9",
    "end": "WZ-10",
}
CHECK_PHASE: dict[str, CheckKind] = {
    "encounter": "surprise",
    "identification": "identification",
    "action": "action",
    "recovery": "recovery",
    "end": "end",
}
# WZ-7: the side whose representative rolls against the GM; every other side is the GM's.
PARTY_SIDE = "pc"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Status(_Frozen):
    """A bad status as the GM named it; `incapacitating` ones stop the character acting."""

    name: str
    incapacitating: bool


class WzCombatant(_Frozen):
    """A combatant as the fight has left it."""

    id: str
    name: str
    side: str
    controller: str
    sheet: WzSheet
    started: bool = False  # WZ-2 has happened for it
    weapon: str | None = None
    fatigue_step: int = 0
    die_penalty: int = 0
    ac_penalty: int = 0
    collapsed: bool = False  # WZ-3: a total penalty of +10
    surrendered: bool = False  # WZ-8 (F)
    statuses: tuple[Status, ...] = ()

    @property
    def in_party(self) -> bool:
        return self.side == PARTY_SIDE

    @property
    def able(self) -> bool:
        """Able to act: not collapsed, not surrendered, under no incapacitating status."""
        held = any(s.incapacitating for s in self.statuses)
        return not (self.collapsed or self.surrendered or held)

    @property
    def ac(self) -> int:
        return self.sheet.ac + self.ac_penalty


class Declaration(_Frozen):
    """WZ-5: the declared actions and the INI to act at (before the initiative roll)."""

    form: Form
    sub: str | None = None
    main: str | None = None
    passive: str | None = None
    full: str | None = None
    free: tuple[str, ...] = ()
    two_handed_attack: bool = False
    ini: int


class Inning(_Frozen):
    """WZ-8: everyone acting at one INI (after the roll), simultaneously."""

    ini: int
    members: tuple[str, ...]


class Deferred(_Frozen):
    """WZ-8: a bad status inflicted during an inning, waiting for the inning's end."""

    combatant: str
    status: Status


class PendingCheck(_Frozen):
    """A check rolled by expression, waiting for the GM's ruling on its outcome."""

    combatant: str
    kind: CheckKind
    expression: str
    total: int
    fatigue_penalty: int
    roll_seqs: tuple[int, ...]


class Identification(_Frozen):
    """WZ-4: what the GM named: the creature, the difficulty and the academic skill."""

    target: str
    difficulty: int
    skill: str


class WzState(_Frozen):
    """Where a WZ fight stands."""

    options: WizardryRoundOptions
    combatants: dict[str, WzCombatant] = {}
    round: int = 0
    phase: Phase = "encounter"
    tp: dict[str, int] = {}  # TP by pool: a side, or a combatant (WZ-2a per_character)
    credited: dict[str, int] = {}  # WZ-2a party_highest: Strategy already credited per pool
    declarations: dict[str, Declaration] = {}
    formations: tuple[str, ...] = ()
    innings: tuple[Inning, ...] = ()
    inning_index: int = 0
    done: tuple[str, ...] = ()  # acted in the current inning
    deferred: tuple[Deferred, ...] = ()
    pending_check: PendingCheck | None = None
    identification: Identification | None = None

    def combatant(self, combatant_id: str, rule_id: str = "WZ-8") -> WzCombatant:
        found = self.combatants.get(combatant_id)
        if found is None:
            raise RuleViolation(
                rule_id,
                f"no combatant {combatant_id!r} in this encounter",
                ja=f"この戦闘に参加者 {combatant_id!r} はいません",
            )
        return found

    def replace(self, combatant: WzCombatant) -> WzState:
        return replaced(self, {"combatants": {**self.combatants, combatant.id: combatant}})

    def pool_of(self, combatant: WzCombatant) -> str:
        """WZ-2a: the TP pool a combatant gains into and spends from."""
        if self.options.tp_pool == "per_character":
            return combatant.id
        return combatant.side

    @property
    def inning(self) -> Inning | None:
        if self.phase != "action" or self.inning_index >= len(self.innings):
            return None
        return self.innings[self.inning_index]

    def awaiting_in_inning(self) -> list[str]:
        """WZ-8: members of the current inning still able and yet to act."""
        inning = self.inning
        if inning is None:
            return []
        return [m for m in inning.members if m not in self.done and self.combatants[m].able]
