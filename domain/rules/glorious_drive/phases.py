"""Every phase and step a Glorious Drive turn reports (GD-TURN-1), named for the table.

The Japanese names are the seed's (1.行動順決定フェーズ, 2.メイン行動フェーズ, 2-1..2-5 its
steps); setup and over are no phase of the seed's turn (domain/rules/ruleset.py names them).
Keyed by `Phase` and `Step` (state.py): a test checks that each of them has its names.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from domain.rules.ruleset import OVER, SETUP, Labels

PHASE_LABELS: Mapping[str, Labels] = MappingProxyType(
    {
        "setup": SETUP,
        "initiative": Labels(en="initiative", ja="行動順決定フェーズ"),
        "main_action": Labels(en="main action", ja="メイン行動フェーズ"),
        "over": OVER,
        "cleanup": Labels(en="cleanup", ja="クリーンナップステップ"),
        "weapon_swap": Labels(en="weapon swap", ja="武器持ち替えステップ"),
        "move": Labels(en="move", ja="移動ステップ"),
        "action": Labels(en="action", ja="行動ステップ"),
        "reaction": Labels(en="reaction", ja="対抗判定ステップ"),
    }
)
