"""Every phase a Wizardry-style round reports (WZ-1..WZ-10), named for the table.

The Japanese names are the seed's (①〔遭遇フェイズ〕..⑩〔終了フェイズ〕); over is no phase of
the seed's round (domain/rules/ruleset.py names it). Keyed by `Phase` (state.py): a test checks
that each has its names. The procedure's step is no id but a description of the inning under
way (procedure.py: "inning INI 14: fighter, goblin"), shown as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from domain.rules.ruleset import OVER, Labels

PHASE_LABELS: Mapping[str, Labels] = MappingProxyType(
    {
        "encounter": Labels(en="encounter", ja="遭遇フェイズ"),
        "combat_start": Labels(en="combat start", ja="戦闘開始フェイズ"),
        "fatigue": Labels(en="fatigue", ja="疲労フェイズ"),
        "identification": Labels(en="identification", ja="正体判別フェイズ"),
        "declaration": Labels(en="declaration", ja="行動宣言フェイズ"),
        "strategy": Labels(en="strategy", ja="兵法フェイズ"),
        "initiative": Labels(en="initiative", ja="イニシアチブ・フェイズ"),
        "action": Labels(en="action", ja="アクション・フェイズ"),
        "recovery": Labels(en="recovery", ja="回復フェイズ"),
        "end": Labels(en="end", ja="終了フェイズ"),
        "over": OVER,
    }
)
