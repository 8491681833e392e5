"""CI stage: the files the repository vendors from ../shared are still the shared ones.

Not a product test (a clone needs nothing beside it to pass its tests), so not in pytest: the
packaged rules digest, and the CloudNativePG schemas the deploy tests validate k8s/ against.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def drifted() -> list[str]:
    found = []
    if (REPO / "infra/rules/RULES.md").read_bytes() != (SHARED / "rules/RULES.md").read_bytes():
        found.append("infra/rules/RULES.md differs from ../shared/rules/RULES.md: copy it again")
    vendored = sorted((REPO / "tests/deploy/schemas").glob("*/*.json"))
    if not vendored:
        found.append("no vendored schema under tests/deploy/schemas")
    for path in vendored:
        shared = SHARED / "k8s-schemas" / path.relative_to(REPO / "tests/deploy/schemas")
        if not shared.exists() or json.loads(path.read_text()) != json.loads(shared.read_text()):
            found.append(f"{path.relative_to(REPO)} drifted from {shared}")
    return found


if __name__ == "__main__":
    if not SHARED.is_dir():
        sys.exit(f"no ../shared beside the repository at {SHARED}")
    problems = drifted()
    print("\n".join(problems) or "the vendored copies match ../shared")
    sys.exit(1 if problems else 0)
