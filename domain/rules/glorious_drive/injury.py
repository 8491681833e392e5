"""Injury checks (負傷状態判定): GD-INJ-1..5.

Each check is "a total ≤ a limit"; the limit is also shown as the die faces that injure,
which is how the seed's examples are worded (「1D6で4以下」, 「1～40が出ると重体」).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.draws import Draw, draw_checked
from domain.rules.glorious_drive.options import FaintRule, GloriousDriveOptions
from domain.rules.outcome import Decision, DieRoll

Injury = Literal["none", "faint", "shutdown", "critical", "incapacitated", "dead"]

# Heavier injuries win (GD-INJ: only the heaviest applies). Shutdown is an Assault Core's faint.
_RANKS: tuple[tuple[Injury, ...], ...] = (
    ("none",),
    ("faint", "shutdown"),
    ("critical",),
    ("incapacitated",),
    ("dead",),
)
_SEVERITY: dict[Injury, int] = {i: rank for rank, group in enumerate(_RANKS) for i in group}
_JA: dict[Injury, str] = dict(
    zip(
        ("none", "faint", "shutdown", "critical", "incapacitated", "dead"),
        ("負傷なし", "気絶", "機能停止", "重体", "再起不能", "死亡"),
        strict=True,
    )
)


class InjuryCheck(BaseModel):
    """One check made: its rule, die, total, and the limit the total had to reach."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str
    injury: Injury
    die: DieRoll
    total: int
    limit: int
    injures_on_or_below: int
    injured: bool

    def record(self) -> dict[str, int | str | bool | None]:
        """GD-INJ: the check as a flat record for the ruling (the die as its face)."""
        return {**self.model_dump(exclude={"die"}), "face": self.die.face}


class InjuryResult(BaseModel):
    """The checks made after damage, in order, and the single heaviest injury."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hp: int
    max_hp: int
    resistance: int
    is_assault_core: bool
    faint_rule: FaintRule
    checks: tuple[InjuryCheck, ...]
    injury: Injury

    def decision(self) -> Decision:
        """The ruling: the GD-INJ rule of every check made."""
        made = ", ".join(
            f"{c.rule_id} {c.die.face}≤{c.injures_on_or_below}? {c.injured}" for c in self.checks
        )
        return Decision(
            rule_ids=tuple(c.rule_id for c in self.checks) or ("GD-INJ-1",),
            inputs=self.model_dump(include={"hp", "max_hp", "resistance", "is_assault_core"}),
            outcome={"injury": self.injury, "checks": tuple(c.record() for c in self.checks)},
            dice=tuple(c.die for c in self.checks),
            options={"faint_rule": self.faint_rule},
            summary_en=f"HP {self.hp}/{self.max_hp}: {made or 'no check'} → {self.injury}",
            summary_ja=f"生命{self.hp}/{self.max_hp}：{_JA[self.injury]}",
        )


class FaintRecovery(BaseModel):
    """The cleanup-step recovery check of a fainted character (none for an Assault Core)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: InjuryCheck | None
    recovered: bool


def heaviest(*injuries: Injury) -> Injury:
    """GD-INJ: of several injuries only the heaviest applies."""
    return max(injuries, key=_SEVERITY.__getitem__, default="none")


def resolve_injuries(
    hp: int,
    max_hp: int,
    resistance: int,
    *,
    is_assault_core: bool,
    draw: Draw,
    options: GloriousDriveOptions,
) -> InjuryResult:
    """GD-INJ-1..5: run faint → critical → incapacitated → death as far as HP reaches.

    Only checks whose HP condition holds draw a die. An Assault Core makes the faint check
    as "shutdown" and no other (GD-INJ-2..4 do not exist for it). Enemies are no different
    (GD-INJ-5). Call after damage was taken; HP above −1 makes no check.
    """
    if max_hp < 1:
        raise RuleViolation(
            "GD-INJ-3",
            f"max HP must be at least 1, not {max_hp}",
            ja=f"最大生命は1以上です（{max_hp} ではなく）",
        )
    checks = [
        _make_check(spec, hp, resistance, draw)
        for spec in _specs(max_hp, options.faint_rule, is_assault_core)
        if hp <= spec.applies_at_or_below  # only checks whose HP condition holds roll
    ]
    worst = heaviest(*(c.injury for c in checks if c.injured))
    return InjuryResult(
        hp=hp,
        max_hp=max_hp,
        resistance=resistance,
        is_assault_core=is_assault_core,
        faint_rule=options.faint_rule,
        checks=tuple(checks),
        injury=worst,
    )


def faint_recovers(
    hp: int,
    resistance: int,
    *,
    is_assault_core: bool,
    draw: Draw,
    options: GloriousDriveOptions,
) -> FaintRecovery:
    """GD-INJ-1 / GD-MAIN-2: a fainted character repeats the faint check at cleanup.

    It recovers when the check no longer says "faint". An Assault Core's shutdown does not
    recover within the scenario, so no die is drawn for it.
    """
    if is_assault_core:
        return FaintRecovery(check=None, recovered=False)
    spec = _faint_spec(options.faint_rule, "faint")
    check = _make_check(spec, hp, resistance, draw)
    return FaintRecovery(check=check, recovered=not check.injured)


class _Spec(NamedTuple):
    rule_id: str
    injury: Injury
    sides: int
    applies_at_or_below: int  # the rule's HP condition (条件)
    limit: int  # injured when the checked total is at or below this
    adds_resistance: bool


def _faint_spec(rule: FaintRule, injury: Injury) -> _Spec:
    # GD-INJ-1a: "example" faints on a total ≤ −1; "text" (「-1未満」) on < −1, i.e. ≤ −2.
    return _Spec("GD-INJ-1", injury, 6, -1, -1 if rule == "example" else -2, True)


def _specs(max_hp: int, rule: FaintRule, is_assault_core: bool) -> list[_Spec]:
    if is_assault_core:
        return [_faint_spec(rule, "shutdown")]
    # GD-INJ-3/4: the seed's examples (−110 → 1–9, −202 → 1) fix "< −max_hp" and
    # "< −2×max_hp", which its wording alone leaves ambiguous.
    return [
        _faint_spec(rule, "faint"),
        _Spec("GD-INJ-2", "critical", 100, -21, -21, False),
        _Spec("GD-INJ-3", "incapacitated", 100, -max_hp, -max_hp - 1, False),
        _Spec("GD-INJ-4", "dead", 100, -2 * max_hp, -2 * max_hp - 1, False),
    ]


def _make_check(spec: _Spec, hp: int, resistance: int, draw: Draw) -> InjuryCheck:
    die = draw_checked(draw, spec.sides, f"{spec.rule_id} {spec.injury}", spec.rule_id)
    base = hp + (resistance if spec.adds_resistance else 0)
    total = base + die.face
    return InjuryCheck(
        rule_id=spec.rule_id,
        injury=spec.injury,
        die=die,
        total=total,
        limit=spec.limit,
        injures_on_or_below=spec.limit - base,
        injured=total <= spec.limit,
    )
