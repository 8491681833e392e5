"""The Armor Knights ruleset's own state inside an encounter (frozen; evolve makes copies)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from domain.frozen import replaced
from domain.rules.armor_knights.options import ArmorKnightsOptions
from domain.rules.armor_knights.sheet import AkMap, AkSheet, Band, Cell
from domain.rules.errors import RuleViolation

Phase = Literal["setup", "first_move", "phase", "over"]
# Where the acting side's phase stands (procedure.py): a check open, or a move under way.
ProcedureStep = Literal["check", "moving"]
Mode = Literal["treated", "reduced"]  # AK-ARM-1: 〜したものとして / 〜する
Lasts = Literal["turn", "until_shot_down"]
Axis = Literal["M", "F"]
MStep = Literal["closer", "farther"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ArmorEffect(_Frozen):
    """AK-ARM-1: a change of one armour value, how it applies and how long it lasts."""

    armor: str
    amount: int
    mode: Mode
    lasts: Lasts


class MoveInProgress(_Frozen):
    """AK-EXC-1: a declared move still under way; what is left can be lost."""

    axis: Axis
    m_steps: tuple[MStep, ...] = ()
    f_steps: tuple[Cell, ...] = ()
    entry_band: Band | None = None

    @property
    def remaining(self) -> int:
        return len(self.m_steps) + len(self.f_steps)


class Check(_Frozen):
    """An attack being checked (AK-ORD-1): the top of the stack resolves first."""

    attacker: str
    target: str
    weapon: str
    m_correction: int
    f_correction: int
    out_of_range: bool = False
    moved_m: int = 0  # AK-TRK-1: the target's emergency moves during this check
    moved_f: int = 0
    evading: bool = False


class AkUnit(_Frozen):
    """A unit as the duel has left it."""

    id: str
    name: str
    side: str
    controller: str
    sheet: AkSheet
    cell: Cell
    armor: dict[str, int]  # stored values (AK-ARM-1 "reduced" changes these)
    effects: tuple[ArmorEffect, ...] = ()
    active_points: int
    response_points: int
    equipped: tuple[str, ...]
    loads: dict[str, int] = {}  # AK-RLD-1: 装填T数 left on each loading weapon
    moving: MoveInProgress | None = None
    move_penalty: int = 0  # "move −X this turn" (AK-MOV-2 ignores it for fixed moves)
    cannot_move: bool = False
    first_move_total: int = 0  # AK-WIN-1
    shot_down: bool = False

    def effective(self, armor: str) -> int:
        """AK-ARM-1: the value a check uses — stored value plus every "treated as" change."""
        treated = sum(e.amount for e in self.effects if e.armor == armor and e.mode == "treated")
        return self.armor[armor] + treated


class AkState(_Frozen):
    """Where an Armor Knights duel stands."""

    options: ArmorKnightsOptions
    battle_map: AkMap
    # Named as in every ruleset state, so the generic what-if replay can compare them.
    combatants: dict[str, AkUnit] = {}
    turn: int = 0
    phase: Phase = "setup"
    order: tuple[str, ...] = ()  # AK-TURN-2: the unit with the first phase first
    phase_index: int = 0
    band: Band | None = None  # AK-DST-1: M distance while both units share a cell
    checks: tuple[Check, ...] = ()
    winner: str | None = None

    @property
    def acting(self) -> str | None:
        if self.phase != "phase" or self.phase_index >= len(self.order):
            return None
        return self.order[self.phase_index]

    def unit(self, unit_id: str, rule_id: str = "AK-TURN-1") -> AkUnit:
        found = self.combatants.get(unit_id)
        if found is None:
            raise RuleViolation(
                rule_id,
                f"no unit {unit_id!r} in this duel",
                ja=f"この対決にユニット {unit_id!r} はいません",
            )
        return found

    def opponent(self, unit_id: str) -> AkUnit:
        return next(u for u in self.combatants.values() if u.id != unit_id)

    def replace(self, unit: AkUnit) -> AkState:
        return replaced(self, {"combatants": {**self.combatants, unit.id: unit}})

    def engaged(self) -> bool:
        """AK-DST-1: both units in one cell (their M distance is `band`)."""
        cells = {(u.cell.x, u.cell.y) for u in self.combatants.values()}
        return len(self.combatants) == 2 and len(cells) == 1
