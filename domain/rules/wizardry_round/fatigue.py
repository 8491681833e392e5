"""WZ-3 fatigue: penalties by rounds elapsed, with k = endurance − Fatigue level.

At `k` rounds the die and AC take +2; at `2k`, +4 each; every further `k`, the die +2 more
(AC held at +4 under WZ-3a `hold`, the default; rising too under `rise`). At a die penalty of
+10 the character collapses. WZ-3c: rounds elapsed are the rounds completed before this
round's fatigue phase: the seed counts them as they 'reach' k, and none has elapsed when
round 1 begins.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from domain.rules.outcome import Decision
from domain.rules.wizardry_round.options import WizardryRoundOptions

STEP = 2
SECOND_STEP_AC = 4
COLLAPSE_AT = 10


class Fatigue(BaseModel):
    """A character's fatigue after `elapsed` rounds: step, penalties, collapse."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    interval: int
    elapsed: int
    step: int
    die_penalty: int
    ac_penalty: int
    collapsed: bool

    def decision(self, who: str, options: WizardryRoundOptions) -> Decision:
        fell = " and collapses" if self.collapsed else ""
        return Decision(
            rule_ids=("WZ-3", "WZ-3a", "WZ-3b", "WZ-3c"),
            inputs={"combatant": who, "interval": self.interval, "elapsed": self.elapsed},
            outcome={
                "step": self.step,
                "die_penalty": self.die_penalty,
                "ac_penalty": self.ac_penalty,
                "collapsed": self.collapsed,
            },
            options={
                "fatigue_ac_after_second": options.fatigue_ac_after_second,
                "nonpositive_fatigue_interval": options.nonpositive_fatigue_interval,
            },
            summary_en=f"{who} fatigue after {self.elapsed} round{'s' * (self.elapsed != 1)} "
            f"(k={self.interval}): "
            f"die +{self.die_penalty}, AC +{self.ac_penalty}{fell}",
            summary_ja=f"{who}の疲労（経過{self.elapsed}ラウンド、k={self.interval}）："
            f"ダイス目+{self.die_penalty}、AC+{self.ac_penalty}"
            + ("、行動不能" if self.collapsed else ""),
        )


def fatigue(
    endurance: int, fatigue_level: int, elapsed: int, options: WizardryRoundOptions
) -> Fatigue:
    """WZ-3 / WZ-3a / WZ-3b: the penalties after `elapsed` rounds (WZ-3c: completed ones)."""
    k = endurance - fatigue_level
    if k <= 0 and options.nonpositive_fatigue_interval == "collapse":
        # Read literally, 0 rounds already 'reach' k, 2k and every further k: all at once.
        die = COLLAPSE_AT
        return _level(k, elapsed, COLLAPSE_AT // STEP, die, _ac(die, options))
    k = max(k, 1)
    step = min(elapsed // k, COLLAPSE_AT // STEP)
    die = STEP * step
    return _level(k, elapsed, step, die, _ac(die, options))


def _ac(die: int, options: WizardryRoundOptions) -> int:
    if options.fatigue_ac_after_second == "hold":
        return min(die, SECOND_STEP_AC)
    return die


def _level(k: int, elapsed: int, step: int, die: int, ac: int) -> Fatigue:
    return Fatigue(
        interval=k,
        elapsed=elapsed,
        step=step,
        die_penalty=die,
        ac_penalty=ac,
        collapsed=die >= COLLAPSE_AT,
    )
