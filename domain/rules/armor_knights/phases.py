"""Every phase and step an Armor Knights turn reports (AK-TURN-1), named for the table.

Keyed by `Phase` and `ProcedureStep` (state.py): a test checks that each has its names. The
seed names no phase of its own: it speaks of 自分のフェイズ and 相手フェイズ (a side's phase, seen
from that side), of a check under way as 判定（動作）中 and of a move under way as 移動中, which
the names below follow; the first-move roll is the digest's 先攻決定判定 (AK-TURN-2), and setup
and over are no part of the seed's turn (domain/rules/ruleset.py names them).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from domain.rules.ruleset import OVER, SETUP, Labels

PHASE_LABELS: Mapping[str, Labels] = MappingProxyType(
    {
        "setup": SETUP,
        "first_move": Labels(en="first move", ja="先攻決定"),
        "phase": Labels(en="side's phase", ja="手番のフェイズ"),
        "over": OVER,
        "check": Labels(en="check", ja="判定中"),
        "moving": Labels(en="moving", ja="移動中"),
    }
)
