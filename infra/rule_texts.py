"""Rule IDs → their text in RULES.md, so an audit shows the clause behind each ruling.

The digest ships inside the package (infra/rules/RULES.md) so an installed Senki can show it;
a test (tests/unit/test_rule_texts.py) keeps that copy identical to the upstream digest. The
line of a rule includes the Japanese source term where the digest quotes it (e.g. 気絶, 機能停止).
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

_RULE_LINE = re.compile(
    r"^\s*-\s+\*\*(?P<id>[A-Z]{2,3}-[A-Z0-9-]+[a-z]?)\b[^*]*\*\*\s*(?P<text>.*)$"
)
_INTERPRETATION = re.compile(r"\*\*Interpretation (?P<id>[A-Z]{2,3}-[A-Z0-9-]+[a-z])[:*]")
_EXAMPLE = re.compile(r"\*\*(?P<id>EX-[A-Z]+-\d+)\*\*")


def digest_text() -> str:
    return files("infra.rules").joinpath("RULES.md").read_text(encoding="utf-8")


@cache
def rule_index() -> dict[str, str]:
    """Every rule, interpretation and example ID with the digest line that states it."""
    index: dict[str, str] = {}
    for line in digest_text().splitlines():
        match = _RULE_LINE.match(line)
        if match:
            index.setdefault(match["id"], line.strip(" -"))
        for pattern in (_INTERPRETATION, _EXAMPLE):
            for found in pattern.finditer(line):
                index.setdefault(found["id"], line.strip(" -"))
    return index


def rule_text(rule_id: str) -> str | None:
    """The digest line of a rule; a sub-clause (GD-MAIN-5 B) falls back to its parent."""
    index = rule_index()
    candidate = rule_id.split(" ", maxsplit=1)[0]
    while candidate:
        if candidate in index:
            return index[candidate]
        candidate = candidate.rpartition("-")[0] if "-" in candidate else ""
    return None


def anchor(rule_id: str) -> str:
    """A link into the digest (GitHub-style heading anchor of the rule's section)."""
    section = "-".join(rule_id.split("-")[:2]).lower()
    return f"rules/RULES.md#{section}"
