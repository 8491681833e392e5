"""Dice you can verify: BCDice-style notation, commit–reveal server dice, hand-entered dice.

Pure: no I/O, no clock, no system randomness; every die comes from the seeds passed in.
"""

from domain.dice.errors import DiceEntryError, DiceSyntaxError
from domain.dice.expression import (
    CompareOp,
    Comparison,
    Constant,
    D66Term,
    DiceExpression,
    DiceTerm,
    Term,
)
from domain.dice.fair import commitment, derive_server_seed, fair_die, verify_commitment
from domain.dice.notation import parse
from domain.dice.results import FAILURE, SUCCESS, Rand, RollResult, TermResult
from domain.dice.roll import Verification, enter_by_hand, roll, verify

__all__ = [
    "FAILURE",
    "SUCCESS",
    "CompareOp",
    "Comparison",
    "Constant",
    "D66Term",
    "DiceEntryError",
    "DiceExpression",
    "DiceSyntaxError",
    "DiceTerm",
    "Rand",
    "RollResult",
    "Term",
    "TermResult",
    "Verification",
    "commitment",
    "derive_server_seed",
    "enter_by_hand",
    "fair_die",
    "parse",
    "roll",
    "verify",
    "verify_commitment",
]
