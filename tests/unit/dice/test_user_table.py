"""User-defined dice tables read and rolled as BCDice in Ruby does (the build BCDice-API runs):
BCDice's own test data (`test/test_user_defined_dice_table.rb`) ported, then where Senki differs
on purpose (everything checked before the first die; size bounds) and where BCDice's JavaScript
build differs from Ruby (Senki follows Ruby)."""

from __future__ import annotations

from uuid import uuid4

import pytest

from domain.dice.bcdice import roll_server, verify
from domain.dice.bcdice.user_table import (
    MAX_TABLE_CHARS,
    MAX_TABLE_ROWS,
    SYSTEM_ID,
    TableRefused,
    read_table,
)


class Faces:
    """Fixed dice; asking for more than given fails the test (no die may be drawn unseen)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.asked: list[int] = []

    def face(self, index: int, sides: int) -> int:
        self.asked.append(sides)
        return self.faces[index]


def table(title: str, dice: str, rows: list[tuple[int | str, str]]) -> str:
    return "\n".join([title, dice, *(f"{index}:{text}" for index, text in rows)]) + "\n"


TEXT_1D6 = table("テスト表", "1D6", list(enumerate(["いち", "に", "さん", "し", "ご", "ろく"], 1)))
TEXT_3D4 = table(
    "3-4テスト表",
    "3D4",
    list(
        enumerate(
            [
                "さん",
                "し",
                "ご",
                "ろく",
                "なな",
                "はち",
                "きゅう",
                "じゅう",
                "じゅういち",
                "じゅうに",
            ],
            3,
        )
    ),
)
D66_ALL = [t * 10 + o for t in range(1, 7) for o in range(1, 7)]
D66_ASC = [i for i in D66_ALL if i // 10 <= i % 10]
D66_DESC = [i for i in D66_ALL if i // 10 >= i % 10]
SPECIAL = {16: "いちろく", 61: "ろくいち"}


def d66(title: str, dice: str, indexes: list[int]) -> str:
    return table(title, dice, [(i, SPECIAL.get(i, "a")) for i in indexes])


TEXT_D66 = d66("ソートなし表", "D66", D66_ALL)
TEXT_D66A = d66("ソート昇順表", "D66a", D66_ASC)
TEXT_D66D = d66("ソート降順表", "D66d", D66_DESC)


@pytest.mark.parametrize(
    ("text", "faces", "shown"),
    [
        (TEXT_1D6, (1,), "テスト表(1) ＞ いち"),
        (TEXT_1D6, (6,), "テスト表(6) ＞ ろく"),
        (TEXT_3D4, (1, 1, 1), "3-4テスト表(3) ＞ さん"),
        (TEXT_3D4, (4, 4, 4), "3-4テスト表(12) ＞ じゅうに"),
        (TEXT_D66, (1, 6), "ソートなし表(16) ＞ いちろく"),
        (TEXT_D66, (6, 1), "ソートなし表(61) ＞ ろくいち"),
        (TEXT_D66A, (1, 6), "ソート昇順表(16) ＞ いちろく"),
        (TEXT_D66A, (6, 1), "ソート昇順表(16) ＞ いちろく"),
        (TEXT_D66D, (1, 6), "ソート降順表(61) ＞ ろくいち"),
        (TEXT_D66D, (6, 1), "ソート降順表(61) ＞ ろくいち"),
    ],
)
def test_bcdice_rolls_its_test_tables_so(text: str, faces: tuple[int, ...], shown: str) -> None:
    result = read_table(text).roll(Faces(*faces))
    sides = 4 if text == TEXT_3D4 else 6
    assert result.text == shown
    assert [(r.sides, r.value) for r in result.rands] == [(sides, f) for f in faces]


@pytest.mark.parametrize("text", [TEXT_1D6, TEXT_D66, TEXT_D66A, TEXT_D66D, TEXT_3D4])
def test_bcdice_finds_its_test_tables_valid(text: str) -> None:
    read_table(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # test_verify_3d4_miss_rows
        (
            table(
                "抜けありテスト表",
                "3D4",
                [(3, "さん"), (4, "し"), (5, "ご"), (6, "ろく"), (12, "じゅうに")],
            ),
            "3–12",
        ),
        # test_verify_invalid_dice_type
        (table("不正な表", "D100", [(100, "ひゃく")]), "dice line 'D100'"),
        # test_verify_dup_rows
        (
            table(
                "重複あり表",
                "2D4",
                [(2, "a"), (2, "b"), (4, "c"), (5, "d"), (6, "e"), (7, "f"), (8, "g")],
            ),
            "2–8",
        ),
        # test_verify_outrange_row
        (table("範囲外表", "1D4", [(1, "a"), (2, "b"), (3, "c"), (5, "d")]), "1–4"),
        # test_invalid_d66, _d66a, _d66d: the rows of another sort
        (d66("フォーマット確認(D66)", "D66", D66_ASC), "11, 12"),
        (d66("フォーマット確認(D66d)", "D66a", D66_DESC), "11, 12"),
        (d66("フォーマット確認(D66d)", "D66d", D66_ASC), "11, 21"),
    ],
)
def test_bcdice_finds_these_tables_invalid_and_no_die_is_drawn(text: str, why: str) -> None:
    with pytest.raises(TableRefused, match=why):
        read_table(text)


def test_a_row_breaks_lines_at_backslash_n_and_loses_ascii_space_at_its_ends() -> None:
    text = "  表 \r\n\r\n1d2\t\n2: b \n1:\t上\\n下  \n"
    assert read_table(text).roll(Faces(1)).text == "  表(1) ＞ 上\n下"


def test_the_first_of_two_rows_for_one_index_is_shown() -> None:
    assert read_table("t\n1D2\n1:a\n2:b\n1:c").roll(Faces(1)).text == "t(1) ＞ a"


def test_zero_dice_show_index_zero_without_drawing() -> None:
    dice = Faces()
    result = read_table("t\n0D6\n0:なし").roll(dice)
    assert (result.text, result.rands, dice.asked) == ("t(0) ＞ なし", (), [])


def test_a_row_bcdice_could_not_find_refuses_the_table_before_any_die() -> None:
    """BCDice rolls, then fails only when the dice show 1 (it finds rows by `1:`, and `01:` is
    not that); here the table is refused whatever the dice, so the refusal says nothing of them."""
    text = table("t", "1D3", [("01", "a"), (2, "b"), (3, "c")])
    with pytest.raises(TableRefused, match="no row starts with 1:"):
        read_table(text)


def test_huge_numbers_are_read_without_parsing_thousands_of_digits() -> None:
    assert read_table("t\n0D" + "9" * 6000 + "\n0:z").roll(Faces()).text == "t(0) ＞ z"
    with pytest.raises(TableRefused):
        read_table("t\n1D6\n" + "9" * 6000 + ":a")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "a title line, a dice line"),
        ("表だけ\n", "a title line, a dice line"),
        ("t\n1D6\n1 a", "row 1"),
        ("t\n1D6\n" + "1:a\n" * (MAX_TABLE_ROWS + 1), f"at most {MAX_TABLE_ROWS}"),
        ("t\n1D2\n1:" + "a" * MAX_TABLE_CHARS + "\n2:b", f"at most {MAX_TABLE_CHARS}"),
        ("t\n1D2\n1:a\0\n2:b", "NUL"),
        ("t\n1D2\n1:\ud800\n2:b", "surrogate"),
    ],
)
def test_tables_past_the_bounds_or_unreadable_are_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(TableRefused, match=why):
        read_table(text)


# Where BCDice's JavaScript build differs from Ruby, Senki follows Ruby (BCDice-API's build):
# Opal's strip/rstrip trim Unicode spaces (a full-width space 　, U+00A0…) where Ruby trims
# ASCII whitespace only, and Opal splits lines at \r?\n where Ruby splits at any `\R` break.
def test_full_width_spaces_around_a_title_or_row_stay_as_in_ruby() -> None:
    text = "\u3000表\u3000\n1D2\n1:\u3000a\u3000\n2:b"
    assert read_table(text).roll(Faces(1)).text == "\u3000表\u3000(1) ＞ \u3000a\u3000"


@pytest.mark.parametrize("line_break", ["\r", "\v", "\f", "\x85", "\u2028", "\u2029"])
def test_every_ruby_line_break_ends_a_line(line_break: str) -> None:
    text = line_break.join(["表", "1D2", "1:a", "2:b"])
    assert read_table(text).roll(Faces(2)).text == "表(2) ＞ b"


def test_a_table_roll_is_recorded_with_its_text_and_verifies_from_the_seed() -> None:
    seed, stream = b"s" * 32, uuid4()
    rolled = roll_server(
        TEXT_D66A, server_seed=seed, stream_id=stream, roll_seq=3, purpose="表", system=SYSTEM_ID
    )
    assert rolled.command == TEXT_D66A
    assert rolled.text.startswith("ソート昇順表(")
    assert [r.sides for r in rolled.rands] == [6, 6]
    assert verify(rolled, server_seed=seed, stream_id=stream).problems == ()
    # Another row's text, whatever the dice gave: a fixed forgery read the same as the true
    # text once in 36 runs (when the dice were 6 and 6).
    sixteen = "ソート昇順表(16) ＞ いちろく"
    other = "ソート昇順表(11) ＞ a" if rolled.text == sixteen else sixteen
    forged = rolled.model_copy(update={"text": other})
    assert verify(forged, server_seed=seed, stream_id=stream).problems
