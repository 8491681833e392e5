"""The audit's rule texts: cited IDs resolve (the digest's copy is checked by .ci/run)."""

from __future__ import annotations

import pytest

from infra.rule_texts import rule_text


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
