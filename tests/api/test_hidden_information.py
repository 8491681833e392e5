"""Hidden information never reaches a reader who may not see it (issue 15 §1, docs/visibility.md).

Given a fight under each rule system in which the GM keeps one combatant hidden — its sheet
and state made of distinctive four-digit numbers (HP 7919, armour 1031, INI 1427, …) — when
every reader (a player, another player, a viewer, a sheet site) reads every read surface,
then none of the hidden combatant's values appears anywhere in any answer; and the GM, who
may see them, does find them (so the search can fail). The matrix is surface × reader ×
rule system; a finding names all three and the value. The GM's secret roll (1D100+4271) is
searched for the same way. Each event's chain salt (schema 13) is a secret no role reads, the
GM included: it keeps the chain hashes every reader gets blind (tests/api/test_salted_links.py),
so every answer to every role is searched for every stored salt, in every spelling; the
operator's audit bundle, which carries them, shows the search finds one.

Every route of the API is read by a surface here, checked for secrets by a test elsewhere, or
listed with why it cannot carry a secret: a test walks the OpenAPI document and fails on a
route in none of the three lists, naming the line to add (as the authorisation matrix does).
"""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from psycopg.sql import SQL

from api.app import create_app
from infra.demo import ak as demo_ak
from infra.demo import wz as demo_wz
from infra.demo.table import DemoTable
from infra.services.runtime import Runtime
from infra.store.bundle import export_bundle
from tests.api.conftest import auth, key
from tests.api.fight import ACE_JOIN, Fight, ace_join, ace_shoots_grunt
from tests.support.runtime import log_heads
from tests.unit.encounter.table import sheet, weapon

READERS = ("aoi", "kai", "mio", "site")  # the controlling player, another, a viewer, a site
SURFACES = (
    "state",
    "time travel (?version=)",
    "time travel (/at)",
    "events",
    "stream",
    "log",
    "rulings (read model)",
    "rulings (audit trail)",
    "replay",
    "replay, hidden join amended",
    "replay, hidden join renamed (unapplied)",
    "command answers",
    "crews",
    "points",
    "playable",
    "disputes",
    "audit (dice)",
    "campaign timeline",
    "web audit bundle",
    "inclusion proofs",
    "roll logs (list)",
    "table log",
    "campaign",
    "me",
    "what-if options",
    "roll log (GM's secret roll)",
    "roll log verified",
)

# --- every route of the API, and why it is searched or not ----------------------------------
# A route is (method, path as the OpenAPI document names it). Each list takes one line per
# route; `test_every_route_is_searched_checked_elsewhere_or_cannot_carry_a_secret` names the
# line to add for a route in none of them.

# The routes the matrix reads, each with its surface (the key in `answers`).
READ_BY: dict[tuple[str, str], str] = {
    ("GET", "/v1/encounters/{encounter_id}"): "state",
    ("GET", "/v1/encounters/{encounter_id}/at"): "time travel (/at)",
    ("GET", "/v1/encounters/{encounter_id}/events"): "events",
    ("GET", "/v1/encounters/{encounter_id}/stream"): "stream",
    ("GET", "/v1/encounters/{encounter_id}/log"): "log",
    ("GET", "/v1/encounters/{encounter_id}/rulings/search"): "rulings (read model)",
    ("GET", "/v1/encounters/{encounter_id}/rulings"): "rulings (audit trail)",
    ("POST", "/v1/encounters/{encounter_id}/replay"): "replay",
    ("POST", "/v1/encounters/{encounter_id}/commands"): "command answers",
    ("GET", "/v1/encounters/{encounter_id}/crews"): "crews",
    ("GET", "/v1/encounters/{encounter_id}/points"): "points",
    ("GET", "/v1/encounters/{encounter_id}/playable"): "playable",
    ("GET", "/v1/encounters/{encounter_id}/disputes"): "disputes",
    ("GET", "/v1/encounters/{encounter_id}/audit"): "audit (dice)",
    ("GET", "/v1/encounters/{encounter_id}/options"): "what-if options",
    ("GET", "/v1/campaigns/{campaign_id}/timeline"): "campaign timeline",
    ("GET", "/v1/campaigns/{campaign_id}"): "campaign",
    ("GET", "/v1/me"): "me",
    ("GET", "/v1/log/{shard}/inclusion"): "inclusion proofs",
    ("GET", "/v1/roll-logs/{log_id}"): "roll log (GM's secret roll)",
    ("GET", "/v1/roll-logs/{log_id}/verify"): "roll log verified",
    ("GET", "/v1/campaigns/{campaign_id}/rolls/logs"): "roll logs (list)",
}
# Routes whose answers another test searches for what its readers may not see: "file::test".
CHECKED_ELSEWHERE: dict[tuple[str, str], str] = {}

