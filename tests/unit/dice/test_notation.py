"""Dice notation: what tables type, what we refuse and how we say so."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.dice import (
    Comparison,
    Constant,
    D66Term,
    DiceExpression,
    DiceSyntaxError,
    DiceTerm,
    parse,
)
from domain.dice.expression import COMPARE_OPS, MAX_MODIFIER

ACCEPTED = [
    # (typed, canonical, terms, comparison)
    ("1D100", "1D100", (DiceTerm(1, 100),), None),
    ("2D6", "2D6", (DiceTerm(2, 6),), None),
    ("D6", "1D6", (DiceTerm(1, 6),), None),
    ("d6", "1D6", (DiceTerm(1, 6),), None),
    ("2d6+3", "2D6+3", (DiceTerm(2, 6), Constant(3)), None),
    ("1D6+1D4-2", "1D6+1D4-2", (DiceTerm(1, 6), DiceTerm(1, 4), Constant(-2)), None),
    ("1D6-1D4", "1D6-1D4", (DiceTerm(1, 6), DiceTerm(1, 4, negative=True)), None),
    ("D66", "D66", (D66Term(),), None),
    ("d66", "D66", (D66Term(),), None),
    ("D66+1", "D66+1", (D66Term(), Constant(1)), None),
    ("1D66", "1D66", (DiceTerm(1, 66),), None),  # a 66-sided die, as in BCDice
    ("1D6>=5", "1D6>=5", (DiceTerm(1, 6),), Comparison(">=", 5)),
    ("3D6<=10", "3D6<=10", (DiceTerm(3, 6),), Comparison("<=", 10)),
    ("1D100<=65", "1D100<=65", (DiceTerm(1, 100),), Comparison("<=", 65)),
    ("2D6>7", "2D6>7", (DiceTerm(2, 6),), Comparison(">", 7)),
    ("2D6<7", "2D6<7", (DiceTerm(2, 6),), Comparison("<", 7)),
    ("2D6=7", "2D6=7", (DiceTerm(2, 6),), Comparison("=", 7)),
    ("2D6<>7", "2D6<>7", (DiceTerm(2, 6),), Comparison("<>", 7)),
    ("1D6-10>=-5", "1D6-10>=-5", (DiceTerm(1, 6), Constant(-10)), Comparison(">=", -5)),
    ("２Ｄ６＋３＞＝１０", "2D6+3>=10", (DiceTerm(2, 6), Constant(3)), Comparison(">=", 10)),
    ("１Ｄ１００＜＝６５", "1D100<=65", (DiceTerm(1, 100),), Comparison("<=", 65)),
    ("ｄ６６", "D66", (D66Term(),), None),
    ("２ｄ６＜＞７", "2D6<>7", (DiceTerm(2, 6),), Comparison("<>", 7)),
    ("2D6－1", "2D6-1", (DiceTerm(2, 6), Constant(-1)), None),
    ("1D100≦65", "1D100<=65", (DiceTerm(1, 100),), Comparison("<=", 65)),
    ("2D6≧10", "2D6>=10", (DiceTerm(2, 6),), Comparison(">=", 10)),
    ("50+1D100>=100", "50+1D100>=100", (Constant(50), DiceTerm(1, 100)), Comparison(">=", 100)),
    ("-22+1D100", "-22+1D100", (Constant(-22), DiceTerm(1, 100)), None),
    ("-1D6", "-1D6", (DiceTerm(1, 6, negative=True),), None),
    ("01D06", "1D6", (DiceTerm(1, 6),), None),
    ("200D6", "200D6", (DiceTerm(200, 6),), None),
    ("1D10000", "1D10000", (DiceTerm(1, 10000),), None),
    ("1D2", "1D2", (DiceTerm(1, 2),), None),
    ("1D6+1000000", "1D6+1000000", (DiceTerm(1, 6), Constant(MAX_MODIFIER)), None),
]


@pytest.mark.parametrize(("typed", "canonical", "terms", "comparison"), ACCEPTED)
def test_accepts_the_notations_tables_type(
    typed: str, canonical: str, terms: tuple[object, ...], comparison: Comparison | None
) -> None:
    expression = parse(typed)
    assert expression.terms == terms
    assert expression.comparison == comparison
    assert expression.canonical == canonical
    assert expression.comment == ""


@pytest.mark.parametrize(
    ("typed", "comment"),
    [
        ("2D6+3 攻撃", "攻撃"),
        ("2D6+3　攻撃", "攻撃"),  # a full-width space, as a Japanese keyboard types it
        ("  1D100<=65   回避 判定  ", "回避 判定"),
        ("2D6 +3", "+3"),  # the first whitespace ends the notation, as in BCDice
        ("1D6 ＡＢＣ", "ＡＢＣ"),  # the comment is kept as typed, not folded
    ],
)
def test_everything_after_the_first_whitespace_is_a_kept_comment(typed: str, comment: str) -> None:
    assert parse(typed).comment == comment


def test_the_comment_is_rendered_after_the_canonical_text() -> None:
    assert str(parse("２ｄ６＋３ 攻撃")) == "2D6+3 攻撃"


REJECTED = [
    # (typed, a fragment the message must contain)
    ("", "empty dice expression; write e.g. 2D6+3"),
    ("  　 ", "empty dice expression"),
    ("D", "D: a die needs a number of sides after 'D' at position 1; write e.g. 1D6"),
    ("6D", "at position 2; write e.g. 6D6"),
    ("1D", "a die needs a number of sides"),
    (">=5", ">=5: unexpected '>' at position 0; expected a number or NdX"),
    ("=", "unexpected '=' at position 0"),
    ("1D0", "1D0: a die needs at least 2 sides at position 2; write e.g. 1D6"),
    ("1D1", "a die needs at least 2 sides"),
    ("0D6", "a roll needs at least 1 die at position 0; write e.g. 1D6"),
    ("300D6", "300D6: too many dice (300) at position 0; at most 200 dice per roll"),
    ("150D6+100D6", "too many dice in one roll (250); at most 200 dice per roll"),
    ("199D6+D66", "too many dice in one roll (201)"),  # D66 is two dice
    ("1D10001", "too many sides (10001) at position 2; at most 10000 sides per die"),
    ("2D6++3", "2D6++3: unexpected '+' at position 4; expected a number or NdX"),
    ("２Ｄ６＋＋３", "unexpected '+' at position 4"),  # positions count folded characters
    ("2D6+", "unexpected end of notation at position 4"),
    ("+1D6", "unexpected '+' at position 0"),
    ("1D6>=", "'>=' needs a number to compare with at position 5; write e.g. 1D6>=10"),
    ("1D6>=5>=3", "unexpected '>' at position 6; expected the end"),
    ("1D6=>5", "'=>' is not a comparison at position 3; write 1D6>=5"),
    ("1D6=<5", "write 1D6<=5"),
    ("3", "no dice to roll; write e.g. 1D6+3"),
    ("3+4>=5", "no dice to roll"),
    ("1D6+1000001", "modifier 1000001 is too large at position 4"),
    ("1D6>=1000001", "target 1000001 is too large"),
    ("abc", "unexpected 'a' at position 0"),
    ("2D6攻撃", "unexpected '攻' at position 3; expected '+', '-', a comparison"),
    ("1.5D6", "unexpected '.' at position 1"),
    ("1D6*2", "unexpected '*' at position 3"),
    ("٣D6", "unexpected '٣' at position 0"),  # int() would read it; we do not
    ("1D6" + "+1" * 20, "too many terms at position 41; at most 20 per roll"),
    ("1D6+" + "0" * 197, "notation too long (201 characters); at most 200"),
    ("1D6 " + "x" * 201, "comment too long (201 characters)"),
    ("x" * 1000, "input too long (1000 characters)"),
]


@pytest.mark.parametrize(("typed", "fragment"), REJECTED)
def test_rejects_what_cannot_be_rolled_and_says_what_to_write(typed: str, fragment: str) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse(typed)
    assert fragment in str(caught.value)


def test_a_syntax_error_is_a_value_error_that_knows_where() -> None:
    with pytest.raises(ValueError, match="unexpected") as caught:
        parse("2D6++3")
    error = caught.value
    assert isinstance(error, DiceSyntaxError)
    assert (error.text, error.position, error.hint) == ("2D6++3", 4, "expected a number or NdX")


def test_a_syntax_error_survives_pickling() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("1D0")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert str(copy) == str(caught.value)
    assert copy.position == 2


def test_d66_alone_is_two_dice_but_1d66_is_one() -> None:
    assert parse("D66").die_sides == (6, 6)
    assert parse("1D66").die_sides == (66,)
    assert parse("2D6+D66-1D4").die_sides == (6, 6, 6, 6, 4)


# --- round trip and fuzz ---------------------------------------------------------------------

_dice_terms = st.builds(
    DiceTerm, count=st.integers(1, 10), sides=st.integers(2, 10_000), negative=st.booleans()
)
_terms = st.one_of(
    _dice_terms,
    st.builds(D66Term, negative=st.booleans()),
    st.builds(Constant, st.integers(-MAX_MODIFIER, MAX_MODIFIER)),
)
_comparisons = st.none() | st.builds(
    Comparison, st.sampled_from(COMPARE_OPS), st.integers(-MAX_MODIFIER, MAX_MODIFIER)
)
expressions = st.builds(
    DiceExpression,
    terms=st.lists(_terms, min_size=1, max_size=20)
    .filter(lambda terms: any(term.die_sides for term in terms))
    .map(tuple),
    comparison=_comparisons,
    comment=st.text(max_size=40).map(str.strip),
)


@given(expressions)
def test_canonical_text_parses_back_to_the_same_expression(expression: DiceExpression) -> None:
    assert parse(expression.canonical) == DiceExpression(expression.terms, expression.comparison)
    assert parse(str(expression)) == expression


def _parses_or_explains(text: str) -> None:
    outcome: DiceExpression | DiceSyntaxError
    try:
        outcome = parse(text)
    except DiceSyntaxError as error:  # the one exception allowed; anything else fails the test
        outcome = error
    if isinstance(outcome, DiceSyntaxError):
        assert outcome.problem
    else:
        assert parse(str(outcome)) == outcome


@settings(max_examples=500)
@given(st.text(max_size=500))
def test_any_text_parses_or_raises_dice_syntax_error_only(text: str) -> None:
    _parses_or_explains(text)


_DICE_TOKENS = st.sampled_from(
    ["0", "1", "2", "6", "66", "100", "200", "201", "10000", "10001", "1000001", "D", "d",
     "ｄ", "Ｄ", "６", "+", "-", "＋", "−", ">=", "<=", "<>", ">", "<", "=", "＞＝", "≧", " ",
     "　", "攻撃", "\t", "."]
)  # fmt: skip


@settings(max_examples=500)
@given(st.lists(_DICE_TOKENS, max_size=30).map("".join))
def test_dice_like_text_parses_or_raises_dice_syntax_error_only(text: str) -> None:
    _parses_or_explains(text)


@settings(max_examples=500)
@given(st.text(alphabet="0123456789Dd+-<>= 　", max_size=60))
def test_dice_alphabet_text_parses_or_raises_dice_syntax_error_only(text: str) -> None:
    _parses_or_explains(text)
