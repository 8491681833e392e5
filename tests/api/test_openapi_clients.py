"""Clients generated from the live OpenAPI document just work (issue 20).

openapi-python-client and openapi-typescript generate from `/openapi.json` with no warning at
all, and a character-sheet site's whole flow runs through the generated Python client against
a real server (uvicorn on a loopback port, on real PostgreSQL, the projector running): a site
token, the campaign's characters, a sheet as JSON and as CCFolia, its HP ratio across
scenarios, an encounter's log followed with ETag/If-None-Match, and 401/404/412 handled by
their problem type. The generated code goes to a temporary folder, never into the repository.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.sheet_schemas import PILOT_STATS
from infra.services.runtime import Runtime
from tests.support.runtime import log_heads
from tests.support.serving import serving
from tests.unit.encounter.table import sheet as combatant_sheet

BIN = Path(sys.executable).parent
PYTHON_GENERATOR = BIN / "openapi-python-client"
TS_FOLDER = Path(__file__).parents[1] / "support" / "openapi_ts"
TS_GENERATOR = TS_FOLDER / "node_modules" / ".bin" / "openapi-typescript"
TSC = TS_FOLDER / "node_modules" / ".bin" / "tsc"
PACKAGE = "senki_generated_client"
PROBLEMS = "https://senki.dev/problems/"
TIMEOUT = httpx.Timeout(60.0)  # a loaded CI machine, not a slow server

needs_ts_generator = pytest.mark.requires("openapi_ts")


def the_document() -> dict[str, Any]:
    return create_app(lambda: None, lambda _: None).openapi()  # type: ignore[arg-type,return-value]


def run_quietly(command: list[str], cwd: Path) -> str:
    """Run a generator; fail on a non-zero exit or any warning in what it printed."""
    env = os.environ | {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "warning" not in said.lower(), said
    assert "skipping" not in said.lower(), said  # e.g. its ruff post-hook not found
    return said


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The Python client openapi-python-client generates, imported from a temporary folder."""
    folder = tmp_path_factory.mktemp("client")
    document = folder / "openapi.json"
    document.write_text(json.dumps(the_document()))
    run_quietly(
        [
            str(PYTHON_GENERATOR),
            "generate",
            "--path",
            str(document),
            "--output-path",
            str(folder / PACKAGE),
            "--meta",
            "none",
            "--fail-on-warning",
        ],
        folder,
    )
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def test_the_python_client_generates_every_operation_with_no_warning(
    generated: ModuleType,
) -> None:
    folder = Path(generated.__file__).parent
    modules = {p.stem for p in (folder / "api").rglob("*.py") if p.stem != "__init__"}
    ids = {op["operationId"] for ops in the_document()["paths"].values() for op in ops.values()}
    assert modules == {_snake(i) for i in ids}
    assert (folder / "models" / "roll_log_audit.py").exists()  # dropped over a name clash


@needs_ts_generator
def test_typescript_types_generate_with_no_warning_and_type_check(tmp_path: Path) -> None:
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(the_document()))
    types = tmp_path / "senki.ts"
    run_quietly([str(TS_GENERATOR), str(document), "-o", str(types)], tmp_path)
    text = types.read_text()
    assert "getCharacterSheet: {" in text
    assert "Problem: {" in text
    run_quietly([str(TSC), "--noEmit", "--strict", str(types)], tmp_path)


def _snake(operation_id: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation_id)


# --- the sheet site's flow, against a real server -----------------------------------------


@pytest.fixture
def server(runtime: Runtime) -> Iterator[str]:
    """Senki as `senki serve` runs it (projector in process), on a free loopback port."""
    runtime.start_projector()
    with serving(create_app(lambda: runtime, lambda _: None)) as url:
        yield url


def fresh_key() -> str:
    return str(uuid.uuid4())


def until(read: Callable[[], Any], done: Callable[[Any], bool], what: str) -> Any:
    """Poll an eventually consistent read model until `done` (bounded)."""
    seen = None
    for _ in range(300):
        seen = read()
        if done(seen):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"{what} never came: {seen}")


def reflects_head(page: Any, runtime: Runtime) -> bool:
    reflected = page.reflects.to_dict()
    return all(reflected.get(str(s), 0) >= h for s, h in enumerate(log_heads(runtime)))


