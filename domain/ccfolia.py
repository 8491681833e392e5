"""CCFolia clipboard JSON (the format Japanese table tools exchange) to and from a GD sheet.

Pure mapping, no I/O. Export uses the Japanese stat labels of GD-STAT: 生命 is a status with
its max, every other stat a param, so a chat palette can say `1D100+{回避}`. Import is lenient,
because people edit these by hand: numbers or numeric strings (full-width digits too), missing
stats default to 0 and are listed, other tools' labels (HP, 体力…) are read too, unknown
labels are ignored and listed; what cannot be used is named.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from domain.rules.glorious_drive.stats import STAT_KEYS

# GD-STAT: the digest's Japanese label of each stat key.
LABELS: dict[str, str] = dict(
    zip(
        STAT_KEYS,
        (
            *("物理攻撃", "物理防御", "知覚攻撃", "知覚防御", "回避", "白兵命中", "射撃命中"),
            *("移動", "生命", "反応", "操縦", "抵抗", "装備力"),
        ),
        strict=True,
    )
)
HP_LABEL = LABELS["hp"]
LEVEL_LABEL = "レベル"
# Labels other tools and hand-made pieces use for the same stats (CCFolia's own default
# status is HP; 体力・耐久 are common for a body's hit points). Compared after NFKC and
# case folding, so ＨＰ, hp and Hp are one label.
ALIASES: dict[str, str] = {
    "hp": "hp",
    "生命力": "hp",
    "体力": "hp",
    "耐久": "hp",
    "耐久力": "hp",
    "耐久値": "hp",
    "回避力": "evasion",
    "移動力": "move",
    "反応値": "reaction",
    "行動値": "reaction",
    "抵抗力": "resistance",
    "操縦技能": "piloting",
}


def _folded(label: str) -> str:
    return unicodedata.normalize("NFKC", label).strip().casefold()


_KEYS: dict[str, str] = {
    _folded(label): key
    for label, key in ({v: k for k, v in LABELS.items()} | {k: k for k in STAT_KEYS}).items()
} | {_folded(label): key for label, key in ALIASES.items()}
_LEVEL_LABELS = frozenset(_folded(x) for x in (LEVEL_LABEL, "Lv", "level", "レベル"))
DEFAULT_NAME = "名無しのパイロット"

# A chat palette a GD table pastes as is: GD-CHK-1 checks, GD-REACT-1 hit and dodge, GD-INIT-1.
PALETTE = (
    "1D100+{白兵命中} 白兵命中",
    "1D100+{射撃命中} 射撃命中",
    "1D100+{回避} 回避",
    "1D100+{抵抗}>=100 変調回復（難易度100+効果値）",
    "1D100+{抵抗} 抵抗",
    "1D100+{操縦} 操縦判定",
    "1D6+{反応} 行動順",
)


@dataclass(frozen=True)
class SheetForExport:
    """What a CCFolia piece shows: effective stats, HP now and max, a memo and a link."""

    name: str
    level: int
    stats: Mapping[str, int]
    current_hp: int
    max_hp: int
    memo: str = ""
    external_url: str = ""


def to_clipboard(sheet: SheetForExport) -> dict[str, JsonValue]:
    """The clipboard JSON CCFolia pastes as a piece (「駒」)."""
    params: list[JsonValue] = [{"label": LEVEL_LABEL, "value": str(sheet.level)}]
    params += [
        {"label": LABELS[key], "value": str(sheet.stats.get(key, 0))}
        for key in STAT_KEYS
        if key != "hp"
    ]
    return {
        "kind": "character",
        "data": {
            "name": sheet.name,
            "initiative": sheet.stats.get("reaction", 0),
            "externalUrl": sheet.external_url,
            "status": [{"label": HP_LABEL, "value": sheet.current_hp, "max": sheet.max_hp}],
            "params": params,
            "commands": "\n".join(PALETTE),
            "memo": sheet.memo,
            "secret": False,
            "invisible": False,
            "hideStatus": False,
        },
    }


@dataclass(frozen=True)
class ImportedSheet:
    """A sheet read from a clipboard: what registering a character needs."""

    name: str
    level: int
    base_stats: dict[str, int]
    current_hp: int | None
    ignored: tuple[str, ...] = ()
    defaulted: tuple[str, ...] = ()  # GD stats the piece did not give, set to 0 (their labels)


class UnusableClipboard(ValueError):
    """Parts of the clipboard that cannot be read; each names where it is and why."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{where}: {why}" for where, why in problems))
        self.problems = problems


