"""CCFolia clipboard JSON: given a sheet or a pasted piece, when mapped, then the GD values."""

from __future__ import annotations

import re
from typing import Any

import pytest

from domain.ccfolia import (
    LABELS,
    SheetForExport,
    UnusableClipboard,
    from_clipboard,
    number,
    to_clipboard,
)
from domain.rules.glorious_drive.stats import STAT_KEYS

STATS = dict(zip(STAT_KEYS, range(1, len(STAT_KEYS) + 1), strict=True)) | {"hp": 80}


def piece(*params: tuple[str, Any], hp: Any = 80, **data: Any) -> dict[str, Any]:
    return {
        "kind": "character",
        "data": {
            "name": "蒼井ソラ",
            "status": [{"label": "生命", "value": hp, "max": hp}],
            "params": [{"label": label, "value": value} for label, value in params],
        }
        | data,
    }


def test_export_puts_hp_in_a_status_and_every_other_stat_in_a_param() -> None:
    exported = to_clipboard(SheetForExport("蒼井ソラ", 3, STATS, current_hp=20, max_hp=80))

    data = exported["data"]
    assert isinstance(data, dict)
    assert exported["kind"] == "character"
    assert data["status"] == [{"label": "生命", "value": 20, "max": 80}]
    params = {p["label"]: p["value"] for p in data["params"]}
    assert params["回避"] == str(STATS["evasion"])
    assert params["レベル"] == "3"
    assert "生命" not in params
    assert data["initiative"] == STATS["reaction"]
    assert "1D100+{回避} 回避" in str(data["commands"])


def test_every_palette_reference_names_an_exported_label() -> None:
    data = to_clipboard(SheetForExport("a", 1, STATS, 80, 80))["data"]
    assert isinstance(data, dict)
    used = set(re.findall(r"\{(.+?)\}", str(data["commands"])))
    assert used <= set(LABELS.values())


def test_export_then_import_gives_the_same_values() -> None:
    exported = to_clipboard(SheetForExport("蒼井ソラ", 2, STATS, current_hp=80, max_hp=80))

    imported = from_clipboard(exported)

    assert (imported.name, imported.level, imported.base_stats) == ("蒼井ソラ", 2, STATS)
    assert imported.ignored == ()


@pytest.mark.parametrize(
    ("value", "expected"),
    [(12, 12), ("12", 12), (" 12 ", 12), ("１２", 12), ("+5", 5), ("－3", -3), (12.0, 12)],
)
def test_numbers_may_be_numbers_or_numeric_strings(value: Any, expected: int) -> None:
    assert number(value) == expected


@pytest.mark.parametrize("value", ["abc", 12.5, "12.5", True, None, [1]])
def test_what_is_not_a_whole_number_is_none(value: Any) -> None:
    assert number(value) is None


def test_missing_stats_default_to_zero_and_unknown_labels_are_ignored() -> None:
    imported = from_clipboard(piece(("回避", "12"), ("SAN値", "50"), ("操縦", 150)))

    assert imported.base_stats == dict.fromkeys(STAT_KEYS, 0) | {
        "hp": 80,
        "evasion": 12,
        "piloting": 150,
    }
    assert imported.ignored == ("SAN値",)
    assert imported.level == 1
    assert "回避" not in imported.defaulted
    assert "生命" not in imported.defaulted
    assert imported.defaulted == tuple(
        LABELS[k] for k in STAT_KEYS if k not in {"hp", "evasion", "piloting"}
    )


@pytest.mark.parametrize("label", ["HP", "hp", "ＨＰ", "Hp", "生命", "生命力", "体力", "耐久"])
def test_the_hp_labels_tools_use_are_read_as_hp(label: str) -> None:
    imported = from_clipboard({"data": {"status": [{"label": label, "value": 30, "max": 40}]}})
    assert (imported.base_stats["hp"], imported.current_hp) == (40, 30)
    assert "生命" not in imported.defaulted


@pytest.mark.parametrize(
    ("label", "key"),
    [("回避力", "evasion"), ("移動力", "move"), ("行動値", "reaction"), ("LV", "")],
)
def test_other_tools_labels_for_gd_stats_are_read(label: str, key: str) -> None:
    imported = from_clipboard(piece((label, "7")))
    if key:
        assert imported.base_stats[key] == 7
    else:
        assert imported.level == 7
    assert imported.ignored == ()


def test_a_piece_without_name_gets_a_default_and_english_keys_are_read() -> None:
    imported = from_clipboard({"data": {"params": [{"label": "hp", "value": "30"}]}})
    assert imported.name == "名無しのパイロット"
    assert imported.base_stats["hp"] == 30


def test_hp_as_a_status_takes_its_max_and_keeps_the_current_value() -> None:
    clipboard = piece()
    clipboard["data"]["status"] = [{"label": "生命", "value": "20", "max": "80"}]
    imported = from_clipboard(clipboard)
    assert (imported.base_stats["hp"], imported.current_hp) == (80, 20)


def test_unusable_values_are_named_all_at_once() -> None:
    with pytest.raises(UnusableClipboard) as refused:
        from_clipboard(piece(("回避", "たくさん"), ("操縦", 1.5), hp="x"))

    where = [w for w, _ in refused.value.problems]
    assert any("回避" in w for w in where)
    assert any("操縦" in w for w in where)
    assert any("生命" in w for w in where)
    assert "'たくさん' is not a whole number" in str(refused.value)


@pytest.mark.parametrize(
    ("clipboard", "named"),
    [
        ([], "body"),
        ({"kind": "item", "data": {}}, "kind"),
        ({"kind": "character", "data": "x"}, "data"),
        ({"data": {"params": "x"}}, "data.params"),
        ({"data": {"params": []}}, "生命"),
        ({"data": {"status": [{"label": "生命", "value": 0, "max": 0}]}}, "生命"),
    ],
)
def test_an_unusable_clipboard_names_what_is_wrong(clipboard: Any, named: str) -> None:
    with pytest.raises(UnusableClipboard) as refused:
        from_clipboard(clipboard)
    assert named in str(refused.value)