@pytest.mark.postgres
def test_a_sheet_site_flow_through_the_generated_client(
    generated: ModuleType, server: str, runtime: Runtime
) -> None:
    c = _Calls(generated)
    live = httpx.get(f"{server}/openapi.json", timeout=TIMEOUT).json()
    assert live == json.loads(json.dumps(the_document())), "generated from another document"

    # The GM's table tool sets the campaign up (every POST with its Idempotency-Key).
    opened = c.ok(
        c.campaigns.create_campaign,
        201,
        client=c.Client(server, timeout=TIMEOUT),
        body=c.m.CampaignCreate.from_dict({"name": "蒼穹", "gm_member_id": "gm"}),
        idempotency_key=fresh_key(),
    )
    campaign_id, gm = opened.id, c.authed(server, opened.token)
    c.ok(
        c.campaigns.add_member,
        200,
        uuid.UUID(campaign_id),
        client=gm,
        body=c.m.MemberCreate.from_dict({"member_id": "aoi", "role": "player"}),
        idempotency_key=fresh_key(),
    )
    pilot = c.ok(
        c.characters.register_character,
        201,
        uuid.UUID(campaign_id),
        client=gm,
        body=c.m.CharacterCreate.from_dict({"owner": "aoi", "name": "蒼井ソラ", "base_stats": AOI}),
        idempotency_key=fresh_key(),
    )
    pilot_id = uuid.UUID(pilot.id)
    for name, end_hp in (("第1話", 40), ("第2話", 60)):
        c.play_scenario(gm, uuid.UUID(campaign_id), pilot_id, name, end_hp)

    # 1. A site token: read-only, issued by the GM.
    issued = c.ok(
        c.campaigns.issue_token,
        201,
        uuid.UUID(campaign_id),
        client=gm,
        body=c.m.TokenCreate.from_dict({"kind": "site", "label": "wiki"}),
        idempotency_key=fresh_key(),
    )
    site = c.authed(server, issued.token)
    me = c.ok(c.campaigns.get_me, 200, client=site)
    assert me.role == "site"
    assert "read" in me.may

    # 2. The campaign's characters: the timeline read model, which says what it reflects.
    timeline = until(
        lambda: c.ok(c.read_models.get_campaign_timeline, 200, uuid.UUID(campaign_id), client=site),
        lambda page: reflects_head(page, runtime),
        "the timeline",
    )
    joined = [r.to_dict() for r in timeline.rows if r["kind"] == "character_joined"]
    assert {r["subject_id"] for r in joined} == {pilot.id}

    # 3. The sheet as JSON (ETag: the versions it was computed from), then 304 while unchanged.
    read = c.sheets.get_character_sheet
    answer = read.sync_detailed(pilot_id, client=site)
    assert answer.status_code == 200, answer.content
    sheet = answer.parsed
    assert isinstance(sheet, c.m.CharacterSheet)
    assert (sheet.max_hp, sheet.current_hp) == (80, 60)
    tag = answer.headers["ETag"]
    again = read.sync_detailed(pilot_id, client=site, if_none_match=tag)
    assert again.status_code == 304
    assert again.headers["ETag"] == tag

    # 4. The sheet as a CCFolia piece, parsed as one.
    piece = c.ok(read, 200, pilot_id, client=site, format_=c.m.GetCharacterSheetFormat.CCFOLIA)
    assert isinstance(piece, c.m.CcfoliaPiece)
    data = piece.to_dict()["data"]
    assert data["name"] == "蒼井ソラ"
    assert {"label": "生命", "value": 60, "max": 80} in data["status"]

    # 5. The HP ratio across scenarios: the HP ledger read model.
    ledger = until(
        lambda: c.ok(c.read_models.get_hp_ledger, 200, pilot_id, client=site),
        lambda page: reflects_head(page, runtime),
        "the HP ledger",
    )
    rows = [row.to_dict() for row in ledger.rows]
    ratios = [(r["ratio_in_numerator"], r["ratio_in_denominator"]) for r in rows]
    ratios += [(r["ratio_out_numerator"], r["ratio_out_denominator"]) for r in rows]
    assert ratios == [(1, 1), (1, 2), (1, 2), (3, 4)]  # GD-HPS-1/3: 40/80, then 60/80

    # 6. An encounter's log, followed with the encounter's ETag: 304 while nothing happened,
    #    then the new lines after the version last seen.
    fight = c.ok(
        c.encounters.open_encounter,
        201,
        uuid.UUID(campaign_id),
        client=gm,
        body=c.m.EncounterCreate.from_dict({"battle_map": {"width": 12, "height": 12}}),
        idempotency_key=fresh_key(),
    )
    fight_id = uuid.UUID(fight.id)
    look = c.encounters.get_encounter.sync_detailed(fight_id, client=site)
    assert look.status_code == 200
    seen_tag, seen_version = look.headers["ETag"], look.parsed.version
    idle = c.encounters.get_encounter.sync_detailed(fight_id, client=site, if_none_match=seen_tag)
    assert idle.status_code == 304
    c.join(gm, fight_id, seen_version, "ace", "aoi")
    moved = c.encounters.get_encounter.sync_detailed(fight_id, client=site, if_none_match=seen_tag)
    assert moved.status_code == 200
    assert moved.headers["ETag"] != seen_tag
    new_lines = until(
        lambda: c.ok(
            c.read_models.get_encounter_log, 200, fight_id, client=site, after=seen_version
        ),
        lambda page: any(r["version"] > seen_version for r in page.rows),
        "the log line of the join",
    )
    assert all(r["version"] > seen_version for r in new_lines.rows)
    assert all(r["line_en"] and r["line_ja"] for r in new_lines.rows)

    # 7. Errors, told apart by their problem type.
    nobody = c.authed(server, "senki.not-a-token")
    assert c.problem(read.sync_detailed(pilot_id, client=nobody)) == (401, "unauthenticated")
    assert c.problem(read.sync_detailed(uuid.uuid4(), client=site)) == (404, "not-found")
    stale = c.characters.advance_character.sync_detailed(
        pilot_id,
        client=gm,
        body=c.m.CharacterAdvance.from_dict({"level": 2, "base_stats": AOI}),
        idempotency_key=fresh_key(),
        if_match='"0"',
    )
    assert c.problem(stale) == (412, "stale-version")
    now = c.ok(c.characters.get_character, 200, pilot_id, client=gm)
    assert stale.parsed.current_version == now.version
    assert stale.headers["ETag"] == f'"{now.version}"'


