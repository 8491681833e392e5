"""Dodge (回避): the reaction-step contest of GD-REACT-1."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from domain.rules.glorious_drive.draws import checked_face
from domain.rules.outcome import Decision, DieRoll


class DodgeResult(BaseModel):
    """Both totals of the contest and whether the defender got away."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hit: int
    hit_die: int
    hit_total: int
    evasion: int
    evasion_die: int
    evasion_total: int
    dodged: bool

    def decision(self) -> Decision:
        """The ruling: GD-REACT-1."""
        verdict_en = "dodged" if self.dodged else "hit"
        verdict_ja = "回避成功" if self.dodged else "命中"
        return Decision(
            rule_ids=("GD-REACT-1",),
            inputs={"hit": self.hit, "evasion": self.evasion},
            outcome={
                "hit_total": self.hit_total,
                "evasion_total": self.evasion_total,
                "dodged": self.dodged,
            },
            dice=(
                DieRoll(sides=100, face=self.hit_die, purpose="GD-REACT-1 hit"),
                DieRoll(sides=100, face=self.evasion_die, purpose="GD-REACT-1 evasion"),
            ),
            summary_en=f"hit {self.hit}+{self.hit_die}={self.hit_total} vs evasion "
            f"{self.evasion}+{self.evasion_die}={self.evasion_total}: {verdict_en}",
            summary_ja=f"命中{self.hit}+{self.hit_die}={self.hit_total} 対 回避"
            f"{self.evasion}+{self.evasion_die}={self.evasion_total}：{verdict_ja}",
        )


def resolve_dodge(hit: int, hit_die: int, evasion: int, evasion_die: int) -> DodgeResult:
    """GD-REACT-1: `evasion + 1D100` must be strictly higher than `hit + 1D100`.

    A tie goes to the attacker (同値…は攻撃側の成功). `hit` is melee or ranged accuracy
    by weapon; for an area attack (GD-REACT-6) the attacker's one roll meets each dodge.
    """
    checked_face(hit_die, 100, "GD-REACT-1")
    checked_face(evasion_die, 100, "GD-REACT-1")
    hit_total = hit + hit_die
    evasion_total = evasion + evasion_die
    return DodgeResult(
        hit=hit,
        hit_die=hit_die,
        hit_total=hit_total,
        evasion=evasion,
        evasion_die=evasion_die,
        evasion_total=evasion_total,
        dodged=evasion_total > hit_total,
    )
