"""BCDice's base system as a player types it: given these faces, then BCDice's text and flags."""

from __future__ import annotations

import uuid

import pytest

from domain.dice.bcdice import DiceRefused, HandFaceError, HandFaces, ServerFaces, evaluate
from domain.dice.fair import fair_die
from tests.unit.dice.bcdice_commands import KINDS, CommandMaker


class Fixed:
    def __init__(self, *faces: int) -> None:
        self.faces = faces

    def face(self, index: int, sides: int) -> int:
        return self.faces[index]


@pytest.mark.parametrize(
    ("command", "faces", "text"),
    [
        ("2D6+3>=10 攻撃", (3, 4), "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"),
        ("1D100<=50", (51,), "(1D100<=50) ＞ 51 ＞ 失敗"),
        ("(2+3)D6-1", (1, 2, 3, 4, 5), "(5D6-1) ＞ 15[1,2,3,4,5]-1 ＞ 14"),
        ("3D6/2U", (1, 2, 4), "(3D6/2U) ＞ 7[1,2,4]/2U ＞ 4"),
        ("1D100/10R", (55,), "(1D100/10R) ＞ 55[55]/10R ＞ 6"),
        ("5D10KH3", (8, 3, 2, 5, 8), "(5D10KH3) ＞ 21[2,3,5,8,8] ＞ 21"),
        ("2B6+3B8>=4", (3, 4, 7, 1, 5), "(2B6+3B8>=4) ＞ 3,4,7,1,5 ＞ 成功数3"),
        ("2R6[5]>=5", (5, 1, 6, 2), "(2R6[5]>=5) ＞ 5,1 + 6 + 2 ＞ 成功数2"),
        ("2U6>=10@6", (6, 5, 2), "(2U6[6]>=10) ＞ 11[6,5],2 ＞ 成功数1"),
        ("D66", (6, 1), "(D66) ＞ 61"),
        ("D66A", (6, 1), "(D66A) ＞ 16"),
        ("C(10-4*3/2+2)", (), "c(10-4*3/2+2) ＞ 6"),
        ("choice[赤,青,緑]", (2,), "(choice[赤,青,緑]) ＞ 青"),
        ("choice[A-C]", (3,), "(choice[A,B,C]) ＞ C"),
        ("x2 1D6", (2, 5), "#1\n(1D6) ＞ 2\n\n#2\n(1D6) ＞ 5"),
        ("5TZ4", (1, 1, 4, 2, 4), "(5TZ4) ＞ 1,1,4,2,4 ＞ [1]×2, [2]×1, [3]×0, [4]×2"),
    ],
)
def test_a_command_reads_as_bcdice_writes_it(
    command: str, faces: tuple[int, ...], text: str
) -> None:
    result = evaluate(command, Fixed(*faces))
    assert result is not None
    assert result.text == text
    assert [rand.value for rand in result.rands] == list(faces)


def test_a_comparison_sets_success_or_failure_and_s_makes_a_secret_roll() -> None:
    hit = evaluate("S2D6>=7", Fixed(3, 4))
    assert hit is not None
    assert (hit.success, hit.failure, hit.secret, hit.total) == (
        True,
        False,
        True,
        7,
    )
    miss = evaluate("2D6>=8", Fixed(3, 4))
    assert miss is not None
    assert (miss.success, miss.failure, miss.secret) == (False, True, False)


@pytest.mark.parametrize(
    "chat", ["こんにちは", "2D6もけけ", "134", "1+2*3/4", "2D6>", "choice[abc]", ""]
)
def test_plain_chat_is_not_a_command(chat: str) -> None:
    assert evaluate(chat, Fixed()) is None


def test_bcdice_limits_are_kept_and_what_bcdice_cannot_do_is_refused() -> None:
    assert evaluate("201D6", Fixed()) is not None  # BCDice rolls no dice for so many: 0
    with pytest.raises(DiceRefused, match="too many dice"):
        evaluate("20000D6", Fixed())
    with pytest.raises(DiceRefused, match="nest"):
        evaluate("(" * 30 + "1" + ")" * 30 + "D6", Fixed())
    with pytest.raises(DiceRefused, match="divides by zero"):
        evaluate("2B6>=1/0", Fixed(1, 1))
    with pytest.raises(DiceRefused, match="too long"):
        evaluate("1D6 " + "x" * 3000, Fixed(1))


def test_hand_faces_name_the_die_they_do_not_fit() -> None:
    with pytest.raises(HandFaceError, match=r"die 2 is a d6 and cannot show 7"):
        evaluate("2D6", HandFaces([3, 7]))
    with pytest.raises(HandFaceError, match=r"die 3 \(a d6\) has no face"):
        evaluate("2R6>=5", HandFaces([5, 6]))  # two rerolls were earned, one face short


def test_server_dice_are_the_fair_dice_of_the_seed_in_rolling_order() -> None:
    seed, stream = bytes(32), uuid.UUID(int=7)
    result = evaluate("3R6>=4", ServerFaces(seed, stream, 2, "aoi"))
    assert result is not None
    assert [r.value for r in result.rands] == [
        fair_die(seed, stream, 2, index, r.sides, "aoi") for index, r in enumerate(result.rands)
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_faces_by_hand_give_the_same_roll_as_the_server(kind: str) -> None:
    """Every face source is equal before the evaluator: server dice re-entered by hand, in
    rolling order, give the same text, flags and dice, and no face is left over or missing."""
    maker = CommandMaker(seed=len(kind))
    seed, stream = bytes(range(32)), uuid.UUID(int=17)
    for seq in range(40):
        command = maker.make(kind)
        try:
            served = evaluate(command, ServerFaces(seed, stream, seq, None))
        except DiceRefused:
            continue
        if served is None:
            continue
        hand = HandFaces([rand.value for rand in served.rands])
        again = evaluate(command, hand)
        hand.check_all_used(len(served.rands))
        assert again == served, command
