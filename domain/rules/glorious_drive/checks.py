"""General checks and status checks: GD-CHK-1/2, GD-MAIN-2, GD-REACT-7."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.draws import checked_face
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.outcome import Decision, DieRoll

CRITICAL_FROM = 96  # GD-CHK-1: a 1D100 of 96–100 succeeds whatever the difficulty.


class CheckResult(BaseModel):
    """A `stat + 1D100 ≥ difficulty` check, critical included."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_ids: tuple[str, ...]
    stat: int
    die: int
    total: int
    difficulty: int
    critical: bool
    success: bool

    def decision(self) -> Decision:
        """The ruling: GD-CHK-1 and the rule the check was made for."""
        crit = " (critical)" if self.critical else ""
        verdict = "success" if self.success else "failure"
        return Decision(
            rule_ids=self.rule_ids,
            inputs={"stat": self.stat, "difficulty": self.difficulty},
            outcome={"total": self.total, "critical": self.critical, "success": self.success},
            dice=(DieRoll(sides=100, face=self.die, purpose=self.rule_ids[-1]),),
            summary_en=f"{self.stat}+{self.die}={self.total} vs {self.difficulty}: {verdict}{crit}",
            summary_ja=f"{self.stat}+{self.die}={self.total}（目標{self.difficulty}）："
            + ("クリティカル" if self.critical else "")
            + ("成功" if self.success else "失敗"),
        )


def general_check(
    stat: int, die: int, difficulty: int, rule_ids: tuple[str, ...] = ("GD-CHK-1",)
) -> CheckResult:
    """GD-CHK-1: success when `stat + 1D100 ≥ difficulty`, or on a critical 96–100."""
    checked_face(die, 100, rule_ids[-1])
    total = stat + die
    critical = die >= CRITICAL_FROM
    return CheckResult(
        rule_ids=rule_ids,
        stat=stat,
        die=die,
        total=total,
        difficulty=difficulty,
        critical=critical,
        success=critical or total >= difficulty,
    )


def status_recovery_check(
    resistance: int, effect_value: int, die: int, *, options: GloriousDriveOptions
) -> CheckResult:
    """GD-MAIN-2 / GD-CHK-2a: cleanup recovery check, `resistance + 1D100 ≥ base + effect`.

    The formula is the digest's interpretation (option `status_recovery_difficulty`); being
    a general check, a critical (GD-CHK-1) also recovers.
    """
    difficulty = options.status_recovery_difficulty + effect_value
    return general_check(resistance, die, difficulty, ("GD-CHK-1", "GD-MAIN-2", "GD-CHK-2a"))


def status_resistance_check(
    resistance: int, die: int, difficulty: int | None, *, options: GloriousDriveOptions
) -> CheckResult:
    """GD-REACT-7 / GD-REACT-7a: resist a status, `resistance + 1D100 ≥ difficulty`.

    The difficulty comes from the skill or the GM; failing both, the campaign's
    `status_resistance_default_difficulty`.
    """
    chosen = difficulty if difficulty is not None else options.status_resistance_default_difficulty
    if chosen is None:
        raise RuleViolation(
            "GD-REACT-7a",
            "no difficulty: the skill or the GM must give one (no default is set)",
            ja="難易度がありません。スキルかGMが決めてください（既定値はありません）",
        )
    return general_check(resistance, die, chosen, ("GD-CHK-1", "GD-REACT-7", "GD-REACT-7a"))