# The pilot the sheet schemas' examples describe.
AOI = dict(PILOT_STATS)


class _Calls:
    """The generated client's modules, and the few steps the flow repeats."""

    def __init__(self, package: ModuleType) -> None:
        self.Client = importlib.import_module(f"{PACKAGE}.client").Client
        self.AuthenticatedClient = importlib.import_module(f"{PACKAGE}.client").AuthenticatedClient
        self.m = importlib.import_module(f"{PACKAGE}.models")
        api = f"{PACKAGE}.api"
        for tag in ("campaigns", "characters", "scenarios", "sheets", "read_models", "encounters"):
            module = importlib.import_module(f"{api}.{tag}")
            setattr(self, tag, _Operations(module, api, tag))

    def authed(self, server: str, token: str) -> Any:
        return self.AuthenticatedClient(base_url=server, token=token, timeout=TIMEOUT)

    def ok(self, operation: Any, status: int, *args: Any, **kwargs: Any) -> Any:
        answer = operation.sync_detailed(*args, **kwargs)
        assert answer.status_code == status, answer.content
        return answer.parsed

    def problem(self, answer: Any) -> tuple[int, str]:
        """A problem document, parsed as the generated `Problem`, by its type."""
        assert isinstance(answer.parsed, self.m.Problem), answer.content
        assert answer.headers["content-type"] == "application/problem+json"
        return int(answer.status_code), answer.parsed.type_.removeprefix(PROBLEMS)

    def play_scenario(
        self, gm: Any, campaign_id: uuid.UUID, pilot_id: uuid.UUID, name: str, end_hp: int
    ) -> None:
        """The GM opens a scenario, the pilot joins on foot, it starts and closes."""
        scenarios = self.scenarios
        opened = self.ok(
            scenarios.open_scenario,
            201,
            campaign_id,
            client=gm,
            body=self.m.ScenarioCreate.from_dict({"name": name}),
            idempotency_key=fresh_key(),
        )
        scenario_id = uuid.UUID(opened.id)
        self.ok(
            scenarios.join_scenario,
            200,
            scenario_id,
            client=gm,
            body=self.m.JoinBody.from_dict({"character_id": str(pilot_id)}),
            idempotency_key=fresh_key(),
        )
        self.ok(scenarios.start_scenario, 200, scenario_id, client=gm, idempotency_key=fresh_key())
        end = {"character_id": str(pilot_id), "end_hp": end_hp}
        self.ok(
            scenarios.close_scenario,
            200,
            scenario_id,
            client=gm,
            body=self.m.CloseBody.from_dict({"results": [end]}),
            idempotency_key=fresh_key(),
        )

    def join(self, gm: Any, fight_id: uuid.UUID, version: int, cid: str, controller: str) -> None:
        body = {
            "command": "JoinCombatant",
            "combatant_id": cid,
            "name": cid,
            "side": "pc",
            "controller": controller,
            "sheet": combatant_sheet(1, 1),
        }
        self.ok(
            self.encounters.command_encounter,
            200,
            fight_id,
            client=gm,
            body=self.m.JoinCombatantBody.from_dict(body),
            idempotency_key=fresh_key(),
            if_match=f'"{version}"',
        )


class _Operations:
    """`calls.sheets.get_character_sheet`: the generated module of one operation."""

    def __init__(self, package: ModuleType, api: str, tag: str) -> None:
        self._prefix = f"{api}.{tag}"

    def __getattr__(self, name: str) -> ModuleType:
        return importlib.import_module(f"{self._prefix}.{name}")
