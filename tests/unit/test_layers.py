"""The layers and the one door (docs/architecture.md; issue #16 item 2), read from the imports.

Every import counts, including those inside functions: a deferred import is still a
dependency, only a later one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "projections", "api", "infra")
DOOR = "infra.services"
# The one cycle the process model needs: `senki project --lanes N` forks each extra lane from
# the runner (lanes.py), the lane's entry point (lane.py) runs a runner of its own, and the
# runner starts the lanes. Breaking it would only hide it behind a string for importlib.
ALLOWED_CYCLES = [{"infra.projector.lane", "infra.projector.lanes", "infra.projector.runner"}]


@cache
def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _owner(name: str) -> str | None:
    """The project module an imported name lives in (None: a library)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> Iterator[str]:
    """Every project module `module` imports (a `from package import submodule` counts as the
    submodule, as Python resolves it)."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                target = _owner(full if full in modules() else node.module)
                if target and target != module:
                    yield target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = _owner(alias.name)
                if target and target != module:
                    yield target


def libraries_of(module: str) -> set[str]:
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


def graph() -> dict[str, set[str]]:
    return {module: set(imports_of(module)) for module in modules()}


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_api_reaches_the_application_through_the_one_door_only() -> None:
    strays = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        if module.startswith("api")
        for target in targets
        if target.startswith("infra") and target != DOOR
    )
    assert strays == [], f"api/ may import only {DOOR} of infra/: {strays}"


def test_infra_imports_api_only_where_it_builds_the_app() -> None:
    builders = ("infra.cli.",)  # the CLI builds the app for `senki serve`
    strays = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        if module.startswith("infra") and not module.startswith(builders)
        for target in targets
        if target.startswith("api")
    )
    assert strays == [], strays


def test_the_domain_is_pure() -> None:
    forbidden = {"fastapi", "psycopg", "psycopg_pool", "eventsourcing", "httpx"}
    forbidden |= {"pydantic_settings", "starlette", "uvicorn"}
    for module in modules():
        if not module.startswith("domain"):
            continue
        outside = {t for t in imports_of(module) if not t.startswith("domain")}
        assert outside == set(), f"{module} imports {sorted(outside)}"
        assert libraries_of(module) & forbidden == set(), module


def test_projections_depend_on_the_domain_only() -> None:
    for module in modules():
        if module.startswith("projections"):
            outside = {t for t in imports_of(module) if not t.startswith(("domain", "projections"))}
            assert outside == set(), f"{module} imports {sorted(outside)}"


def test_no_import_cycle_but_the_one_the_process_model_needs() -> None:
    found = cycles(graph())
    assert [c for c in found if c not in ALLOWED_CYCLES] == []
