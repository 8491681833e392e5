"""Issue 33 §4 and §5: a what-if is not an oracle, no credential reaches a log line, and a
NUL or a lone surrogate is refused with a 4xx on every surface, never a 500."""

from __future__ import annotations

import logging
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.services.runtime import Runtime
from tests.api.conftest import auth, key, open_campaign
from tests.api.fight import ACE_JOIN, Fight, ace_join, ace_shoots_grunt
from tests.api.test_bcdice_api import roller_for
from tests.support.processes import free_port, senki_env, wait_for
from tests.support.serving import serving
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres

# The attack as found: the grunt's HP + defence is 1110; ace's attack is 100 + her rifle's.
HP, DEFENCE, ACE_BASE = 1000, 110, 100


def _replay(fight: Fight, who: str, rifle: int) -> tuple[str, str]:
    """The replay's answer and its shape (as the attacker read it: complete, missing, which
    keys differ), to `who`, with ace's rifle attack amended."""
    body = {"amendment": {"command": ACE_JOIN, "payload": ace_join(rifle)}}
    headers = auth(fight.token(who)) | key()
    answer = fight.client.post(f"/v1/encounters/{fight.id}/replay", headers=headers, json=body)
    assert answer.status_code < 500, answer.text
    if answer.status_code != 200:
        return answer.text, str(answer.status_code)
    found = answer.json()
    keys = {c: sorted(d) for c, d in found["differences"].items()}
    return answer.text, f"{found['complete']} {found['missing']} {keys}"


def _bisect(fight: Fight, who: str) -> tuple[int, set[str]]:
    """The least rifle attack whose replay's shape is not rifle 0's, in 11 replays, and
    every answer seen on the way."""
    low, high = 0, 2048
    text, quiet = _replay(fight, who, low)
    seen = {text}
    while high - low > 1:
        middle = (low + high) // 2
        text, shape = _replay(fight, who, middle)
        seen.add(text)
        low, high = (low, middle) if shape != quiet else (middle, high)
    return high, seen


def test_a_player_bisecting_her_own_attack_over_replays_learns_nothing_of_the_hidden_grunt(
    client: TestClient,
) -> None:
    grunt = sheet(4, 1, reaction=2, hp=HP, stats={"phys_def": DEFENCE})
    fight = ace_shoots_grunt(client, grunt)
    by_gm, _ = _bisect(fight, "gm")
    assert ACE_BASE + by_gm - 1 == HP + DEFENCE  # the search works: the GM's answers tell it
    for who in ("aoi", "kai", "mio", "site"):
        _, seen = _bisect(fight, who)
        assert len(seen) == 1, f"{who} told apart {len(seen)} answers: an oracle"


# --- no credential in any log line -----------------------------------------------------------

UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture
def served(runtime: Runtime) -> Iterator[str]:
    """Senki behind a real uvicorn (its access log prints every path), in this process."""
    with serving(create_app(lambda: runtime, lambda _: None), log_level="debug") as url:
        yield url


