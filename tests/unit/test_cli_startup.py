"""`senki --help` and every command start without the server's libraries (issue 35 §8).

Importing FastAPI, psycopg, eventsourcing, pydantic and the rules took 2.3 s of CPU before
any `senki` command began; the commands import what they use when they run. Read from
`sys.modules` in a fresh interpreter, so the check does not depend on the machine's speed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "fastapi",
    "starlette",
    "uvicorn",
    "psycopg",
    "eventsourcing",
    "pydantic",
    "pydantic_settings",
    "httpx",
    "prometheus_client",
    "rich.console",  # as much as typer itself; --help prints through click
    "api",
    "domain",
    "projections",
    "infra.bootstrap",
    "infra.settings",
    "infra.store",
    "infra.services",
)


def loaded_after(code: str) -> set[str]:
    """The top-level packages (and infra's modules) a fresh interpreter holds after `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def heavy_in(names: set[str]) -> list[str]:
    return sorted(h for h in HEAVY if h in names or any(n.startswith(h + ".") for n in names))


def test_importing_the_cli_loads_no_server_library() -> None:
    assert heavy_in(loaded_after("import infra.cli.main")) == []


@pytest.mark.parametrize("command", [["--help"], ["dice", "roll", "--help"], ["serve", "--help"]])
def test_help_runs_without_the_server_libraries(command: list[str]) -> None:
    run = (
        "from infra.cli.main import app\n"
        f"try:\n    app({command!r}, standalone_mode=False)\nexcept SystemExit:\n    pass"
    )
    assert heavy_in(loaded_after(run)) == []
