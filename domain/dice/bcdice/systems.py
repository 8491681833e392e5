"""Game systems as BCDice-API lists them: the base `DiceBot` and Senki's three rule systems.

A rule system answers BCDice's common commands and, first, the checks its rules have a player
type at the table, each citing its rule ID (RULES.md):

- Glorious Drive: `GD{stat}>={difficulty}` is a general check, `stat + 1D100 ≥ difficulty`,
  a die of 96–100 a critical success (GD-CHK-1); `GDINI{reaction}` is initiative,
  `reaction + 1D6` (GD-INIT-1).
- Armor Knights: `AKFIRST` is who goes first, 1D6 (AK-TURN-2); `AKOOR{distance}` is the aim
  check for out-of-effective-range fire, 1D6 ≥ 2 + distance in F (AK-OOR-1).
- The Wizardry-style round has no check typed as such (its rolls are the procedure's own).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from domain.dice.bcdice.command import evaluate, rolled
from domain.dice.bcdice.faces import FaceSource, Roller
from domain.dice.bcdice.limits import check_length
from domain.dice.bcdice.result import BcdiceResult

# BCDice's DiceBot command pattern (its common commands' prefixes), as BCDice-API serves it.
COMMON_PATTERN = (
    r"[+\-(]*(\d+|D\d+)|\d+B\d+|\d+T[YZ]\d+|C[+\-(]*\d+|choice|D66|(repeat|rep|x)\d+"
    r"|\d+R\d+|\d+U\d+|BCDiceVersion"
)
DICEBOT_HELP = (
    "3D6+1>=9 ：3d6+1で目標値9以上かの判定\n"
    "1D100<=50 ：D100で50％目標の下方ロールの例\n"
    "3U6[5] ：3d6のダイス目が5以上の場合に振り足しして合計する(上方無限)\n"
    "3B6 ：3d6のダイス目をバラバラのまま出力する（合計しない）\n"
    "10B6>=4 ：10d6を振り4以上のダイス目の個数を数える\n"
    "2R6[>3]>=5 ：2D6のダイス目が3より大きい場合に振り足して、5以上のダイス目の個数を数える\n"
    "(8/2)D(4+6)<=(5*3)：個数・ダイス・達成値には四則演算も使用可能\n"
    "c(10-4*3/2+2)：c(計算式）で計算だけの実行も可能\n"
    "choice[a,b,c]：列挙した要素から一つを選択表示。ランダム攻撃対象決定などに\n"
    "S3d6 ： 各コマンドの先頭に「S」を付けると他人結果の見えないシークレットロール\n"
    "3d6/2 ： ダイス出目を割り算（端数処理はゲームシステム依存）。"
    "切り上げは /2C、四捨五入は /2R、切り捨ては /2F\n"
    "D66 ： D66ダイス。順序はゲームに依存。D66N：そのまま、D66A：昇順、D66D：降順\n"
)

SystemCommand = Callable[[re.Match[str], Roller], BcdiceResult]


@dataclass(frozen=True)
class GameSystem:
    id: str
    name: str
    sort_key: str
    help_message: str
    commands: tuple[tuple[re.Pattern[str], SystemCommand], ...] = ()
    prefixes: tuple[str, ...] = ()

    @property
    def command_pattern(self) -> str:
        return "^S?(" + "|".join((COMMON_PATTERN, *self.prefixes)) + ")"

    def evaluate(self, text: str, source: FaceSource) -> BcdiceResult | None:
        """A system command first (as BCDice's game systems), then the common commands."""
        check_length(text)
        parts = text.split(maxsplit=1)
        word = parts[0].upper() if parts else ""
        secret = word.startswith("S")
        for pattern, command in self.commands:
            match = pattern.fullmatch(word[1:] if secret else word)
            if match is not None:
                result = rolled(source, functools.partial(command, match))
                assert result is not None  # a system command always answers
                return result.model_copy(update={"secret": secret})
        return evaluate(text, source)


def _gd_check(match: re.Match[str], roller: Roller) -> BcdiceResult:
    """GD-CHK-1: stat + 1D100 ≥ difficulty; a die of 96–100 succeeds whatever the difficulty."""
    stat, difficulty = int(match.group(1)), int(match.group(2))
    die = roller.roll_once(100)
    total = stat + die
    critical = die >= 96
    success = critical or total >= difficulty
    outcome = "クリティカル（GD-CHK-1）" if critical else ("成功" if success else "失敗")
    text = f"(GD{stat}>={difficulty}) ＞ {die}[{die}]+{stat} ＞ {total} ＞ {outcome}"
    return BcdiceResult(
        text=text, total=total, success=success, failure=not success, critical=critical
    )


def _gd_initiative(match: re.Match[str], roller: Roller) -> BcdiceResult:
    """GD-INIT-1: reaction + 1D6; higher acts first."""
    reaction = int(match.group(1))
    die = roller.roll_once(6)
    text = f"(GDINI{reaction}) ＞ {die}[{die}]+{reaction} ＞ {die + reaction}（GD-INIT-1）"
    return BcdiceResult(text=text, total=die + reaction)


def _ak_first(match: re.Match[str], roller: Roller) -> BcdiceResult:
    """AK-TURN-2: each side rolls 1D6; the higher takes the first phase."""
    die = roller.roll_once(6)
    return BcdiceResult(text=f"(AKFIRST) ＞ {die}（AK-TURN-2）", total=die)


def _ak_out_of_range(match: re.Match[str], roller: Roller) -> BcdiceResult:
    """AK-OOR-1: the aim check succeeds on 1D6 ≥ 2 + the distance to the target in F."""
    distance = int(match.group(1))
    die = roller.roll_once(6)
    success = die >= 2 + distance
    outcome = "成功" if success else "失敗"
    text = f"(AKOOR{distance}) ＞ 1D6>={2 + distance} ＞ {die} ＞ {outcome}（AK-OOR-1）"
    return BcdiceResult(text=text, total=die, success=success, failure=not success)


_NUMBER = r"(\d{1,6})"
SYSTEMS: tuple[GameSystem, ...] = (
    GameSystem("DiceBot", "DiceBot", "*たいすほつと", DICEBOT_HELP),
    GameSystem(
        "GloriousDrive",
        "グロリアスドライヴ",
        "くろりあすとらいふ",
        "GD{能力値}>={難易度} ：能力値+1D100で難易度以上か。出目96～100はクリティカル（GD-CHK-1）\n"
        "GDINI{反応} ：行動順決定 反応+1D6（GD-INIT-1）\n\n" + DICEBOT_HELP,
        (
            (re.compile(rf"GD{_NUMBER}>={_NUMBER}"), _gd_check),
            (re.compile(rf"GDINI{_NUMBER}"), _gd_initiative),
        ),
        (r"GD\d+>=\d+", r"GDINI\d+"),
    ),
    GameSystem(
        "WizardryRound",
        "ウィザードリィ・ラウンド",
        "うぃさあとりぃらうんと",
        "共通コマンドのみ（ラウンド進行のダイスは戦闘の記録で振られます）\n\n" + DICEBOT_HELP,
    ),
    GameSystem(
        "ArmorKnights",
        "アーマーナイツ",
        "ああまあないつ",
        "AKFIRST ：先攻決定判定 1D6（AK-TURN-2）\n"
        "AKOOR{距離} ：有効射程外射撃の照準 1D6>=2+距離F（AK-OOR-1）\n\n" + DICEBOT_HELP,
        (
            (re.compile("AKFIRST"), _ak_first),
            (re.compile(rf"AKOOR{_NUMBER}"), _ak_out_of_range),
        ),
        (r"AKFIRST", r"AKOOR\d+"),
    ),
)
BY_ID = {system.id: system for system in SYSTEMS}
