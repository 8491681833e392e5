"""What the suite needs beyond pip, settled once the tests are collected: never a silent skip.

A test says what it needs with `@pytest.mark.requires("chromium", ...)`. The npm packages the
suite pins (`tests/support/*/package-lock.json`) are installed here when missing; what needs
root (Debian's packages) stops the run before the first test, with the command that fixes it.
"""

from __future__ import annotations

import fcntl
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

    def present() -> bool:
        return shutil.which("node") is not None and (folder / "node_modules" / probe).exists()

    def install() -> None:
        if shutil.which("npm") is None:
            return
        # The suite's worker processes (pytest-xdist) each settle prerequisites: one installs,
        # the others wait for it and find the packages there.
        with (folder / ".install.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not present():
                subprocess.run(command, check=False, capture_output=True, timeout=600)

    return Requirement(
        f"the npm packages of tests/support/{name}",
        present,
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


def check_prerequisites(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Install what can be installed; stop the run, naming the fix, for what cannot."""
    missing = []
    for name in sorted(needed(items)):
        requirement = REQUIREMENTS[name]
        if not requirement.present() and requirement.install is not None:
            requirement.install()
        if not requirement.present():
            missing.append(f"  - {requirement.what}: run `{requirement.fix}`")
    if not missing:
        return
    why = "the selected tests need what this machine lacks (nothing was skipped):\n" + "\n".join(
        missing
    )
    if not hasattr(config, "workerinput"):
        pytest.exit(why, returncode=4)
    # A pytest-xdist worker cannot stop the run with pytest.exit (the controller reports an
    # internal error, pytest-xdist issue #1239): each worker keeps one test, which fails at
    # once with the same words, and deselects the rest.
    config.stash[_MISSING] = why
    config.hook.pytest_deselected(items=items[1:])
    del items[1:]


_MISSING = pytest.StashKey[str]()


def refuse_if_missing(item: pytest.Item) -> None:
    """In a pytest-xdist worker that lacks a prerequisite: fail the one test it kept."""
    why = item.config.stash.get(_MISSING, None)
    if why is not None:
        pytest.fail(why, pytrace=False)
