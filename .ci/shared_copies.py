"""CI stage: the files the repository vendors from ../shared are still the shared ones.

Not a product test (a clone needs nothing beside it to pass its tests), so not in pytest: the
packaged rules digest, the seed's passages quoted per rule (infra/rules/seed_passages.json, each
the verbatim lines of ../shared/seeds it names), and the CloudNativePG schemas the deploy tests
validate k8s/ against.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def drifted() -> list[str]:
    found = []
    if (REPO / "infra/rules/RULES.md").read_bytes() != (SHARED / "rules/RULES.md").read_bytes():
        found.append("infra/rules/RULES.md differs from ../shared/rules/RULES.md: copy it again")
    found += _seed_passages_drifted()
    vendored = sorted((REPO / "tests/deploy/schemas").glob("*/*.json"))
    if not vendored:
        found.append("no vendored schema under tests/deploy/schemas")
    for path in vendored:
        shared = SHARED / "k8s-schemas" / path.relative_to(REPO / "tests/deploy/schemas")
        if not shared.exists() or json.loads(path.read_text()) != json.loads(shared.read_text()):
            found.append(f"{path.relative_to(REPO)} drifted from {shared}")
    return found


PASSAGES = REPO / "infra/rules/seed_passages.json"


def _lines(passage: dict[str, Any]) -> str | None:
    """The seed's lines a passage names, as they stand in ../shared now (None: no such seed)."""
    seed = SHARED / "seeds" / passage["seed"]
    if not seed.exists():
        return None
    first, last = passage["lines"]
    return "\n".join(seed.read_text(encoding="utf-8").split("\n")[first - 1 : last])


def _seed_passages_drifted() -> list[str]:
    quoted = json.loads(PASSAGES.read_text(encoding="utf-8"))
    return [
        f"{PASSAGES.relative_to(REPO)}: {rule_id} is not lines {p['lines']} of seeds/{p['seed']}: "
        "check the line numbers, then run `python3 .ci/shared_copies.py --requote`"
        for rule_id, passages in quoted["passages"].items()
        for p in passages
        if _lines(p) != p["text"]
    ]


def requote() -> None:
    """Copy each passage's text again from the lines it names (after a seed's update)."""
    quoted = json.loads(PASSAGES.read_text(encoding="utf-8"))
    for passages in quoted["passages"].values():
        for passage in passages:
            passage["text"] = _lines(passage)
    PASSAGES.write_text(json.dumps(quoted, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if not SHARED.is_dir():
        sys.exit(f"no ../shared beside the repository at {SHARED}")
    if sys.argv[1:] == ["--requote"]:
        requote()
    problems = drifted()
    print("\n".join(problems) or "the vendored copies match ../shared")
    sys.exit(1 if problems else 0)
