"""The Dockerfile keeps its promises: no engine here, so it is parsed and checked instead."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = pytest.mark.deploy

REPO = Path(__file__).resolve().parents[2]
BUILD_TOOLS = re.compile(r"\b(gcc|g\+\+|build-essential|make|clang|curl|wget|git)\b")


@dataclass
class Stage:
    base: str
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]

    def last(self, keyword: str) -> str:
        found = self.all(keyword)
        assert found, f"stage {self.name!r} has no {keyword}"
        return found[-1]


def parse(text: str) -> list[Stage]:
    """Instructions per stage: comments dropped, backslash continuations joined."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) > 2 and words[1].upper() == "AS" else str(len(stages))
            stages.append(Stage(base=words[0], name=name))
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append((keyword, args.strip()))
    return stages


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    return parse((REPO / "Dockerfile").read_text(encoding="utf-8"))


def test_it_is_multi_stage_with_a_slim_python_311_runtime(stages: list[Stage]) -> None:
    assert len(stages) >= 2
    assert stages[-1].base.startswith("python:3.11-slim")
    build = stages[0]
    assert any("pip wheel" in args for args in build.all("RUN")), "the build stage makes wheels"
    runtime = " ".join(stages[-1].all("RUN"))
    assert f"from={build.name}" in runtime, "the runtime installs the wheels of the build stage"


def test_the_final_image_runs_as_a_non_root_user(stages: list[Stage]) -> None:
    user = stages[-1].last("USER").split(":")[0]
    assert user not in {"root", "0"}
    assert user.isdigit(), "a numeric uid lets Kubernetes check runAsNonRoot"


def test_senki_is_the_entrypoint_and_serve_the_default_command(stages: list[Stage]) -> None:
    final = stages[-1]
    assert json.loads(final.last("ENTRYPOINT")) == ["senki"]
    assert json.loads(final.last("CMD")) == ["serve", "--host", "0.0.0.0"]


def test_the_healthcheck_asks_healthz_with_python(stages: list[Stage]) -> None:
    healthcheck = stages[-1].last("HEALTHCHECK")
    _, _, command = healthcheck.partition("CMD ")
    argv = json.loads(command)
    assert argv[0] == "python"
    assert "/healthz" in argv[-1]
    compile(argv[-1], "<healthcheck>", "exec")  # the one-liner is valid Python


def test_the_data_directory_is_a_writable_volume(stages: list[Stage]) -> None:
    final = stages[-1]
    env = " ".join(final.all("ENV"))
    assert "SENKI_DATA_DIR=/var/lib/senki" in env
    assert json.loads(final.last("VOLUME")) == ["/var/lib/senki"]
    assert any("chown senki:senki /var/lib/senki" in args for args in final.all("RUN"))


def test_no_build_tools_reach_the_final_image(stages: list[Stage]) -> None:
    final = stages[-1]
    for args in final.all("RUN"):
        assert not BUILD_TOOLS.search(args), args
        assert "apt-get install" not in args
    assert not final.all("COPY") or all("--from" in args for args in final.all("COPY"))


def test_the_build_context_leaves_local_state_out() -> None:
    ignored = (REPO / ".dockerignore").read_text(encoding="utf-8").split()
    for entry in (".git", ".venv", ".senki", "tests", "k8s"):
        assert entry in ignored
