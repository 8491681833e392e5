"""GD-STAT-3: no rule tells characters from Assault Cores or large enemies when computing numbers
or checks, except where one says so (injuries, GD-INJ): the same sheet numbers give the same
rulings whoever carries them."""

from __future__ import annotations

from typing import Any

import pytest

from domain.events import DomainEvent
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import InjurySuffered
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import Table, of_type, sheet

BODIES: list[dict[str, Any]] = [
    {"body": "licenser"},
    {"body": "assault_core"},
    {"body": "large_enemy", "size": 1},
]


def exchange(
    attacker: dict[str, Any],
    target: dict[str, Any],
    hp: int = 100,
    injury_dice: tuple[int, ...] = (),
) -> Table:
    """Given: orc attacks ace, ace dodges (50+30 against 50+30: the tie goes to the attacker)
    and takes 70; `injury_dice` are the faces of any injury check that follows."""
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, **target) | {"hp": hp})
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=9, **attacker))
    )
    table.do(cmd.RollInitiative(), faces=[1, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    table.do(cmd.Dodge(combatant_id="ace"), faces=[30, 30, *injury_dice])
    return table


def decided(events: list[DomainEvent]) -> list[tuple[object, ...]]:
    return [(r.rule_ids, r.inputs, r.outcome) for r in of_type(events, RulingRecorded)]


@pytest.mark.parametrize("body", BODIES, ids=lambda b: str(b["body"]))
def test_GD_STAT_3_attack_dodge_and_damage_are_computed_alike_for_every_body(
    body: dict[str, Any],
) -> None:
    as_target, as_attacker = exchange({}, body), exchange(body, {})
    everyman = exchange({}, {})
    assert decided(as_target.events) == decided(everyman.events)
    assert decided(as_attacker.events) == decided(everyman.events)
    assert as_target.c("ace").hp == everyman.c("ace").hp == 30  # 120 − 50


def test_GD_STAT_3_except_where_a_rule_says_so_an_assault_core_shuts_down_instead() -> None:
    core = exchange({}, {"body": "assault_core"}, hp=40, injury_dice=(1,))  # left at −30
    pilot = exchange({}, {}, hp=40, injury_dice=(1, 1))
    core_rulings, pilot_rulings = decided(core.events), decided(pilot.events)
    assert core_rulings[:-1] == pilot_rulings[:-1]  # hit and damage alike
    assert [e.injury for e in of_type(core.events, InjurySuffered)] == ["shutdown"]
    assert [e.injury for e in of_type(pilot.events, InjurySuffered)] == ["critical"]
