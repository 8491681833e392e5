"""Rule IDs → their text in RULES.md, so an audit shows the clause behind each ruling.

The digest ships inside the package (infra/rules/RULES.md), so an installed Senki or a clone
can show it with nothing outside the repository (a test compares it with the team's shared
copy when one sits beside the repository). The line of a rule includes the
Japanese source term where the digest quotes it (e.g. 気絶, 機能停止).

Beside the digest, the seed's own Japanese words for a rule (infra/rules/seed_passages.json:
verbatim lines of ../shared/seeds, checked by .ci/shared_copies.py), so that a Japanese table
reads the rule as its players know it. A rule the seed does not state says why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
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


@dataclass(frozen=True)
class SeedWords:
    """The seed's words for a rule: its verbatim lines and where they stand, or, when the
    seed has none, `text` None and `source` saying why."""

    text: str | None
    source: str


@dataclass(frozen=True)
class _Lines:
    seed: str
    first: int
    last: int
    text: str


@dataclass(frozen=True)
class _SeedFile:
    passages: dict[str, list[_Lines]]
    none: dict[str, str]


@cache
def _seed_passages() -> _SeedFile:
    raw = json.loads(files("infra.rules").joinpath("seed_passages.json").read_text("utf-8"))
    passages = {
        rule_id: [_Lines(p["seed"], p["lines"][0], p["lines"][1], p["text"]) for p in found]
        for rule_id, found in raw["passages"].items()
    }
    return _SeedFile(passages=passages, none=dict(raw["none"]))


def _seed_keys(rule_id: str) -> list[str]:
    """The rule, then what it belongs to: GD-MAIN-5 B → GD-MAIN-5; GD-INJ-1a → GD-INJ-1."""
    keys = [rule_id]
    head = rule_id.split(" ", maxsplit=1)[0]
    keys.append(head)
    if head[-1:].islower():
        keys.append(head[:-1])
    return list(dict.fromkeys(keys))


def seed_words(rule_id: str) -> SeedWords:
    """The seed's Japanese words for `rule_id`, or why there are none."""
    seeds = _seed_passages()
    for key in _seed_keys(rule_id):
        if key in seeds.passages:
            found = seeds.passages[key]
            text = "\n".join(p.text for p in found)
            where = "; ".join(f"seeds/{p.seed} lines {p.first}–{p.last}" for p in found)
            return SeedWords(text=text, source=where)
        if key in seeds.none:
            return SeedWords(text=None, source=seeds.none[key])
    return SeedWords(text=None, source=f"no seed passage is listed for {rule_id}")
