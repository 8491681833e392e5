"""What the suite needs beyond pip, settled once the tests are collected: never a silent skip.

A test says what it needs with `@pytest.mark.requires("chromium", ...)`. The npm packages the
suite pins (`tests/support/*/package-lock.json`) are installed here when missing; what needs
root (Debian's packages) stops the run before the first test, with the command that fixes it.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

SUPPORT = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Requirement:
    what: str
    present: Callable[[], bool]
    fix: str
    install: Callable[[], None] | None = None


def _npm_folder(name: str, probe: str) -> Requirement:
    folder = SUPPORT / name
    command = ["npm", "ci", "--prefix", str(folder), "--no-audit", "--no-fund", "--loglevel=error"]

    def install() -> None:
        if shutil.which("npm") is None:
            return
        subprocess.run(command, check=False, capture_output=True, timeout=600)

    return Requirement(
        f"the npm packages of tests/support/{name}",
        lambda: shutil.which("node") is not None and (folder / "node_modules" / probe).exists(),
        f"apt-get install -y nodejs npm && npm ci --prefix tests/support/{name}",
        install,
    )


REQUIREMENTS = {
    "chromium": Requirement(
        "Debian's Chromium at /usr/bin/chromium (the table page's browser tests)",
        lambda: Path("/usr/bin/chromium").exists(),
        "apt-get update && apt-get install -y chromium",
    ),
    "node": Requirement(
        "Node.js (the table page's own scripts, run outside the browser)",
        lambda: shutil.which("node") is not None,
        "apt-get install -y nodejs npm",
    ),
    "curl": Requirement(
        "curl (the README's runnable blocks)",
        lambda: shutil.which("curl") is not None,
        "apt-get install -y curl",
    ),
    "bcdice_js": _npm_folder("bcdice_js", "bcdice"),
    "openapi_ts": _npm_folder("openapi_ts", ".bin/openapi-typescript"),
}


def needed(items: Iterable[pytest.Item]) -> set[str]:
    names: set[str] = set()
    for item in items:
        names.update(name for mark in item.iter_markers("requires") for name in mark.args)
        if item.get_closest_marker("e2e"):
            names.add("chromium")
    return names


def check_prerequisites(items: Iterable[pytest.Item]) -> None:
    """Install what can be installed; stop the run, naming the fix, for what cannot."""
    missing = []
    for name in sorted(needed(items)):
        requirement = REQUIREMENTS[name]
        if not requirement.present() and requirement.install is not None:
            requirement.install()
        if not requirement.present():
            missing.append(f"  - {requirement.what}: run `{requirement.fix}`")
    if missing:
        pytest.exit(
            "the selected tests need what this machine lacks (nothing was skipped):\n"
            + "\n".join(missing),
            returncode=4,
        )
