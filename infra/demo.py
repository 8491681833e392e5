"""`senki demo`: a short scripted Glorious Drive fight played through the HTTP API.

It opens a campaign, gives a player a token, opens an encounter with a pilot in an Assault
Core against two enemies, and plays two turns by asking the encounter what it awaits and
answering as the table would (clean up, attack, dodge); then it reveals the dice seed and
prints the log, the rulings with their rule IDs, and the verification — the quickest way to
see what Senki does. Everything goes over HTTP, as a table tool's would. `run_demo` also
plays the other rulesets' demos: infra/demo_wz.py (Wizardry-style round) and
infra/demo_ak.py (Armor Knights).
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

OUT = {"dead", "critical", "incapacitated", "shutdown", "faint"}


def _stats(**values: int) -> dict[str, int]:
    base = {
        "phys_atk": 100,
        "phys_def": 40,
        "perc_atk": 60,
        "perc_def": 40,
        "evasion": 50,
        "melee_hit": 50,
        "ranged_hit": 60,
        "move": 4,
        "hp": 120,
        "reaction": 5,
        "resistance": 4,
    }
    return base | values


def _sheet(x: int, y: int, body: str = "licenser", **stats: int) -> dict[str, Any]:
    rifle = {
        "name": "rifle",
        "attack_type": "physical",
        "reach": "ranged",
        "range": 6,
        "attack": 30,
    }
    return {
        "stats": _stats(**stats),
        "weapons": [rifle],
        "main_weapon": "rifle",
        "position": {"x": x, "y": y},
        "body": body,
    }


COMBATANTS = [
    (
        "kurenai",
        "紅蓮 (Assault Core)",
        "aoi",
        "pc",
        _sheet(1, 2, "assault_core", hp=400, phys_atk=180, phys_def=90, reaction=9),
    ),
    ("drone-1", "偵察ドローン", "gm", "enemy", _sheet(5, 1, hp=90, reaction=6)),
    ("drone-2", "偵察ドローン", "gm", "enemy", _sheet(5, 3, hp=90, reaction=3)),
]


class DemoTable:
    """The demo's view of the table: tokens, the encounter, and a key per request."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.tokens: dict[str, str] = {}
        self.campaign = ""
        self.encounter = ""

    def call(self, method: str, path: str, who: str = "gm", **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who in self.tokens else {}
        if method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        answer = self.http.request(
            method, path, headers=headers | kwargs.pop("headers", {}), **kwargs
        )
        if answer.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text}")
        return answer.json()

    def state(self) -> Any:
        return self.call("GET", f"/v1/encounters/{self.encounter}")

    def command(self, body: dict[str, Any], who: str = "gm") -> Any:
        version = self.state()["version"]
        return self.call(
            "POST",
            f"/v1/encounters/{self.encounter}/commands",
            who,
            json=body,
            headers={"If-Match": f'"{version}"'},
        )


def open_table(
    table: DemoTable,
    name: str,
    ruleset: str,
    battle_map: dict[str, Any],
    combatants: list[tuple[str, str, str, str, dict[str, Any]]],
) -> str:
    """A campaign under `ruleset` with the GM and the player aoi, and an encounter in it
    (which inherits the ruleset) that the combatants join; returns the campaign id."""
    opened = table.call(
        "POST", "/v1/campaigns", json={"name": name, "gm_member_id": "gm", "ruleset": ruleset}
    )
    table.tokens["gm"], campaign = str(opened["token"]), str(opened["id"])
    table.campaign = campaign
    table.call(
        "POST", f"/v1/campaigns/{campaign}/members", json={"member_id": "aoi", "role": "player"}
    )
    issued = table.call(
        "POST", f"/v1/campaigns/{campaign}/tokens", json={"kind": "member", "member_id": "aoi"}
    )
    table.tokens["aoi"] = str(issued["token"])
    opened_fight = table.call(
        "POST", f"/v1/campaigns/{campaign}/encounters", json={"battle_map": battle_map}
    )
    table.encounter = str(opened_fight["id"])
    for cid, who, controller, side, body in combatants:
        table.command(
            {
                "command": "JoinCombatant",
                "combatant_id": cid,
                "name": who,
                "side": side,
                "controller": controller,
                "sheet": body,
            }
        )
    return campaign


def set_up(table: DemoTable) -> str:
    return open_table(
        table, "デモ: 蒼穹の守り手", "glorious_drive", {"width": 8, "height": 5}, COMBATANTS
    )


def _able(state: Any, side: str) -> list[str]:
    return [
        c["combatant_id"]
        for c in state["combatants"]
        if c["side"] == side and c["status"].get("injury", "none") not in OUT
    ]


def next_move(state: Any) -> tuple[dict[str, Any], str] | None:
    """What the table does next, from what the encounter awaits."""
    awaiting = state["procedure"]["awaiting"]
    names = {a["command"]: a for a in awaiting}
    if "RollInitiative" in names:
        return {"command": "RollInitiative"}, "gm"
    for reaction in ("Dodge", "TakeHit"):
        if reaction in names and names[reaction]["combatant"]:
            who = names[reaction]["combatant"]
            return {"command": reaction, "combatant_id": who}, _controller(state, who)
    acting = state["procedure"]["acting"]
    if acting and "Cleanup" in names:
        return {"command": "Cleanup", "combatant_id": acting}, _controller(state, acting)
    if acting and "DeclareAttack" in names:
        side = next(c["side"] for c in state["combatants"] if c["combatant_id"] == acting)
        targets = _able(state, "enemy" if side == "pc" else "pc")
        if targets:
            return (
                {"command": "DeclareAttack", "combatant_id": acting, "target": targets[0]},
                _controller(state, acting),
            )
        return {"command": "ForgoAction", "combatant_id": acting}, _controller(state, acting)
    return None


