"""BCDice's command language for its base system (DiceBot), with BCDice's exact result text.

Pure: `evaluate(command, source)` rolls with dice from the `FaceSource` passed in (server dice,
dice typed in by hand, a test's fixed dice) and records every die as BCDice's `rands`.
"""

from domain.dice.bcdice.command import evaluate
from domain.dice.bcdice.faces import FaceSource, HandFaceError, HandFaces, Rand, ServerFaces
from domain.dice.bcdice.limits import DiceRefused
from domain.dice.bcdice.record import (
    NotACommand,
    TableRoll,
    from_legacy,
    roll_by_hand,
    roll_server,
    verify,
)
from domain.dice.bcdice.result import BcdiceResult
from domain.dice.bcdice.simple import BCDICE_VERSION

__all__ = [
    "BCDICE_VERSION",
    "BcdiceResult",
    "DiceRefused",
    "FaceSource",
    "HandFaceError",
    "HandFaces",
    "NotACommand",
    "Rand",
    "ServerFaces",
    "TableRoll",
    "evaluate",
    "from_legacy",
    "roll_by_hand",
    "roll_server",
    "verify",
]
