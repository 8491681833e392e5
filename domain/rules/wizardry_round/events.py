"""WZ facts inside an encounter: past tense, each with the values it leaves behind.

Replaying the log never re-runs a rule: the ruling recorded just before an event says which
rule produced it and from what. Each event also reads as a line of the encounter log, in
English and Japanese, so a table can follow the fight without decoding the fields.
"""

from __future__ import annotations

from typing import Literal

from domain.events import DomainEvent, registry, sample
from domain.rules.wizardry_round.state import CheckKind, Form, Inning, Phase

Fallback = Literal[
    "defensive_stance", "combat_move", "normal_move", "rest", "stand_up", "surrender"
]


class Logged(DomainEvent):
    """A WZ fact that reads as a line of the encounter log, in English and Japanese."""

    summary_en: str
    summary_ja: str


class SurpriseResolved(Logged):
    """WZ-1: the GM's ruling on surprise is recorded; round 1 may begin."""

    model_config = sample(surprising=("goblin",), note="the goblins lay in wait")

    event_type = "wz.SurpriseResolved"
    surprising: tuple[str, ...]
    note: str


class PhaseEntered(Logged):
    """WZ-1..10: the round `round` enters `phase`."""

    model_config = sample(round=1, phase="combat_start")

    event_type = "wz.PhaseEntered"
    round: int
    phase: Phase


class CombatStarted(Logged):
    """WZ-2: a character readies a weapon and starts combat (its Strategy level is noted)."""

    model_config = sample(combatant="fighter", weapon="sword", strategy=2)

    event_type = "wz.CombatStarted"
    combatant: str
    weapon: str | None
    strategy: int


class TpGained(Logged):
    """WZ-2 / WZ-6 / WZ-7: a TP pool gains `gain`; `tp` is the pool after."""

    model_config = sample(pool="pc", gain=2, tp=3, rule_id="WZ-2")

    event_type = "wz.TpGained"
    pool: str
    gain: int
    tp: int
    rule_id: str


class FatigueChanged(Logged):
    """WZ-3: a character's fatigue step and penalties after this round's fatigue phase."""

    model_config = sample(combatant="mage", step=2, die_penalty=4, ac_penalty=4, collapsed=False)

    event_type = "wz.FatigueChanged"
    combatant: str
    step: int
    die_penalty: int
    ac_penalty: int
    collapsed: bool


class IdentificationNamed(Logged):
    """WZ-4: the GM names the creature, the difficulty and the academic skill."""

    model_config = sample(target="ogre", difficulty=12, skill="monster lore")

    event_type = "wz.IdentificationNamed"
    target: str
    difficulty: int
    skill: str


class CheckRolled(Logged):
    """A check rolled by expression, fatigue die penalty included; the GM rules next."""

    model_config = sample(
        combatant="mage",
        kind="action",
        expression="1D20+3",
        faces=(10,),
        fatigue_penalty=2,
        total=15,
        roll_seqs=(4,),
    )

    event_type = "wz.CheckRolled"
    combatant: str
    kind: CheckKind
    expression: str
    faces: tuple[int, ...]
    fatigue_penalty: int
    total: int
    roll_seqs: tuple[int, ...]


class CheckRuled(Logged):
    """The GM's ruling on the pending check: success (if it has one) and what came of it."""

    model_config = sample(combatant="mage", success=True, outcome="the goblin falls asleep")

    event_type = "wz.CheckRuled"
    combatant: str
    success: bool | None
    outcome: str


class ActionDeclared(Logged):
    """WZ-5: a character's declared actions and the INI it will act at."""

    model_config = sample(
        combatant="fighter",
        form="a",
        sub="combat move",
        main="attack",
        passive="shield",
        full=None,
        free=("shout",),
        two_handed_attack=False,
        ini=15,
    )

    event_type = "wz.ActionDeclared"
    combatant: str
    form: Form
    sub: str | None
    main: str | None
    passive: str | None
    full: str | None
    free: tuple[str, ...]
    two_handed_attack: bool
    ini: int


class FormationDeclared(Logged):
    """WZ-6: a Formation declared, paid from a TP pool; `tp` is the pool after."""

    model_config = sample(combatant="fighter", formation="wedge", pool="pc", cost=2, tp=1)

    event_type = "wz.FormationDeclared"
    combatant: str
    formation: str
    pool: str
    cost: int
    tp: int


class InitiativeRolled(Logged):
    """WZ-7: both 1d10s, the difference added to the enemies' INI, and the innings."""

    model_config = sample(
        pc_die=4,
        gm_die=7,
        difference=3,
        innings=({"ini": 14, "members": ("fighter", "goblin")}, {"ini": 13, "members": ("mage",)}),
    )

    event_type = "wz.InitiativeRolled"
    pc_die: int
    gm_die: int
    difference: int
    innings: tuple[Inning, ...]


class ActionTaken(Logged):
    """WZ-8: a character carried out its declaration in its inning."""

    model_config = sample(combatant="fighter", ini=14, note="strikes the goblin")

    event_type = "wz.ActionTaken"
    combatant: str
    ini: int
    note: str


class DeclarationDropped(Logged):
    """WZ-8 (A)–(F): the declaration dropped for a fallback, spending sub + main."""

    model_config = sample(
        combatant="ogre",
        ini=11,
        fallback="defensive_stance",
        passive_kept=False,
    )

    event_type = "wz.DeclarationDropped"
    combatant: str
    ini: int
    fallback: Fallback
    passive_kept: bool


class InningEnded(Logged):
    """WZ-8: every member of the inning at `ini` has acted."""

    model_config = sample(ini=14)

    event_type = "wz.InningEnded"
    ini: int


registry.register(
    SurpriseResolved,
    PhaseEntered,
    CombatStarted,
    TpGained,
    FatigueChanged,
    IdentificationNamed,
    CheckRolled,
    CheckRuled,
    ActionDeclared,
    FormationDeclared,
    InitiativeRolled,
    ActionTaken,
    DeclarationDropped,
    InningEnded,
)
