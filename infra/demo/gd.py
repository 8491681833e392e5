"""`senki demo`: a short scripted Glorious Drive fight played through the HTTP API.

It opens a campaign, gives a player a token, opens an encounter with a pilot in an Assault
Core against two enemies, and plays two turns by asking the encounter what it awaits and
answering as the table would (clean up, attack, dodge); then it reveals the dice seed and
prints the log, the rulings with their rule IDs, and the verification — the quickest way to
see what Senki does. Everything goes over HTTP, as a table tool's would.
"""

from __future__ import annotations

from typing import Any

import httpx
from rich.console import Console

from infra.demo.table import DemoTable, finish, open_table

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
                    "reason": "戦える敵が残っていない",  # the GM's words, Japanese as at the table
                }
            )
            return
        move = next_move(state)
        if move is None:
            return
        table.command(*move)


def run_gd(http: httpx.Client, console: Console) -> bool:
    table = DemoTable(http)
    set_up(table)
    console.print(f"[bold]Encounter[/] {table.encounter}: 紅蓮 (Assault Core) vs two drones")
    play(table)
    return finish(table, console)
