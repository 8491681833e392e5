"""The audit's rule texts: cited IDs resolve to the digest's line and to the seed's own words
(both copies are checked against ../shared by .ci/shared_copies.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import domain
from infra.rule_texts import rule_index, rule_text, seed_words

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.mark.parametrize(
    ("rule_id", "fragment"),
    [
        ("GD-INJ-1", "気絶"),
        ("GD-INJ-1a", "faint_rule"),
        ("GD-DMG-2", "ceil(attack / 10)"),
        ("EX-DMG-4", "guard cost 5"),
        ("GD-MAIN-5 B", "action"),
        ("WZ-7a", "GM − PC"),
        ("AK-OOR-1", "有効射程外射撃"),
    ],
)
def test_a_cited_rule_resolves_to_its_digest_line(rule_id: str, fragment: str) -> None:
    text = rule_text(rule_id)
    assert text is not None
    assert fragment in text


def test_an_unknown_rule_resolves_to_nothing() -> None:
    assert rule_text("XX-1") is None


# --- the seed's own words beside the digest (issue 35 §4) ------------------------------------

# A string literal that is a rule ID ("GD-INJ-1", "WZ-3a", "GD-MAIN-5 B").
_CITED = re.compile(r"[\"'](?P<id>(?:(?:GD|AK)-[A-Z]+-|WZ-)\d+[a-z]?(?: [A-F])?)[\"']")


def _rule_ids_cited_in_the_rule_systems() -> set[str]:
    """Every rule ID a ruling can cite: the digest's rules and interpretations, and every ID
    the rule systems' source quotes (GD-MAIN-5 B and the like)."""
    cited = {i for i in rule_index() if not i.startswith("EX-")}
    for path in Path(domain.__file__).parent.rglob("*.py"):
        cited |= {m["id"] for m in _CITED.finditer(path.read_text(encoding="utf-8"))}
    return cited


def test_every_cited_rule_has_the_seeds_words_or_says_why_not() -> None:
    cited = _rule_ids_cited_in_the_rule_systems()
    assert {"GD-INJ-1", "GD-MAIN-5", "WZ-5", "WZ-3a", "AK-OOR-1", "GD-INJ-1a"} <= cited
    unlisted = sorted(i for i in cited if seed_words(i).source.startswith("no seed passage"))
    assert unlisted == [], f"quote the seed for these, or list why it has none: {unlisted}"
    for rule_id in cited:
        words = seed_words(rule_id)
        if words.text is None:
            assert "seed" in words.source or "digest" in words.source, (rule_id, words.source)
        else:
            assert JAPANESE.search(words.text), rule_id
            assert words.source.startswith("seeds/"), rule_id


@pytest.mark.parametrize(
    ("rule_id", "fragment"),
    [
        ("GD-INJ-1", "気絶"),
        ("GD-INJ-1a", "気絶"),  # an interpretation shows its rule's passage
        ("GD-MAIN-2", "クリーンナップステップ"),
        ("GD-MAIN-5 C", "一般アイテム"),  # a sub-clause has its own lines
        ("GD-END-3", "継続不能"),
        ("WZ-5", "行動宣言"),
        ("AK-OOR-1", "有効射程外射撃"),
        ("EX-DMG-4", "8-10＋5＝3"),
    ],
)
def test_a_rule_shows_the_seeds_own_lines(rule_id: str, fragment: str) -> None:
    words = seed_words(rule_id)
    assert words.text is not None
    assert fragment in words.text
    assert "lines" in words.source


def test_a_rule_the_seed_does_not_state_says_so() -> None:
    words = seed_words("GD-CHK-1")
    assert words.text is None
    assert "not in the seed" in words.source
    assert seed_words("XX-1").text is None