GM_ONLY = "the GM's alone (authorisation matrix): any other reader is refused before a read"
CAMPAIGN_RECORDS = (
    "a campaign's pilots, units and scenarios, kept by its players and GM outside any encounter "
    "and open to every member by design: no encounter's or roll's event feeds them"
)
OWN_ROLL = "answers the caller's own roll; anyone else reads it in the roll log (READ_BY)"
SERVICE = "the service's own health, version and fixed BCDice-API facts: no campaign's data"
LOG_HASHES = "the log's heads, key, signed checkpoints and proofs: sizes and hashes, no event"
# Routes that cannot answer a reader with an encounter's or a roll's secret, and why.
CANNOT_CARRY_SECRETS: dict[tuple[str, str], str] = {
    ("POST", "/v1/campaigns"): "opens a campaign: the caller's own, with nothing in it yet",
    ("PUT", "/v1/campaigns/{campaign_id}/options"): GM_ONLY,
    ("POST", "/v1/campaigns/{campaign_id}/members"): GM_ONLY,
    ("PATCH", "/v1/campaigns/{campaign_id}/members/{member_id}"): GM_ONLY,
    ("DELETE", "/v1/campaigns/{campaign_id}/members/{member_id}"): GM_ONLY,
    ("GET", "/v1/campaigns/{campaign_id}/tokens"): GM_ONLY,
    ("POST", "/v1/campaigns/{campaign_id}/tokens"): GM_ONLY,
    ("DELETE", "/v1/campaigns/{campaign_id}/tokens/{token_id}"): GM_ONLY,
    ("POST", "/v1/campaigns/{campaign_id}/encounters"): GM_ONLY,
    ("POST", "/v1/encounters/{encounter_id}/reveal"): GM_ONLY,
    ("POST", "/v1/encounters/{encounter_id}/disputes/{dispute_id}/uphold"): GM_ONLY,
    ("POST", "/v1/encounters/{encounter_id}/disputes/{dispute_id}/amend"): GM_ONLY,
    ("POST", "/v1/encounters/{encounter_id}/disputes"): (
        "answers the dispute's id and the encounter's version (DisputeAnswer): nothing of a "
        "ruling; the dispute itself is read back through `disputes`"
    ),
    ("POST", "/v1/roll-logs/{log_id}/reveal"): GM_ONLY,
    ("POST", "/v1/campaigns/{campaign_id}/scenarios"): GM_ONLY,
    ("POST", "/v1/scenarios/{scenario_id}/start"): GM_ONLY,
    ("POST", "/v1/scenarios/{scenario_id}/close"): GM_ONLY,
    ("GET", "/v1/scenarios/{scenario_id}"): CAMPAIGN_RECORDS,
    ("POST", "/v1/scenarios/{scenario_id}/participants"): CAMPAIGN_RECORDS,
    ("POST", "/v1/campaigns/{campaign_id}/characters"): CAMPAIGN_RECORDS,
    ("POST", "/v1/campaigns/{campaign_id}/characters/import"): CAMPAIGN_RECORDS,
    ("GET", "/v1/characters/{character_id}"): CAMPAIGN_RECORDS,
    ("GET", "/v1/characters/{character_id}/sheet"): CAMPAIGN_RECORDS,
    ("GET", "/v1/characters/{character_id}/hp-ledger"): CAMPAIGN_RECORDS,
    ("POST", "/v1/characters/{character_id}/advance"): CAMPAIGN_RECORDS,
    ("POST", "/v1/characters/{character_id}/items"): CAMPAIGN_RECORDS,
    ("DELETE", "/v1/characters/{character_id}/items/{item_name}"): CAMPAIGN_RECORDS,
    ("POST", "/v1/characters/{character_id}/skills"): CAMPAIGN_RECORDS,
    ("DELETE", "/v1/characters/{character_id}/skills/{skill_name}"): CAMPAIGN_RECORDS,
    ("POST", "/v1/campaigns/{campaign_id}/units"): CAMPAIGN_RECORDS,
    ("GET", "/v1/units/{unit_id}"): CAMPAIGN_RECORDS,
    ("GET", "/v1/units/{unit_id}/sheet"): CAMPAIGN_RECORDS,
    ("POST", "/v1/units/{unit_id}/items"): CAMPAIGN_RECORDS,
    ("DELETE", "/v1/units/{unit_id}/items/{item_name}"): CAMPAIGN_RECORDS,
    ("POST", "/v1/campaigns/{campaign_id}/tables"): GM_ONLY,
    ("GET", "/v1/campaigns/{campaign_id}/tables"): (
        "the kept dice tables every member rolls on, open by design; which table a secret roll "
        "used shows only in its roll log (READ_BY)"
    ),
    ("GET", "/v1/campaigns/{campaign_id}/tables/{name}"): (
        "one kept dice table, open to every member by design (as the list of them)"
    ),
    ("POST", "/v1/campaigns/{campaign_id}/rolls"): OWN_ROLL,
    ("GET", "/bcdice/{credential}/v2/game_system/{system_id}/roll"): OWN_ROLL,
    ("POST", "/bcdice/{credential}/v2/game_system/{system_id}/roll"): OWN_ROLL,
    ("POST", "/bcdice/{credential}/v2/original_table"): OWN_ROLL,
    ("GET", "/bcdice/{credential}"): SERVICE,
    ("GET", "/bcdice/{credential}/v2/version"): SERVICE,
    ("GET", "/bcdice/{credential}/v2/admin"): SERVICE,
    ("GET", "/bcdice/{credential}/v2/game_system"): SERVICE,
    ("GET", "/bcdice/{credential}/v2/game_system/{system_id}"): SERVICE,
    ("GET", "/healthz"): SERVICE,
    ("GET", "/readyz"): SERVICE,
    ("GET", "/v1/version"): SERVICE,
    ("GET", "/v1/log/head"): LOG_HASHES,
    ("GET", "/v1/log/key"): LOG_HASHES,
    ("GET", "/v1/log/{shard}/checkpoint"): LOG_HASHES,
    ("GET", "/v1/log/{shard}/consistency"): LOG_HASHES,
}

