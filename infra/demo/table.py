"""The table every demo plays at: its tokens, one encounter and its commands, and the
closing reveal, log and dice audit."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from rich.console import Console
from rich.table import Column, Table


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


def finish(table: DemoTable, console: Console) -> bool:
    """Reveal the seed, print the rulings and the rule system's log lines, verify the dice."""
    table.call("POST", f"/v1/encounters/{table.encounter}/reveal")
    _print_log(table, console)
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


def _print_log(table: DemoTable, console: Console) -> None:
    events = table.call("GET", f"/v1/encounters/{table.encounter}/events", params={"limit": 500})[
        "events"
    ]
    rulings = _folded(
        "v", "rule IDs", "ruling (English)", "裁定 (日本語)", title="Rulings, in order"
    )
    lines = _folded("v", "event", "log (English)", "ログ (日本語)", title="Encounter log")
    for event in events:
        payload = event["payload"]
        if event["type"] == "RulingRecorded":
            rulings.add_row(
                str(event["version"]),
                ", ".join(payload["rule_ids"]),
                payload["summary_en"],
                payload["summary_ja"],
            )
        elif "." in event["type"] and event.get("line"):  # the rule system's own facts (gd.…)
            line = event["line"]
            lines.add_row(str(event["version"]), event["type"], line["en"], line["ja"])
    console.print(rulings)
    console.print(lines)


def _folded(*headings: str, title: str) -> Table:
    """Every cell whole at 80 columns: a long name or a Japanese line folds, never ends in …"""
    return Table(*(Column(h, overflow="fold") for h in headings), title=title)