def number(value: JsonValue) -> int | None:
    """A whole number from a number or a numeric string ("12", " ＋12 ", "12.0"); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if not isinstance(value, str):
        return None
    text = value.strip().replace("＋", "+").replace("－", "-").replace("−", "-")
    try:
        return int(text)  # int() reads full-width digits as well
    except ValueError:
        pass
    try:
        parsed = float(text)
    except ValueError:
        return None
    return int(parsed) if parsed.is_integer() else None


class _Reader:
    """Collects stats, level and problems while walking the clipboard."""

    def __init__(self) -> None:
        self.stats: dict[str, int] = {}
        self.level: int | None = None
        self.current_hp: int | None = None
        self.ignored: list[str] = []
        self.problems: list[tuple[str, str]] = []

    def entry(self, where: str, entry: JsonValue, *, status: bool) -> None:
        if not isinstance(entry, dict):
            self.problems.append((where, "expected an object with a label and a value"))
            return
        label = entry.get("label")
        label = label.strip() if isinstance(label, str) else ""
        if _folded(label) in _LEVEL_LABELS:
            self.level = self._value(f"{where} {label}", entry.get("value"))
        elif _folded(label) in _KEYS:
            self._stat(where, label, entry, status=status)
        else:
            self.ignored.append(label or where)

    def _stat(
        self, where: str, label: str, entry: Mapping[str, JsonValue], *, status: bool
    ) -> None:
        key = _KEYS[_folded(label)]
        if key == "hp" and status:
            self.current_hp = self._value(f"{where} {label}.value", entry.get("value"))
            if entry.get("max") is None:
                self.stats[key] = self.current_hp if self.current_hp is not None else 0
                return
            found = self._value(f"{where} {label}.max", entry.get("max"))
        else:
            found = self._value(f"{where} {label}", entry.get("value"))
        if found is not None:
            self.stats[key] = found

    def _value(self, where: str, value: JsonValue) -> int | None:
        if value is None or value == "":
            return None
        found = number(value)
        if found is None:
            self.problems.append((where, f"{value!r} is not a whole number"))
        return found


def _entries(reader: _Reader, data: Mapping[str, JsonValue], name: str) -> None:
    entries = data.get(name)
    if entries is None:
        return
    if not isinstance(entries, list):
        reader.problems.append((f"data.{name}", "expected a list of {label, value} objects"))
        return
    for index, entry in enumerate(entries):
        reader.entry(f"data.{name}[{index}]", entry, status=name == "status")


def from_clipboard(clipboard: JsonValue) -> ImportedSheet:
    """Read a pasted CCFolia piece; raise UnusableClipboard naming every unusable part."""
    if not isinstance(clipboard, dict):
        raise UnusableClipboard([("body", 'expected {"kind": "character", "data": {...}}')])
    kind = clipboard.get("kind", "character")
    data = clipboard.get("data")
    if kind != "character":
        raise UnusableClipboard([("kind", f"{kind!r} is not a character piece")])
    if not isinstance(data, dict):
        raise UnusableClipboard([("data", "expected the piece's object (name, status, params)")])
    reader = _Reader()
    _entries(reader, data, "status")
    _entries(reader, data, "params")
    name = data.get("name")
    name = name.strip() if isinstance(name, str) and name.strip() else DEFAULT_NAME
    _check(reader)
    return ImportedSheet(
        name=name,
        level=reader.level if reader.level is not None else 1,
        base_stats={key: reader.stats.get(key, 0) for key in STAT_KEYS},
        current_hp=reader.current_hp,
        ignored=tuple(reader.ignored),
        defaulted=tuple(LABELS[key] for key in STAT_KEYS if key not in reader.stats),
    )


def _check(reader: _Reader) -> None:
    hp = reader.stats.get("hp")
    if hp is None:
        reader.problems.append(
            (HP_LABEL, "missing: give 生命 (or HP) as a status with value and max, or a param")
        )
    elif hp < 1:
        reader.problems.append((HP_LABEL, f"max HP must be at least 1, not {hp}"))
    if reader.level is not None and reader.level < 1:
        reader.problems.append((LEVEL_LABEL, f"level must be at least 1, not {reader.level}"))
    if reader.problems:
        raise UnusableClipboard(reader.problems)
