"""Armor Knights facts inside an encounter: past tense, each carrying the values it leaves.

Replaying the log never re-runs a rule: points left, load counts, cells and armour values
are in the events; the ruling recorded just before says which rule produced them.
"""

from __future__ import annotations

from typing import Literal

from domain.events import DomainEvent, registry, sample
from domain.rules.armor_knights.sheet import Band, Cell
from domain.rules.armor_knights.state import Axis, MStep

Exclusive = Literal["attack", "move", "evade"]
Settlement = Literal["hit", "not_hit", "missed"]


class Logged(DomainEvent):
    """An AK fact that reads as a line of the encounter log, in English and Japanese."""

    summary_en: str
    summary_ja: str


class FirstMoveDecided(Logged):
    """AK-TURN-2: turn `turn` begins; `order` has the first phase first; AK-WIN-1 totals."""

    model_config = sample(turn=1, order=("red", "blue"), totals={"red": 5, "blue": 2})

    event_type = "ak.FirstMoveDecided"
    turn: int
    order: tuple[str, ...]
    totals: dict[str, int]


class AttackDeclared(Logged):
    """AK-ORD-1: an attack declared, its point spent and its weapon's reload started."""

    model_config = sample(
        attacker="red",
        target="blue",
        weapon="rifle",
        response=False,
        points_left=2,
        load_turns=1,
        m_correction=1,
        f_correction=2,
        out_of_range=True,
    )

    event_type = "ak.AttackDeclared"
    attacker: str
    target: str
    weapon: str
    response: bool
    points_left: int
    load_turns: int
    m_correction: int
    f_correction: int
    out_of_range: bool = False


class AttackSettled(Logged):
    """AK-ORD-1 / AK-TRK-1 / AK-OOR-1: the top check is over (hit, not hit, or missed)."""

    model_config = sample(attacker="red", target="blue", outcome="missed", rule_id="AK-TRK-1")

    event_type = "ak.AttackSettled"
    attacker: str
    target: str
    outcome: Settlement
    rule_id: str


class ActionInterrupted(Logged):
    """AK-EXC-1: an exclusive action in progress is lost; a move's remainder is recorded."""

    model_config = sample(unit="red", action="move", lost_distance=1)

    event_type = "ak.ActionInterrupted"
    unit: str
    action: Exclusive
    lost_distance: int = 0
    rule_id: str = "AK-EXC-1"


class EvadeDeclared(Logged):
    """AK-EXC-1: the target of the top check evades (its effect is the GM's to rule)."""

    model_config = sample(unit="blue", attacker="red", points_left=1)

    event_type = "ak.EvadeDeclared"
    unit: str
    attacker: str
    points_left: int


class MoveStarted(Logged):
    """AK-MOV-1..3: a move declared with its steps; points spent (none for a fixed effect)."""

    model_config = sample(
        unit="red",
        kind="fixed",
        emergency=True,
        axis="F",
        f_steps=({"x": 2, "y": 0},),
        entry_band="far",
        response=True,
        points_left=1,
    )

    event_type = "ak.MoveStarted"
    unit: str
    kind: Literal["normal", "fixed"]
    emergency: bool
    axis: Axis
    m_steps: tuple[MStep, ...] = ()
    f_steps: tuple[Cell, ...] = ()
    entry_band: Band | None = None
    response: bool
    points_left: int


class MoveAdvanced(Logged):
    """AK-DST-1: steps taken; where the unit now is; a remainder lost on entering a map."""

    model_config = sample(
        unit="red",
        steps=1,
        cell={"x": 2, "y": 0},
        band="far",
        remaining=0,
        lost_distance=1,
    )

    event_type = "ak.MoveAdvanced"
    unit: str
    steps: int
    cell: Cell
    band: Band | None
    remaining: int
    lost_distance: int = 0


class TrackingChecked(Logged):
    """AK-TRK-1: an attack's target moved during the check; totals so far, and whether held."""

    model_config = sample(attacker="red", target="blue", moved_m=0, moved_f=2, tracked=True)

    event_type = "ak.TrackingChecked"
    attacker: str
    target: str
    moved_m: int
    moved_f: int
    tracked: bool


class WeaponReloaded(Logged):
    """AK-RLD-1: one reload action on a loading weapon; the load count it leaves."""

    model_config = sample(unit="red", weapon="cannon", load_turns=1, points_left=2)

    event_type = "ak.WeaponReloaded"
    unit: str
    weapon: str
    load_turns: int
    points_left: int


class WeaponsSwapped(Logged):
    """AK-SWP-1: weapons stowed or equipped; the equipped weapons after."""

    model_config = sample(unit="red", stowed=("blade",), now_equipped=("rifle",), points_left=2)

    event_type = "ak.WeaponsSwapped"
    unit: str
    stowed: tuple[str, ...] = ()
    equipped: tuple[str, ...] = ()
    now_equipped: tuple[str, ...]
    points_left: int


class PhaseEnded(Logged):
    """AK-TURN-3: a phase ends; its owner's active points and the other's response restored."""

    model_config = sample(unit="red", active_points=3, opponent="blue", opponent_response_points=2)

    event_type = "ak.PhaseEnded"
    unit: str
    active_points: int
    opponent: str
    opponent_response_points: int


class TurnEnded(Logged):
    """AK-RLD-2 / AK-ARM-1: load counts and armour values after the turn's end."""

    model_config = sample(
        turn=1,
        loads={"red": {"cannon": 1}},
        armor={"blue": {"physical": 10, "beam": 8}},
    )

    event_type = "ak.TurnEnded"
    turn: int
    loads: dict[str, dict[str, int]]
    armor: dict[str, dict[str, int]]


registry.register(
    FirstMoveDecided,
    AttackDeclared,
    AttackSettled,
    ActionInterrupted,
    EvadeDeclared,
    MoveStarted,
    MoveAdvanced,
    TrackingChecked,
    WeaponReloaded,
    WeaponsSwapped,
    PhaseEnded,
    TurnEnded,
)