# A number in an answer, not a piece of a hash, a UUID, a timestamp or a longer number.
NUMBER = r"(?<![\w.])(?<!\w-){}(?![\w\-]|\.\d)"


@dataclass
class Table:
    """A fight with a hidden combatant, every reader's token, and what players were answered."""

    ruleset: str
    client: TestClient
    encounter: str
    hidden: str
    tokens: dict[str, str]
    campaign: str
    answers: dict[str, list[Any]] = field(default_factory=dict)
    hidden_join: int = 0  # index of the hidden combatant's JoinCombatant among the commands
    amended_sheet: dict[str, Any] = field(default_factory=dict)
    roll_log: str = ""  # the GM's secret roll log in the campaign (`secret_roll`)

    def get(self, path: str, who: str, **params: Any) -> httpx.Response:
        return self.client.get(
            f"/v1/encounters/{self.encounter}{path}", headers=auth(self.tokens[who]), params=params
        )

    def post(self, path: str, who: str, body: dict[str, Any]) -> httpx.Response:
        headers = auth(self.tokens[who]) | key()
        return self.client.post(
            f"/v1/encounters/{self.encounter}{path}", headers=headers, json=body
        )


class Recording(DemoTable):
    """The demo's table, hiding the GM's combatant and keeping each player's answers."""

    def __init__(self, http: httpx.Client, hidden: str, answers: dict[str, list[Any]]) -> None:
        super().__init__(http)
        self.hidden = hidden
        self.answers = answers

    def command(self, body: dict[str, Any], who: str = "gm") -> Any:
        if body.get("command") == "JoinCombatant" and body["combatant_id"] == self.hidden:
            body = body | {"hidden": True}
        answer = super().command(body, who)
        self.answers.setdefault(who, []).append(answer)
        return answer


