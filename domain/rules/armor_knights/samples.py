"""One sample of every Armor Knights fact, each loading from its stored JSON in golden/events/
(never edited; docs/architecture.md, "A rule system's samples and golden files")."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent
from domain.rules.armor_knights import condition_events as cev
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.sheet import Cell

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the goldens were written at this instant
M = {"at": AT, "by": "gm"}
HERE = Cell(x=2, y=0)


# Each AK fact also reads as a line of the log (the wording is free; the shape is checked).
LINE = {"summary_en": "red's move is interrupted", "summary_ja": "redの移動動作は中断"}


SAMPLES: list[DomainEvent] = [
    ev.FirstMoveDecided(
        turn=1,
        order=("red", "blue"),
        totals={"red": 5, "blue": 2},
        **M,
        **LINE,
    ),
    ev.AttackDeclared(
        attacker="red",
        target="blue",
        weapon="rifle",
        response=False,
        points_left=2,
        load_turns=1,
        m_correction=1,
        f_correction=2,
        out_of_range=True,
        **M,
        **LINE,
    ),
    ev.AttackSettled(
        attacker="red",
        target="blue",
        outcome="missed",
        rule_id="AK-TRK-1",
        **M,
        **LINE,
    ),
    ev.ActionInterrupted(
        unit="red",
        action="move",
        lost_distance=1,
        **M,
        **LINE,
    ),
    ev.EvadeDeclared(
        unit="blue",
        attacker="red",
        points_left=1,
        **M,
        **LINE,
    ),
    ev.MoveStarted(
        unit="red",
        kind="fixed",
        emergency=True,
        axis="F",
        f_steps=(HERE,),
        entry_band="far",
        response=True,
        points_left=1,
        **M,
        **LINE,
    ),
    ev.MoveAdvanced(
        unit="red",
        steps=1,
        cell=HERE,
        band="far",
        remaining=0,
        lost_distance=1,
        **M,
        **LINE,
    ),
    ev.TrackingChecked(
        attacker="red",
        target="blue",
        moved_m=0,
        moved_f=2,
        tracked=True,
        **M,
        **LINE,
    ),
    ev.WeaponReloaded(
        unit="red",
        weapon="cannon",
        load_turns=1,
        points_left=2,
        **M,
        **LINE,
    ),
    ev.WeaponsSwapped(
        unit="red",
        stowed=("blade",),
        now_equipped=("rifle",),
        points_left=2,
        **M,
        **LINE,
    ),
    cev.ArmorEffectApplied(
        unit="blue",
        armor="physical",
        amount=-5,
        mode="treated",
        lasts="turn",
        stored=10,
        effective=5,
        **M,
        **LINE,
    ),
    cev.MoveLimitImposed(
        unit="red",
        penalty=1,
        cannot_move=False,
        **M,
        **LINE,
    ),
    cev.UnitShotDown(
        unit="blue",
        armor="physical",
        value=-5,
        **M,
        **LINE,
    ),
    cev.SideWon(
        side="red",
        condition="shot_down",
        **M,
        **LINE,
    ),
    ev.PhaseEnded(
        unit="red",
        active_points=3,
        opponent="blue",
        opponent_response_points=2,
        **M,
        **LINE,
    ),
    ev.TurnEnded(
        turn=1,
        loads={"red": {"cannon": 1}},
        armor={"blue": {"physical": 10, "beam": 8}},
        **M,
        **LINE,
    ),
]