@pytest.fixture
def every_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every record at DEBUG: the root logger's and uvicorn's (which do not propagate)."""
    caplog.set_level(logging.DEBUG)
    for name in UVICORN_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
        logging.getLogger(name).addHandler(caplog.handler)
    yield caplog
    for name in UVICORN_LOGGERS:
        logging.getLogger(name).removeHandler(caplog.handler)


def _fault(error: Exception) -> Callable[..., Any]:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    return fail


def test_the_whole_error_matrix_logs_no_token_secret(
    served: str,
    runtime: Runtime,
    client: TestClient,
    every_log: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    campaign = open_campaign(client)
    log_id, roller = roller_for(campaign)
    gm, forged = campaign.gm, roller[: roller.rindex(".") + 1] + "forgedSecret0123456789"
    secrets = {t.rsplit(".", 1)[1] for t in (roller, gm, forged)}
    bcdice, v1 = f"{served}/bcdice/{roller}/v2", f"{served}/v1"
    roll = f"{bcdice}/game_system/DiceBot/roll?command=1D6&token={roller}"
    v1_roll = f"{v1}/campaigns/{campaign.id}/rolls?token={roller}"
    body = {"roll_log_id": log_id, "expression": "1D6"}
    statuses: list[tuple[str, int]] = []
    # A connection an unhandled error went through is closed by uvicorn: one per request.
    fresh = httpx.Limits(max_keepalive_connections=0)
    with httpx.Client(timeout=30, headers=auth(gm), limits=fresh) as http:

        def sent(case: str, method: str, url: str, **kwargs: Any) -> None:
            headers = key() | kwargs.pop("headers", {})
            answer = http.request(method, url, headers=headers, **kwargs)
            statuses.append((case, answer.status_code))

        for case, error in (
            ("unhandled", RuntimeError(f"a bug quoting Bearer {gm} and /bcdice/{roller}/v2")),
            ("outage", psycopg.OperationalError(f"gone while {roller} was rolling")),
        ):
            with monkeypatch.context() as patched:
                patched.setattr(runtime.roll_logs, "roll", _fault(error))
                sent(case, "GET", roll)
                sent(case, "POST", v1_roll, json=body)
        sent("401", "GET", f"{served}/bcdice/{forged}/v2/version")
        sent("401", "GET", f"{v1}/me", headers={"Authorization": f"Bearer {forged}"})
        sent("404", "GET", f"{bcdice}/no_such_page?token={roller}")
        sent("404", "GET", f"{v1}/encounters/{uuid.uuid4()}?token={roller}")
        sent("422", "GET", f"{bcdice}/game_system/DiceBot/roll")
        sent("422", "POST", v1_roll, json={"roll_log_id": "not an id"})
    assert [s for _, s in statuses] == [500, 500, 503, 503, 401, 401, 404, 404, 400, 422]
    records = every_log.records
    rendered = [every_log.handler.format(r) for r in records]
    assert any("/bcdice/***" in line for line in rendered)  # the paths were logged, redacted
    assert any("Traceback" in line for line in rendered)  # and the unhandled error's trace
    found = [
        (r.name, s) for r, line in zip(records, rendered, strict=True) for s in secrets if s in line
    ]
    assert not found, f"{len(found)} of {len(records)} log records hold a token secret: {found}"


def test_senki_serve_logs_no_roller_token(app_url: str, owner_url: str) -> None:
    """A real `senki serve` at DEBUG, its access log on: a roller token's address is hit,
    once right and once with a body it cannot read; its output never holds the secret."""
    port = free_port()
    env = senki_env(app_url, owner_url) | {"SENKI_LOG_LEVEL": "debug"}
    server = subprocess.Popen(
        [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,  # uvicorn's access log
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: _ready(base), timeout=60)
        with httpx.Client(base_url=base, timeout=30) as http:
            opened = http.post(
                "/v1/campaigns", headers=key(), json={"name": "記録", "gm_member_id": "gm"}
            )
            gm = opened.json()["token"]
            rolls = http.post(
                f"/v1/campaigns/{opened.json()['id']}/rolls",
                headers=auth(gm) | key(),
                json={"name": "BCDice"},
            )
            log_id = rolls.json()["roll_log"]["id"]
            issued = http.post(
                f"/v1/campaigns/{opened.json()['id']}/tokens",
                headers=auth(gm) | key(),
                json={"kind": "roller", "roll_log_id": log_id},
            )
            roller = issued.json()["token"]
            path = f"/bcdice/{roller}/v2/game_system/DiceBot/roll"
            assert http.get(path, params={"command": "1D6"}).status_code == 200
            garbled = b'{"command": "1D6\\ud800"}'
            posted = http.post(path, content=garbled, headers={"Content-Type": "application/json"})
            assert posted.status_code < 500
            # A client that puts a token in a query (EventSource sends no header) is logged too.
            assert http.get("/v1/me", params={"access_token": gm}).status_code == 401
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    log = output.decode("utf-8", "replace")
    assert "/bcdice/***" in log, log[-2000:]  # the access log did print the address
    assert roller.rsplit(".", 1)[1] not in log
    assert gm.rsplit(".", 1)[1] not in log


def _ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


# --- NUL and lone surrogates, on every surface ----------------------------------------------

JSON = {"Content-Type": "application/json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
# How each bad character travels: in JSON as an escape (or, for a surrogate, as the bytes
# Python's decoder lets through), in an address or a form as a percent escape. A surrogate
# cannot be percent-encoded into text (it decodes to U+FFFD), so those surfaces get NUL.
IN_JSON = {"NUL": "\\u0000", "lone high surrogate": "\\ud800", "lone low surrogate": "\\udfff"}
IN_ADDRESS = {"NUL": "%00"}


@dataclass(frozen=True)
class Surface:
    method: str
    address: str  # `{bad}` marks where the bad character goes
    body: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    encodings: tuple[tuple[str, str], ...] = tuple(IN_ADDRESS.items())


def _surfaces(client: TestClient) -> dict[str, Surface]:
    campaign = open_campaign(client)
    _, roller = roller_for(campaign)
    fight = ace_shoots_grunt(client, sheet(4, 1, reaction=2, hp=321))
    gm = ("Authorization", f"Bearer {fight.campaign.gm}")
    json_in = tuple(IN_JSON.items())
    roll = f"/bcdice/{roller}/v2/game_system/DiceBot/roll"
    encounter = f"/v1/encounters/{fight.id}"
    return {
        "/v1 JSON body": Surface(
            "POST",
            "/v1/campaigns",
            '{"name": "a{bad}", "gm_member_id": "gm"}',
            (*JSON.items(),),
            json_in,
        ),
        "/v1 JSON body, a key of free JSON": Surface(
            "POST",
            f"{encounter}/replay",
            '{"options": {"faint_rule{bad}": "text"}}',
            (gm, *JSON.items()),
            json_in,
        ),
        "/v1 JSON body, a command": Surface(
            "POST",
            f"{encounter}/commands",
            '{"command": "Cleanup", "combatant_id": "a{bad}"}',
            (gm, *JSON.items(), ("If-Match", f'"{fight.version()}"')),
            json_in,
        ),
        "/v1 query": Surface("GET", f"{encounter}/at?turn=1&phase=a{{bad}}", headers=(gm,)),
        "/v1 path parameter": Surface(
            "DELETE", f"/v1/campaigns/{campaign.id}/members/a{{bad}}", headers=(gm,)
        ),
        "/v1 header": Surface(
            "POST",
            f"{encounter}/replay",
            '{"options": {}}',
            (gm, *JSON.items(), ("Idempotency-Key", "a-key-{bad}")),
            (("NUL", "\x00"),),  # a header is Latin-1: NUL is the one it can carry
        ),
        "BCDice query": Surface("GET", f"{roll}?command=1D6+a{{bad}}"),
        "BCDice form body": Surface("POST", roll, "command=1D6+a{bad}", (*FORM.items(),)),
        "BCDice JSON body": Surface(
            "POST", roll, '{"command": "1D6 a{bad}"}', (*JSON.items(),), json_in
        ),
    }


def test_a_nul_or_a_lone_surrogate_is_refused_with_a_4xx_on_every_surface(
    client: TestClient,
) -> None:
    statuses: dict[tuple[str, str], int] = {}
    shapes: list[str] = []
    for name, surface in _surfaces(client).items():
        for character, bad in surface.encodings:
            try:
                answer = client.request(
                    surface.method,
                    surface.address.replace("{bad}", bad),
                    content=surface.body.replace("{bad}", bad).encode(),
                    headers=key() | {k: v.replace("{bad}", bad) for k, v in surface.headers},
                )
            except Exception:  # the test client re-raises what a server answers with a 500
                statuses[name, character] = 500
                continue
            statuses[name, character] = answer.status_code
            if name.startswith("BCDice"):  # BCDice-API's own shape, readable from any page
                if answer.headers.get("Access-Control-Allow-Origin") != "*" or (
                    answer.json().get("ok") is not False
                ):
                    shapes.append(f"{name}, {character}: {answer.text[:80]}")
            elif answer.headers.get("Content-Type") != "application/problem+json":
                shapes.append(f"{name}, {character}: {answer.text[:80]}")
    wrong = {case: status for case, status in statuses.items() if not 400 <= status < 500}
    assert not wrong, f"{len(wrong)} of {len(statuses)} not refused with a 4xx: {wrong}"
    assert not shapes, shapes