def _campaign(table: DemoTable, ruleset: str) -> str:
    opened = table.call(
        "POST", "/v1/campaigns", json={"name": "秘匿", "gm_member_id": "gm", "ruleset": ruleset}
    )
    table.tokens["gm"], campaign = str(opened["token"]), str(opened["id"])
    for member, role in (("aoi", "player"), ("kai", "player"), ("mio", "viewer")):
        path = f"/v1/campaigns/{campaign}"
        table.call("POST", f"{path}/members", json={"member_id": member, "role": role})
        issued = table.call("POST", f"{path}/tokens", json={"kind": "member", "member_id": member})
        table.tokens[member] = str(issued["token"])
    site = table.call("POST", f"/v1/campaigns/{campaign}/tokens", json={"kind": "site"})
    table.tokens["site"] = str(site["token"])
    return campaign


def _join_all(
    table: DemoTable, campaign: str, battle_map: dict[str, Any], combatants: list[Any]
) -> None:
    opened = table.call(
        "POST", f"/v1/campaigns/{campaign}/encounters", json={"battle_map": battle_map}
    )
    table.encounter = str(opened["id"])
    for cid, name, controller, side, body in combatants:
        table.command(
            {
                "command": "JoinCombatant",
                "combatant_id": cid,
                "name": name,
                "side": side,
                "controller": controller,
                "sheet": body,
            }
        )


# --- the three fights ------------------------------------------------------------------------

GRUNT_STATS = {
    "phys_atk": 1117,
    "phys_def": 1303,
    "perc_atk": 1409,
    "perc_def": 1511,
    "evasion": 1601,
    "melee_hit": 1613,
    "ranged_hit": 1709,
    "move": 1811,
    "hp": 7919,
    "reaction": 1823,  # acts first
    "resistance": 1933,
}


def glorious_drive(client: TestClient) -> Table:
    """The hidden grunt (reaction 1823) acts first: its rifle (attack 1913) hits wing, and
    kai's TakeHit is answered with that ruling; then ace (aoi's) shoots the grunt (HP 7919,
    defence 1303: the minimum damage is what it loses, GD-DMG-1)."""
    answers: dict[str, list[Any]] = {}
    table = Recording(client, "grunt", answers)
    campaign = _campaign(table, "glorious_drive")
    grunt = sheet(4, 1, hp=7919, weapons=[weapon(attack=1913, range=9)], stats=GRUNT_STATS)
    _join_all(
        table,
        campaign,
        {"width": 12, "height": 12},
        [
            ("ace", "エース", "aoi", "pc", sheet(1, 1, reaction=20)),
            ("wing", "ウィング", "kai", "pc", sheet(1, 2, reaction=10)),
            ("grunt", "グラント", "gm", "enemy", grunt),
        ],
    )
    table.command({"command": "RollInitiative"})
    for body, who in (
        ({"command": "Cleanup", "combatant_id": "grunt"}, "gm"),
        ({"command": "DeclareAttack", "combatant_id": "grunt", "target": "wing"}, "gm"),
        ({"command": "TakeHit", "combatant_id": "wing"}, "kai"),
        ({"command": "Cleanup", "combatant_id": "ace"}, "aoi"),
        ({"command": "DeclareAttack", "combatant_id": "ace", "target": "grunt"}, "aoi"),
        ({"command": "TakeHit", "combatant_id": "grunt"}, "gm"),
    ):
        table.command(body, who)
    return Table(
        "glorious_drive",
        client,
        table.encounter,
        "grunt",
        table.tokens,
        campaign,
        answers,
        hidden_join=2,
        amended_sheet=sheet(4, 1),
    )


