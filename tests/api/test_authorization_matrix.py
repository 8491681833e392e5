"""The authorisation matrix (issue 5): every endpoint × every kind of caller, from one table.

Callers: the GM; `owner` (a player who owns the character and unit and controls the combatant
`ace`); `other` (another player); a viewer; a sheet site; no token; a revoked token; another
campaign's GM. An allowed caller must never get 401/403 (a state refusal such as 409 or 422 is
fine: it got past authorisation); any other caller must get 403, or 401 without a valid token.
A test also fails when the API grows an endpoint this table does not list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from tests.api.conftest import auth, key, open_campaign
from tests.api.fight import Fight, started_fight
from tests.api.roster import AOI, KURENAI, ok

pytestmark = pytest.mark.postgres

EVERYONE = frozenset({"gm", "owner", "other", "viewer", "site"})
MEMBERS = frozenset({"gm", "owner", "other", "viewer"})
PLAYERS = frozenset({"gm", "owner", "other"})
OWNER = frozenset({"gm", "owner"})
GM = frozenset({"gm"})
# Not about one campaign: any valid token, its own answer. A roller token (BCDice-API's
# credential, in the address) is refused everywhere else.
ANY_TOKEN = EVERYONE | {"foreign", "roller"}
CALLERS = ("gm", "owner", "other", "viewer", "site", "none", "revoked", "foreign", "roller")


@dataclass(frozen=True)
class Rule:
    method: str
    path: str
    allowed: frozenset[str]
    body: dict[str, Any] | None = None


ITEM = {"name": "盾", "slot": "armour", "cost": 10, "stats": {"phys_def": 5}}
PIECE = {
    "kind": "character",
    "data": {
        "name": "輸入",
        "status": [{"label": "生命", "value": 80, "max": 80}],
        "params": [{"label": "回避", "value": "12"}],
    },
}
TABLE: list[Rule] = [
    Rule("GET", "/v1/me", ANY_TOKEN),
    Rule("GET", "/v1/campaigns/{campaign}", EVERYONE),
    Rule("POST", "/v1/campaigns/{campaign}/members", GM, {"member_id": "new", "role": "viewer"}),
    Rule("PATCH", "/v1/campaigns/{campaign}/members/extra", GM, {"role": "viewer"}),
    Rule("PUT", "/v1/campaigns/{campaign}/options", GM, {"options": {"faint_rule": "text"}}),
    Rule("GET", "/v1/campaigns/{campaign}/tokens", GM),
    Rule("POST", "/v1/campaigns/{campaign}/tokens", GM, {"kind": "site", "label": "wiki"}),
    Rule(
        "POST",
        "/v1/campaigns/{campaign}/characters",
        OWNER,
        {"owner": "aoi", "name": "二号", "base_stats": AOI},
    ),
    Rule("GET", "/v1/characters/{character}", EVERYONE),
    Rule("POST", "/v1/characters/{character}/advance", OWNER, {"level": 2, "base_stats": AOI}),
    Rule("POST", "/v1/characters/{character}/items", OWNER, ITEM),
    Rule(
        "POST",
        "/v1/characters/{character}/skills",
        OWNER,
        {"name": "集中", "cost": 5, "uses": 1},
    ),
    Rule("GET", "/v1/characters/{character}/sheet", EVERYONE),
    Rule("GET", "/v1/characters/{character}/hp-ledger", EVERYONE),
    Rule(
        "POST",
        "/v1/campaigns/{campaign}/characters/import",
        PLAYERS,  # a player imports their own character
        PIECE,
    ),
    Rule(
        "POST",
        "/v1/campaigns/{campaign}/units",
        OWNER,
        {"pilot_id": "{character}", "name": "弐", "base_stats": KURENAI},
    ),
    Rule("GET", "/v1/units/{unit}", EVERYONE),
    Rule("POST", "/v1/units/{unit}/items", OWNER, ITEM),
    Rule("GET", "/v1/units/{unit}/sheet", EVERYONE),
    Rule("POST", "/v1/campaigns/{campaign}/scenarios", GM, {"name": "第2話"}),
    Rule("GET", "/v1/scenarios/{scenario}", EVERYONE),
    Rule(
        "POST",
        "/v1/scenarios/{scenario}/participants",
        OWNER,
        {"character_id": "{character}", "unit_id": "{unit}"},
    ),
    Rule("POST", "/v1/scenarios/{scenario}/start", GM, {}),
    Rule("POST", "/v1/scenarios/{scenario}/close", GM, {"results": []}),
    Rule("POST", "/v1/campaigns/{campaign}/encounters", GM, {"battle_map": {}}),
    Rule("GET", "/v1/encounters/{encounter}", EVERYONE),
    Rule(
        "POST",
        "/v1/encounters/{encounter}/commands",
        OWNER,
        {"command": "Cleanup", "combatant_id": "ace"},
    ),
    Rule("GET", "/v1/encounters/{encounter}/events", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/stream?limit=1", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/audit", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/rulings", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/rulings/search", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/log", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/at?turn=1", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/points", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/options", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/crews", EVERYONE),
    Rule("GET", "/v1/encounters/{encounter}/playable", EVERYONE),
    # The fight's grunt is hidden from everyone but the GM: its replay is the GM's.
    Rule("POST", "/v1/encounters/{encounter}/replay", GM, {"options": {}}),
    Rule("GET", "/v1/encounters/{encounter}/disputes", EVERYONE),
    Rule(
        "POST",
        "/v1/encounters/{encounter}/disputes",
        PLAYERS,
        {"ruling_version": 1, "reason": "why"},
    ),
    Rule("POST", "/v1/encounters/{encounter}/disputes/{dispute}/uphold", GM, {"note": ""}),
    Rule("POST", "/v1/encounters/{encounter}/disputes/{dispute}/amend", GM, {"options": {}}),
    Rule("GET", "/v1/campaigns/{campaign}/timeline", EVERYONE),
    Rule("POST", "/v1/campaigns/{campaign}/rolls", PLAYERS, {"expression": "2D6"}),
    # Every reader may read every log of the campaign (secret rolls withheld in it): so its
    # list; a roller token reaches its one log through BCDice-API only.
    Rule("GET", "/v1/campaigns/{campaign}/rolls/logs", EVERYONE),
    Rule(
        "POST", "/v1/campaigns/{campaign}/tables", GM, {"name": "表", "text": "表\n1D2\n1:a\n2:b"}
    ),
    Rule("GET", "/v1/campaigns/{campaign}/tables", EVERYONE),
    Rule("GET", "/v1/campaigns/{campaign}/tables/表", EVERYONE),
    Rule("GET", "/v1/roll-logs/{roll_log}", EVERYONE),
    Rule("GET", "/v1/roll-logs/{roll_log}/verify", EVERYONE),
    # Last: these change the world for the ones after them.
    Rule("POST", "/v1/encounters/{encounter}/reveal", GM, {}),
    Rule("POST", "/v1/roll-logs/{roll_log}/reveal", GM, {}),
    Rule("DELETE", "/v1/characters/{character}/items/盾", OWNER),
    Rule("DELETE", "/v1/characters/{character}/skills/集中", OWNER),
    Rule("DELETE", "/v1/units/{unit}/items/盾", OWNER),
    Rule("DELETE", "/v1/campaigns/{campaign}/tokens/{extra_token}", GM),
    Rule("DELETE", "/v1/campaigns/{campaign}/members/extra", GM),
]
PUBLIC = {
    ("POST", "/v1/campaigns"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/v1/version"),
    ("GET", "/v1/log/head"),
    # Issue 37: what a witness reads says nothing of what the events hold.
    ("GET", "/v1/log/key"),
    ("GET", "/v1/log/{shard}/checkpoint"),
    ("GET", "/v1/log/{shard}/consistency"),
}
# A position names an event: its proof is for readers of its stream, and anyone else is told
# what a position without an event tells them (404), not that it exists (403).
AS_IF_ABSENT = {("GET", "/v1/log/{shard}/inclusion")}
# BCDice-API v2: the credential is in the address, a roller token only
# (tests/api/test_bcdice_api.py: a member token there is 403, a revoked one 401).
BY_ADDRESS = {
    (method, f"/bcdice/{{credential}}/v2{path}")
    for method, path in (
        ("GET", "/version"),
        ("GET", "/admin"),
        ("GET", "/game_system"),
        ("GET", "/game_system/{system_id}"),
        ("GET", "/game_system/{system_id}/roll"),
        ("POST", "/game_system/{system_id}/roll"),
        ("POST", "/original_table"),
    )
} | {("GET", "/bcdice/{credential}")}  # BCDice-API's greeting


def world(client: TestClient) -> tuple[Fight, dict[str, str], dict[str, str]]:
    """A started fight in a campaign with a pilot, a core, a scenario, a roll log and a
    dispute, and a token for every kind of caller."""
    fight = started_fight(client)
    campaign = fight.campaign
    gm = campaign.gm
    pilot = ok(
        campaign.post(
            f"/v1/campaigns/{campaign.id}/characters",
            json={"owner": "aoi", "name": "蒼井", "base_stats": AOI},
        ),
        201,
    )
    core = ok(
        campaign.post(
            f"/v1/campaigns/{campaign.id}/units",
            json={"pilot_id": pilot["id"], "name": "紅", "base_stats": KURENAI},
        ),
        201,
    )
    scenario = ok(campaign.post(f"/v1/campaigns/{campaign.id}/scenarios", json={"name": "1"}), 201)
    rolled = ok(
        campaign.post(f"/v1/campaigns/{campaign.id}/rolls", json={"expression": "1D6"}), 201
    )
    events = fight.get("/events").json()["events"]
    ruling = next(e["version"] for e in events if e["type"] == "RulingRecorded")
    dispute = ok(
        campaign.post(
            f"/v1/encounters/{fight.id}/disputes",
            fight.tokens["aoi"],
            json={"ruling_version": ruling, "reason": "?"},
        ),
        201,
    )
    extra_token = campaign.token_for("extra", role="viewer")
    tokens = {
        t["member_id"]: t["token_id"]
        for t in client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=auth(gm)).json()
    }
    revoked = campaign.token_for("gone")
    client.delete(
        f"/v1/campaigns/{campaign.id}/tokens/{tokens.get('gone') or _id(revoked)}", headers=auth(gm)
    )
    callers = {
        "gm": gm,
        "owner": fight.tokens["aoi"],
        "other": fight.tokens["kai"],
        "viewer": fight.tokens["mio"],
        "site": fight.tokens["site"],
        "revoked": revoked,
        "foreign": open_campaign(client).gm,
        "roller": ok(
            campaign.post(
                f"/v1/campaigns/{campaign.id}/tokens",
                json={"kind": "roller", "roll_log_id": rolled["roll_log"]["id"]},
            ),
            201,
        )["token"],
    }
    ids = {
        "campaign": campaign.id,
        "character": pilot["id"],
        "unit": core["id"],
        "scenario": scenario["id"],
        "encounter": fight.id,
        "roll_log": rolled["roll_log"]["id"],
        "dispute": dispute["dispute_id"],
        "extra_token": _id(extra_token),
        "gm": gm,
    }
    return fight, callers, ids


def _id(token: str) -> str:
    return token.split(".")[2]


def _fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**ids) if "{" in value else value
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


def call(client: TestClient, rule: Rule, token: str | None, ids: dict[str, str]) -> int:
    headers = auth(token) if token else {}
    if rule.method in {"POST", "PATCH", "PUT"}:
        headers |= key()
    path = rule.path.format(**ids)
    if path.endswith("/commands"):  # a contested resource: If-Match is checked first (428)
        version = client.get(f"/v1/encounters/{ids['encounter']}", headers=auth(ids["gm"]))
        headers["If-Match"] = f'"{version.json()["version"]}"'

    body = _fill(rule.body, ids) if rule.body is not None else None
    return client.request(rule.method, path, headers=headers, json=body).status_code


def expected(rule: Rule, caller: str) -> str:
    if caller in ("none", "revoked"):
        return "401"
    if caller not in rule.allowed:  # "foreign" is allowed only where a rule says so
        return "403"
    return "allowed"


def test_every_endpoint_for_every_caller(client: TestClient) -> None:
    _, callers, ids = world(client)
    wrong: list[str] = []
    for rule in TABLE:
        ordered = [c for c in CALLERS if expected(rule, c) != "allowed"]
        ordered += [c for c in CALLERS if expected(rule, c) == "allowed"]
        for caller in ordered:
            status = call(client, rule, callers.get(caller), ids)
            want = expected(rule, caller)
            ok_ = status not in (401, 403) if want == "allowed" else str(status) == want
            if not ok_:
                wrong.append(f"{rule.method} {rule.path} as {caller}: {status}, want {want}")
    assert not wrong, "\n".join(wrong)


def test_the_table_lists_every_endpoint(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    served = {(method.upper(), path) for path, ops in paths.items() for method in ops}
    listed = {(r.method, _template(r.path)) for r in TABLE} | PUBLIC | BY_ADDRESS | AS_IF_ABSENT
    missing = sorted(served - listed)
    assert not missing, f"add these endpoints to the authorisation table: {missing}"


def _template(path: str) -> str:
    """The OpenAPI path of a table path: its placeholders named as the routes name them."""
    path = path.split("?", maxsplit=1)[0]
    names = {
        "{campaign}": "{campaign_id}",
        "{character}": "{character_id}",
        "{unit}": "{unit_id}",
        "{scenario}": "{scenario_id}",
        "{encounter}": "{encounter_id}",
        "{roll_log}": "{log_id}",
        "{dispute}": "{dispute_id}",
        "{extra_token}": "{token_id}",
        "/members/extra": "/members/{member_id}",
        "/items/盾": "/items/{item_name}",
        "/skills/集中": "/skills/{skill_name}",
        "/tables/表": "/tables/{name}",
    }
    for short, long in names.items():
        path = path.replace(short, long)
    return path


def test_an_inclusion_proof_is_for_the_campaigns_readers_and_absent_for_anyone_else(
    client: TestClient, runtime: Runtime
) -> None:
    _, callers, ids = world(client)
    shard = runtime.ledger.shard_of(UUID(ids["campaign"]))
    head = runtime.ledger.head(shard=shard).position  # the roller token issued: the campaign's
    size = client.get(f"/v1/log/{shard}/checkpoint").text.split("\n")[1]
    path = f"/v1/log/{shard}/inclusion?position={head}&size={size}"
    want = dict.fromkeys(EVERYONE, 200) | {"none": 401, "revoked": 401, "foreign": 404}
    want["roller"] = 404  # a roller token reads nothing: to it no position holds an event
    got = {
        caller: client.get(path, headers=auth(token) if token else {}).status_code
        for caller, token in callers.items() | {("none", None)}
    }
    assert got == want