def _controller(state: Any, combatant: str) -> str:
    found = next(c["controller"] for c in state["combatants"] if c["combatant_id"] == combatant)
    return "aoi" if found == "aoi" else "gm"  # the demo's only player; the GM runs the rest


def play(table: DemoTable, turns: int = 2, limit: int = 60) -> None:
    for _ in range(limit):
        state = table.state()
        if state["ended"] or state["procedure"]["turn"] > turns:
            return
        if not _able(state, "enemy"):
            table.command(
                {
                    "command": "EndCombat",
                    "clause": "GD-END-3",
                    "reason": "no enemy is left able to fight",
                }
            )
            return
        move = next_move(state)
        if move is None:
            return
        table.command(*move)


RULESETS = {"gd": "Glorious Drive", "wz": "Wizardry-style round", "ak": "Armor Knights"}


def run_demo(http: httpx.Client, console: Console, ruleset: str = "gd") -> bool:
    """Play the demo of `ruleset` (gd, wz or ak) through `http` (a client on the running API);
    True when every die verifies."""
    if ruleset == "wz":
        from infra.demo_wz import run_wz

        return run_wz(http, console)
    if ruleset == "ak":
        from infra.demo_ak import run_ak

        return run_ak(http, console)
    if ruleset != "gd":
        raise ValueError(f"no demo for ruleset {ruleset!r}: choose one of {', '.join(RULESETS)}")
    table = DemoTable(http)
    set_up(table)
    console.print(f"[bold]Encounter[/] {table.encounter}: 紅蓮 (Assault Core) vs two drones")
    play(table)
    return finish(table, console)


def finish(table: DemoTable, console: Console, facts: bool = False) -> bool:
    """Reveal the seed, print the rulings (and, with `facts`, the log lines), verify the dice."""
    table.call("POST", f"/v1/encounters/{table.encounter}/reveal")
    _print_log(table, console, facts)
    audit = table.call("GET", f"/v1/encounters/{table.encounter}/audit")
    heads = table.call("GET", "/v1/log/head")["heads"]
    verdict = "[green]every die recomputes[/]" if audit["all_verified"] else "[red]FAILED[/]"
    console.print(f"Dice: {len(audit['checks'])} rolls from the revealed seed — {verdict}")
    receipt = ", ".join(f"{h['shard']}:{h['position']}:{h['chain_hash']}" for h in heads)
    # Exactly as stored: no markup or emoji (rich reads `:100:` as 💯), never wrapped.
    console.print(
        f"Log head per shard (keep it as a receipt): {receipt}",
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=True,
    )
    link = sign_in_link(table)
    console.print("Open the fight on the table page as the GM (this link signs you in):")
    console.print(link, markup=False, emoji=False, highlight=False, soft_wrap=True)
    return bool(audit["all_verified"])


def sign_in_link(table: DemoTable) -> str:
    """The table page of the demo fight, signed in as the GM: `…/table/encounters/{id}#token=…`.

    The token is one of its own (labelled, revocable in /v1/campaigns/{id}/tokens without
    touching the demo's) and rides in the URL fragment, which a browser never sends to the
    server, so it lands in no access log; the page keeps it for its tab (sessionStorage) and
    takes it out of the address at once (api/web/static/api.js, takeTokenFromAddress).
    """
    issued = table.call(
        "POST",
        f"/v1/campaigns/{table.campaign}/tokens",
        json={"kind": "member", "member_id": "gm", "label": "senki demo: table sign-in link"},
    )
    base = str(table.http.base_url).rstrip("/")
    return f"{base}/table/encounters/{table.encounter}#token={issued['token']}"


def default_url(host: str, port: int) -> str:
    """Where `senki serve` listens under SENKI_HOST/SENKI_PORT, as a client reaches it (a
    wildcard address is reached on loopback)."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _print_log(table: DemoTable, console: Console, facts: bool) -> None:
    events = table.call("GET", f"/v1/encounters/{table.encounter}/events", params={"limit": 500})[
        "events"
    ]
    rulings = Table("v", "rule IDs", "ruling (English)", "裁定 (日本語)", title="Rulings, in order")
    lines = Table("v", "event", "log (English)", "ログ (日本語)", title="Encounter log")
    for event in events:
        payload = event["payload"]
        if event["type"] == "RulingRecorded":
            rulings.add_row(
                str(event["version"]),
                ", ".join(payload["rule_ids"]),
                payload["summary_en"],
                payload["summary_ja"],
            )
        elif facts and payload.get("summary_en") and payload.get("summary_ja"):
            lines.add_row(
                str(event["version"]), event["type"], payload["summary_en"], payload["summary_ja"]
            )
    console.print(rulings)
    if facts:
        console.print(lines)