def wizardry_round(client: TestClient) -> Table:
    """The demo's two rounds (infra/demo/wz.py), the ogre hidden: INI 1427, AC 1213,
    endurance 1319."""
    answers: dict[str, list[Any]] = {}
    table = Recording(client, "ogre", answers)
    campaign = _campaign(table, "wizardry_round")
    combatants = [
        (cid, name, controller, side, body)
        if cid != "ogre"
        else (cid, name, controller, side, body | {"ini": 1427, "ac": 1213, "endurance": 1319})
        for cid, name, controller, side, body in demo_wz.COMBATANTS
    ]
    _join_all(table, campaign, {}, combatants)
    demo_wz.play(table)
    return Table(
        "wizardry_round",
        client,
        table.encounter,
        "ogre",
        table.tokens,
        campaign,
        answers,
        hidden_join=3,
        amended_sheet={"ini": 8, "ac": 5, "endurance": 10},
    )


def armor_knights(client: TestClient) -> Table:
    """The demo's duel (infra/demo/ak.py), blue hidden: armour 1031 physical, 1049 beam."""
    answers: dict[str, list[Any]] = {}
    table = Recording(client, "blue", answers)
    campaign = _campaign(table, "armor_knights")
    blue = demo_ak._knight(5) | {"armor": {"physical": 1031, "beam": 1049}}
    _join_all(
        table,
        campaign,
        {"width": 8, "height": 3},
        [demo_ak.COMBATANTS[0], (*demo_ak.COMBATANTS[1][:4], blue)],
    )
    demo_ak.play(table)
    return Table(
        "armor_knights",
        client,
        table.encounter,
        "blue",
        table.tokens,
        campaign,
        answers,
        hidden_join=1,
        amended_sheet=demo_ak._knight(5),
    )


FIGHTS: dict[str, Callable[[TestClient], Table]] = {
    "glorious_drive": glorious_drive,
    "wizardry_round": wizardry_round,
    "armor_knights": armor_knights,
}


# --- what is secret, and where a reader looks ----------------------------------------------


