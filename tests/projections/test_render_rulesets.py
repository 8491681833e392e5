"""Every ruleset fact reads as a line of the encounter log: none falls back to its fields.

The Glorious Drive facts have renderers (domain/rules/glorious_drive/log.py, the ruleset's
`log_line`); the Wizardry-style round and Armor Knights facts carry their own
`summary_en`/`summary_ja`, which their rulesets' `log_line` answers.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from domain.encounter.rulesets import RULESETS as REGISTRY
from domain.events import DomainEvent
from domain.rules import armor_knights, glorious_drive, wizardry_round
from domain.rules.glorious_drive.log import LOG as GD_LOG
from projections.render import Line, render
from tests.projections.events import AT
from tests.unit.encounter import test_scripted_encounter as gd_fight
from tests.unit.rules import fights

RULESETS = (glorious_drive, wizardry_round, armor_knights)
SUMMARIES = frozenset({"summary_en", "summary_ja"})
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# Typography the rulings and dice lines use in English too (arrows, dashes, `(1D6) ＞ 3`).
ENGLISH_EXTRA = frozenset("×→…≤＞—−–")


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
        yield importlib.import_module(info.name)


def _events_of(module: ModuleType) -> Iterator[type[DomainEvent]]:
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, DomainEvent)
            and value.__module__ == module.__name__
            and value.event_type
        ):
            yield value


EVENTS = sorted(
    {cls for package in RULESETS for module in _modules(package) for cls in _events_of(module)},
    key=lambda cls: cls.event_type,
)
# Facts without their own summaries: each needs a renderer.
UNSUMMARISED = [cls for cls in EVENTS if not set(cls.model_fields) >= SUMMARIES]


def _fell_back(event: DomainEvent, line: Line) -> bool:
    return line[0].startswith(f"{event.by}: {event.event_type} (")


def test_the_walk_finds_the_facts_of_all_three_rulesets() -> None:
    prefixes = {cls.event_type.split(".")[0] for cls in EVENTS}

    assert prefixes == {"gd", "wz", "ak"}
    assert {cls.event_type.split(".")[0] for cls in UNSUMMARISED} == {"gd"}


def test_every_ruleset_fact_without_its_own_summaries_has_a_renderer() -> None:
    missing = [cls.event_type for cls in UNSUMMARISED if cls.event_type not in GD_LOG]

    assert missing == []


@pytest.mark.parametrize("cls", EVENTS, ids=lambda cls: cls.event_type)
def test_each_fact_is_rendered_by_exactly_one_ruleset(cls: type[DomainEvent]) -> None:
    """The log asks every ruleset: a fact is its own ruleset's, and no other's."""
    event = cls.model_construct(at=AT, by="gm", summary_en="en", summary_ja="日本語")

    answering = [r for r, ruleset in REGISTRY.items() if ruleset.log_line(event) is not None]

    assert answering == [r for r in REGISTRY if cls.__module__.startswith(f"domain.rules.{r}.")]


# ---------------------------------------------------------------------------------------------
# The scripted fights, line by line


def _gd_events() -> list[DomainEvent]:
    table = gd_fight.line_up()
    for turn in (gd_fight.turn_1, gd_fight.turn_2, gd_fight.turn_3):
        turn(table)
    return table.events


_wz_events = fights.wizardry_round
_ak_events = fights.armor_knights


@pytest.fixture(scope="module")
def gd_lines() -> list[tuple[DomainEvent, Line]]:
    return [(event, render(event)) for event in _gd_events()]


def _reads_as_english(text: str) -> bool:
    return bool(text.strip()) and all(c.isascii() or c in ENGLISH_EXTRA for c in text)


@pytest.mark.parametrize("events", [_gd_events, _wz_events, _ak_events], ids=["gd", "wz", "ak"])
def test_every_line_of_a_scripted_fight_is_prose_in_both_languages(events: Any) -> None:
    for event in events():
        line = render(event)
        assert not _fell_back(event, line), line
        assert _reads_as_english(line[0]), line
        assert JAPANESE.search(line[1]), line


def _first(lines: list[tuple[DomainEvent, Line]], event_type: str, nth: int = 0) -> Line:
    return [line for event, line in lines if event.event_type == event_type][nth]


@pytest.mark.parametrize(
    ("event_type", "nth", "expected"),
    [
        (
            "gd.InitiativeOrdered",
            0,
            (
                "Turn 1 initiative order: ace → bolt → grunt1 → grunt2 → brute",
                "第1ターンの行動順：ace→bolt→grunt1→grunt2→brute",
            ),
        ),
        (
            "gd.CleanupCompleted",
            0,
            ("ace's cleanup step is done", "aceのクリーンナップステップ終了"),
        ),
        (
            "gd.CombatantMoved",
            0,
            (
                "ace moved 2 squares to (3,1,0), paying 2 move",
                "aceが(3,1,0)へ移動（2スクエア、移動力2消費）",
            ),
        ),
        (
            "gd.AttackDeclared",
            0,
            (
                "ace attacked grunt1 with rifle (ranged hit 70, physical attack 170)",
                "aceがrifleでgrunt1を攻撃（射撃命中70、物理攻撃170）",
            ),
        ),
        (
            "gd.HitRolled",
            0,
            ("ace's hit roll: 1D100 = 50 (roll #5)", "aceの命中判定：1D100＝50（ロール#5）"),
        ),
        (
            "gd.DamageApplied",
            0,
            ("grunt1 took 140 damage; HP now -60", "grunt1が140ダメージを受けた（生命-60）"),
        ),
        (
            "gd.InjurySuffered",
            0,
            ("grunt1 suffered a critical injury", "grunt1の負傷状態：重体"),
        ),
        (
            "gd.AttackDeclared",
            2,
            (
                "brute attacked area 1 around (3,2,0) with grenade, catching ace, bolt "
                "(ranged hit 50, physical attack 120)",
                "bruteがgrenadeで(3,2,0)の範囲1（対象ace、bolt）を攻撃（射撃命中50、物理攻撃120）",
            ),
        ),
        (
            "gd.WeaponReloaded",
            0,
            (
                "bolt reloaded cannon: reload action 1 done, locked until the reload completes "
                "(0 shots left)",
                "boltがcannonをリロード：リロード1回目、完了まで使用不可（残弾0）",
            ),
        ),
        (
            "gd.SituationModifierGranted",
            0,
            (
                "gm granted a situation modifier against brute: +20% damage (small): "
                "its flank is open",
                "gmがbruteへの状況修正を付与：ダメージ+20%（小）：its flank is open",
            ),
        ),
    ],
)
def test_the_glorious_drive_fight_reads_line_by_line(
    gd_lines: list[tuple[DomainEvent, Line]], event_type: str, nth: int, expected: Line
) -> None:
    assert _first(gd_lines, event_type, nth) == expected


# ---------------------------------------------------------------------------------------------
# Facts the scripted fight does not reach

# A valid value of every field the Glorious Drive facts require, by field name; a class
# needing a field not named here fails the test below, so a new fact gets a sample too.
SAMPLES: dict[str, Any] = {
    "combatant": "ace",
    "turn": 2,
    "order": ["ace", "bolt"],
    "after": "bolt",
    "main_weapon": "rifle",
    "sub_weapon": None,
    "path": [{"x": 1, "y": 2}],
    "cost": 1,
    "attacker": "ace",
    "weapon": "rifle",
    "attack_type": "physical",
    "reach": "melee",
    "attack": 100,
    "hit": 50,
    "defenders": ["grunt"],
    "defender": "grunt",
    "percent": 10,
    "grade": None,
    "reason": "the flank is open",
    "reaction": "dodge",
    "die": 42,
    "roll_seq": 1,
    "damage": 10,
    "hp": 5,
    "injury": "faint",
    "shots_left": 1,
    "reloads_done": 0,
    "lender": "ace",
    "borrower": "bolt",
    "item": "medkit",
    "equipped_items": [],
    "status": "poison",
    "effect_value": 3,
    "turns_left": 2,
    "skill": "Overdrive",
    "uses_left": None,
}
OVERRIDES: dict[str, dict[str, Any]] = {
    "gd.StatusExpired": {"reason": "recovered"},
    "gd.DefenceResolved": {"hit": True},
}
OWN = frozenset({"at", "by"})


def _built(cls: type[DomainEvent]) -> DomainEvent:
    required = [n for n, f in cls.model_fields.items() if f.is_required() and n not in OWN]
    unknown = [n for n in required if n not in SAMPLES]
    assert not unknown, f"add samples for {cls.event_type}: {unknown}"
    data = {n: SAMPLES[n] for n in required} | OVERRIDES.get(cls.event_type, {})
    return cls.model_validate({"at": AT, "by": "gm", **data})


def _all_none(cls: type[DomainEvent]) -> DomainEvent:
    fields = {n: None for n in cls.model_fields if n not in OWN}
    return cls.model_construct(at=AT, by="gm", **fields)


def _bare(cls: type[DomainEvent]) -> DomainEvent:
    # Required fields left unset: `field()` reads them as None, as for an older shape.
    return cls.model_construct(at=AT, by="gm")


@pytest.mark.parametrize("build", [_built, _all_none, _bare], ids=["built", "none", "bare"])
@pytest.mark.parametrize("cls", UNSUMMARISED, ids=lambda cls: cls.event_type)
def test_a_line_never_raises_on_a_minimal_fact(cls: type[DomainEvent], build: Any) -> None:
    event = build(cls)

    en, ja = render(event)

    assert not _fell_back(event, (en, ja))
    assert _reads_as_english(en), en
    assert JAPANESE.search(ja), ja
    assert "None" not in en + ja


def _fact(event_type: str, **fields: Any) -> DomainEvent:
    cls = next(c for c in EVENTS if c.event_type == event_type)
    return cls.model_validate({"at": AT, "by": "gm", **fields})


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            _fact(
                "gd.ReactionDeclared",
                combatant="bolt",
                reaction="intercept",
                instead_of="ace",
                guard=True,
            ),
            (
                "bolt intercepts the attack on ace, guarding",
                "boltが射線の妨害：aceへの攻撃を代わりに受ける（防御）",
            ),
        ),
        (
            _fact("gd.GuardCostPaid", combatant="bolt", cost=5, hp=395),
            ("bolt paid 5 HP to guard; HP now 395", "boltが防御のため生命5を消費（生命395）"),
        ),
        (
            _fact(
                "gd.AttackDeclared",
                attacker="ace",
                weapon="crate",
                attack_type="physical",
                reach="ranged",
                attack=30,
                hit=40,
                defenders=["grunt"],
                means="thrown",
            ),
            (
                "ace attacked grunt throwing crate (ranged hit 40, physical attack 30)",
                "aceがcrateの投擲でgruntを攻撃（射撃命中40、物理攻撃30）",
            ),
        ),
        (
            _fact("gd.SkillUsed", combatant="ace", skill="Overdrive", uses_left=1, hp=360),
            (
                "ace used Overdrive (1 use left; HP 360)",
                "aceが《Overdrive》を使用（残り使用回数1、生命360）",
            ),
        ),
        (
            _fact("gd.StatusExpired", combatant="ace", status="poison", reason="duration_ended"),
            (
                "ace's poison ended: its duration ran out",
                "aceの変調「poison」の効果時間が終了し回復",
            ),
        ),
        (
            _fact("gd.ItemLent", lender="ace", borrower="bolt", item="medkit"),
            (
                "ace lent medkit to bolt; both spent their action step",
                "aceがboltにmedkitを貸与（双方がメイン行動ステップを消費）",
            ),
        ),
    ],
    ids=["intercept", "guard-cost", "thrown", "skill", "status-ended", "lent"],
)
def test_facts_beyond_the_fight_read_right(event: DomainEvent, expected: Line) -> None:
    assert render(event) == expected