def _numbers(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


def secrets(table: Table) -> set[int]:
    """Every distinctive number of the hidden combatant, as the GM saw it at every version:
    its sheet and its live state (HP after each hit, armour after each effect)."""
    found: set[int] = set()
    now = table.get("", "gm").json()["version"]
    for version in range(1, now + 1):
        for combatant in table.get("", "gm", version=version).json()["combatants"]:
            if combatant["combatant_id"] == table.hidden:
                found |= set(_numbers(combatant["sheet"])) | set(_numbers(combatant["status"]))
    return {n for n in found if n >= 1000}


SECRET_TARGET = 4271  # the GM's secret roll: 1D100+4271, a total of 4272 to 4371


def secret_roll(table: Table) -> set[int]:
    """The GM rolls in secret in the fight's campaign; its target and total are secrets."""
    rolled = table.client.post(
        f"/v1/campaigns/{table.campaign}/rolls",
        headers=auth(table.tokens["gm"]) | key(),
        json={"name": "GM秘匿", "secret": True, "expression": f"1D100+{SECRET_TARGET}"},
    )
    assert rolled.status_code in (200, 201), rolled.text
    table.roll_log = rolled.json()["roll_log"]["id"]
    return {SECRET_TARGET, rolled.json()["roll"]["total"]}


def _caught_up(table: Table, runtime: Runtime, path: str) -> None:
    heads = log_heads(runtime)
    for _ in range(400):
        body = table.get(path, "gm").json()
        # A read model still being built answers 503 (no `reflects`): not caught up yet.
        if "reflects" in body and all(
            body["reflects"].get(str(s), 0) >= h for s, h in enumerate(heads)
        ):
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never caught up with {heads}")


def answers(table: Table, who: str) -> dict[str, Any]:
    """Every read surface's answer to `who`, as text."""
    now = table.get("", who).json()["version"]
    commands = [
        e
        for e in table.get("/events", who, limit=500).json()["events"]
        if e["type"] == "CommandIssued"
    ]
    join = commands[table.hidden_join]["payload"]["payload"]
    amended = {k: v for k, v in join.items() if k != "hidden"} | {"sheet": table.amended_sheet}
    # Renamed, the hidden combatant never joins the replay: every command for it is unapplied,
    # each with the engine's message about it (issue 19 item 4).
    renamed = join | {"combatant_id": "ghost", "hidden": True, "sheet": table.amended_sheet}
    found: dict[str, Any] = {
        "state": table.get("", who).text,
        "time travel (?version=)": [table.get("", who, version=v).text for v in range(1, now + 1)],
        "time travel (/at)": [table.get("/at", who, turn=t).text for t in (0, 1, 2)],
        "events": table.get("/events", who, limit=500).text,
        "stream": table.get("/stream", who, after=0, limit=now).text,
        "log": table.get("/log", who).text,
        "rulings (read model)": table.get("/rulings/search", who).text,
        "rulings (audit trail)": table.get("/rulings", who).text,
        "replay": table.post("/replay", who, {"options": {}}).text,
        "replay, hidden join amended": table.post(
            "/replay",
            who,
            {"amendment": {"command": table.hidden_join, "payload": amended}},
        ).text,
        "replay, hidden join renamed (unapplied)": table.post(
            "/replay",
            who,
            {"amendment": {"command": table.hidden_join, "payload": renamed}},
        ).text,
        "command answers": json.dumps(table.answers.get(who, [])),
        "crews": table.get("/crews", who).text,
        "points": table.get("/points", who).text,
        "playable": table.get("/playable", who).text,
        "disputes": table.get("/disputes", who).text,
        "audit (dice)": table.get("/audit", who).text,
        "campaign timeline": table.client.get(
            f"/v1/campaigns/{table.campaign}/timeline", headers=auth(table.tokens[who])
        ).text,
        "campaign": table.client.get(
            f"/v1/campaigns/{table.campaign}", headers=auth(table.tokens[who])
        ).text,
        "me": table.client.get("/v1/me", headers=auth(table.tokens[who])).text,
        "what-if options": table.get("/options", who).text,
        "roll log (GM's secret roll)": table.client.get(
            f"/v1/roll-logs/{table.roll_log}", headers=auth(table.tokens[who])
        ).text,
        "roll log verified": table.client.get(
            f"/v1/roll-logs/{table.roll_log}/verify", headers=auth(table.tokens[who])
        ).text,
    }
    found["inclusion proofs"] = _inclusion_proofs(table, who, found["events"])
    listed = table.client.get(
        f"/v1/campaigns/{table.campaign}/rolls/logs", headers=auth(table.tokens[who])
    )
    found["roll logs (list)"] = listed.text
    found["table log"] = table.client.get(
        f"/v1/roll-logs/{listed.json()['table_log_id']}", headers=auth(table.tokens[who])
    ).text
    # The table page's "Download the audit bundle": what the page fetched, in one file.
    found["web audit bundle"] = json.dumps(
        [found["state"], found["events"], found["rulings (audit trail)"], found["audit (dice)"]]
    )
    return found


def _inclusion_proofs(table: Table, who: str, events: str) -> list[str]:
    """The proof of every event the reader was shown, on every shard (issue 37)."""
    heads = table.client.get("/v1/log/head").json()["heads"]
    # Each shard's size from its checkpoint (which builds its tree; the head gives the size
    # only of a tree this process has built already).
    sizes = {
        head["shard"]: table.client.get(f"/v1/log/{head['shard']}/checkpoint").text.split("\n")[1]
        for head in heads
    }
    return [
        table.client.get(
            f"/v1/log/{shard}/inclusion",
            params={"position": event["position"], "size": size},
            headers=auth(table.tokens[who]),
        ).text
        for event in json.loads(events)["events"]
        for shard, size in sizes.items()
    ]


def leaks(text: Any, values: set[int]) -> list[int]:
    blob = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    return sorted(v for v in values if re.search(NUMBER.format(v), blob))


def stored_salts(runtime: Runtime) -> set[bytes]:
    """Every chain salt the log holds, on every shard."""
    salts: set[bytes] = set()
    for shard in runtime.ledger.shards:
        query = SQL("SELECT chain_salt FROM {0} WHERE chain_salt IS NOT NULL").format(
            shard.table(shard.tables.events)
        )
        with shard.datastore.transaction(commit=False) as cursor:
            cursor.execute(query)
            salts |= {bytes(row["chain_salt"]) for row in cursor.fetchall()}
    return salts


def salt_leaks(text: Any, salts: set[bytes]) -> int:
    """How many salts appear in `text` as hex, base64 (either alphabet) or a UUID (the trigger
    draws them as one)."""
    blob = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    folded = blob.lower()
    return sum(
        salt.hex() in folded
        or str(uuid.UUID(bytes=salt)) in folded
        or base64.b64encode(salt).decode().rstrip("=") in blob
        or base64.urlsafe_b64encode(salt).decode().rstrip("=") in blob
        for salt in salts
    )


def _gm_checks_in_secret(table: Table, values: set[int]) -> None:
    """The GM rolls against the hidden numbers in secret, in the table log (issue #35 §7)."""
    for value in sorted(values)[:3]:
        rolled = table.client.post(
            f"/v1/campaigns/{table.campaign}/rolls",
            headers=auth(table.tokens["gm"]) | key(),
            json={"expression": f"1D100<={value} {value}", "secret": True},
        )
        assert rolled.status_code in (200, 201), rolled.text


@pytest.fixture
def projected(runtime: Runtime) -> Runtime:
    runtime.start_projector()
    return runtime


def _route(path: str) -> re.Pattern[str]:
    """A route's path as a pattern of the paths it serves."""
    return re.compile(re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(path)))


@pytest.mark.postgres
@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
def test_no_reader_finds_a_hidden_combatants_values_anywhere(
    ruleset: str, client: TestClient, projected: Runtime
) -> None:
    requested: list[tuple[str, str, str]] = []  # (method, path, Authorization) of each call
    client.event_hooks["request"] = [
        lambda r: requested.append((r.method, r.url.path, r.headers.get("authorization", "")))
    ]
    table = FIGHTS[ruleset](client)
    assert table.post("/reveal", "gm", {}).status_code == 200  # the audit surface needs it
    for path in ("/log", "/rulings/search"):
        _caught_up(table, projected, path)
    values = secrets(table)
    assert len(values) >= 3, values  # the fight did put distinctive numbers in play
    _gm_checks_in_secret(table, values)
    rolled = secret_roll(table)
    values |= rolled
    seen_by_gm = answers(table, "gm")
    assert set(seen_by_gm) == set(SURFACES)
    assert leaks(seen_by_gm["state"], values), "the GM must see the hidden sheet"
    assert leaks(seen_by_gm["table log"], values), "the GM must see their secret rolls"
    assert leaks(seen_by_gm["roll log (GM's secret roll)"], rolled) == sorted(rolled)
    assert json.loads(seen_by_gm["replay, hidden join renamed (unapplied)"])["unapplied"]
    seen = {"gm": seen_by_gm} | {who: answers(table, who) for who in READERS}
    found = {
        (surface, who, str(value))
        for who in READERS
        for surface, text in seen[who].items()
        for value in leaks(text, values)
    }
    salts = stored_salts(projected)
    operators = export_bundle(projected.ledger, uuid.UUID(table.encounter))
    assert salt_leaks(operators, salts) == len(operators["events"]), "the search finds a salt"
    found |= {
        (surface, who, f"{count} chain salt(s)")
        for who, surfaces in seen.items()
        for surface, text in surfaces.items()
        if (count := salt_leaks(text, salts))
    }
    tried = len(SURFACES) * len(seen)
    assert not found, f"{ruleset}: {len(found)} leaks over {tried} surface × reader cases: " + (
        "; ".join(f"{s} to {w}: {v}" for s, w, v in sorted(found))
    )
    # READ_BY says which routes the surfaces read: each was read with a reader's token.
    bearers = {auth(table.tokens[who])["Authorization"] for who in READERS}
    unread = [
        f"{method} {path} ({surface})"
        for (method, path), surface in READ_BY.items()
        if not any(
            m == method and _route(path).fullmatch(p) and bearer in bearers
            for m, p, bearer in requested
        )
    ]
    assert not unread, f"READ_BY lists routes no reader read here: {unread}"


def test_every_route_is_searched_checked_elsewhere_or_cannot_carry_a_secret() -> None:
    """As the authorisation matrix: a new route fails here until someone says where its
    answers are searched for secrets, or why they cannot hold one."""
    paths = create_app(lambda: None, lambda _: None).openapi()["paths"]  # no server needed
    served = {(method.upper(), path) for path, ops in paths.items() for method in ops}
    lists = (READ_BY, CHECKED_ELSEWHERE, CANNOT_CARRY_SECRETS)
    listed = [route for routes in lists for route in routes]
    missing = sorted(served - set(listed))
    assert not missing, (
        f"{len(missing)} route(s) of the API the hidden-information matrix does not account "
        "for. In tests/api/test_hidden_information.py, add each line to READ_BY (and read the "
        "route in `answers`, its surface in SURFACES), to CHECKED_ELSEWHERE (the value: "
        '"tests/<file>.py::<test>" that searches its answers) or to CANNOT_CARRY_SECRETS '
        "(the value: why no reader's answer can hold a secret):\n"
        + "\n".join(f'    ("{method}", "{path}"): "...",' for method, path in missing)
    )
    stale = sorted(set(listed) - served)
    assert not stale, f"the API no longer serves these: remove their lines: {stale}"
    twice = sorted({route for route in listed if listed.count(route) > 1})
    assert not twice, f"listed twice (keep the one that holds): {twice}"
    assert set(READ_BY.values()) <= set(SURFACES), set(READ_BY.values()) - set(SURFACES)
    for route, where in CHECKED_ELSEWHERE.items():
        file, test = where.split("::")
        assert f"def {test}(" in Path(file).read_text(encoding="utf-8"), (route, where)


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
@pytest.mark.postgres
def test_the_command_answers_searched_carry_the_facts_and_the_gm_finds_the_values_there(
    ruleset: str, client: TestClient, runtime: Runtime
) -> None:
    """Issue 19: a command's answer carries its facts, so "command answers" in the matrix
    searches them too; the GM's own answers do hold the hidden values (the search can fail)."""
    table = FIGHTS[ruleset](client)
    values = secrets(table)
    players = [a for who in ("aoi", "kai") for a in table.answers.get(who, [])]
    assert any(answer["facts"] for answer in players)
    assert all(answer["facts"][-1]["version"] == answer["version"] for answer in players)
    facts_to_gm = [answer["facts"] for answer in table.answers.get("gm", [])]
    assert leaks(facts_to_gm, values), "the GM's answers must carry the hidden values"


# --- replay as an oracle ---------------------------------------------------------------------

# Amendments a player might bisect with: ace's attack 300 deals 240 to the grunt of defence
# 60 and HP 200 (it falls: its faint die is missing, GD-INJ-1), 250 to the one of HP 321.
ORACLE_BODIES = [
    {"options": {}},
    {"options": {"faint_rule": "example"}},
    {"amendment": {"command": ACE_JOIN, "payload": ace_join(25)}},
    {"amendment": {"command": ACE_JOIN, "payload": ace_join(200)}},
]


@pytest.mark.postgres
def test_replay_as_an_oracle_answers_no_reader_by_the_hidden_numbers(
    client: TestClient,
) -> None:
    """Two fights identical but for the hidden grunt's HP and defence: every non-GM reader
    gets byte-identical replay answers; the GM's differ (so the comparison can fail)."""
    fights = [
        ace_shoots_grunt(client, sheet(4, 1, reaction=2, hp=hp, stats={"phys_def": defence}))
        for hp, defence in ((321, 50), (200, 60))
    ]

    def replayed(fight: Fight, who: str, body: dict[str, Any]) -> tuple[int, str]:
        headers = auth(fight.token(who)) | key()
        answer = client.post(f"/v1/encounters/{fight.id}/replay", headers=headers, json=body)
        return answer.status_code, answer.text

    felled = ORACLE_BODIES[-1]
    by_gm = [replayed(f, "gm", felled) for f in fights]
    assert by_gm[0][0] == by_gm[1][0] == 200
    assert json.loads(by_gm[0][1])["complete"] != json.loads(by_gm[1][1])["complete"]
    differing = [
        (who, f"body #{n}")
        for who in READERS
        for n, body in enumerate(ORACLE_BODIES)
        if len({replayed(f, who, body) for f in fights}) > 1
    ]
    assert not differing, f"{len(differing)} of {len(READERS) * len(ORACLE_BODIES)}: {differing}"
