"""`senki demo --ruleset ak`: a two-turn Armor Knights duel played through the HTTP API.

Red (the player aoi's knight) and blue (the GM's) start five cells apart on an 8×3 field,
each with a rifle (far+3: three cells beyond far). Each turn the server's dice decide who
takes the first phase (AK-TURN-2); in its phase a knight out of range closes in (a move,
carried on step by step, AK-EXC-1), then fires, and its opponent evades if it still has a
response point. The rules give no hit formula, so the GM rules each shot (AK-ORD-1): in
turn 1 red's shot misses and blue's hits (armour −6 for the turn); in turn 2 red's
armour-piercing shot hits (−15 until shot down), blue is shot down (AK-ARM-2) and red wins
(AK-WIN-1). The script answers what the duel awaits; then the seed is revealed and every
die verified.
"""

from __future__ import annotations

from typing import Any

import httpx
from rich.console import Console

from infra.demo.table import DemoTable, finish, open_table

REACH = 3  # the rifle's far+3: in range up to three cells away
ROW = 1


def _knight(x: int) -> dict[str, Any]:
    return {
        "armor": {"physical": 10, "beam": 8},
        "m_move": 2,
        "f_move": 3,
        "active_points": 3,
        "response_points": 2,
        "actions": ["evade"],
        "weapons": [{"name": "rifle", "range": "far+3", "f_correction": 1}],
        "cell": {"x": x, "y": ROW},
    }


COMBATANTS = [
    ("red", "紅の騎士 (Red)", "aoi", "red", _knight(0)),
    ("blue", "蒼の騎士 (Blue)", "gm", "blue", _knight(5)),
]
CONTROLLER = {"red": "aoi", "blue": "gm"}
# The GM's ruling on each shot, by turn and attacker: hit or not, why, and the armour effect.
# The GM's words are Japanese, as at the table the demo plays: the log quotes them as said.
SHOTS: dict[tuple[int, str], tuple[bool, str, dict[str, Any] | None]] = {
    (1, "red"): (False, "blueの回避で射線が外れた", None),
    (1, "blue"): (
        True,
        "ライフルがredに命中",
        {"amount": -6, "lasts": "turn", "reason": "ライフル命中（このターン−6）"},
    ),
    (2, "red"): (
        True,
        "blueの回避が間に合わない",
        {"amount": -15, "lasts": "until_shot_down", "reason": "徹甲弾の命中"},
    ),
    (2, "blue"): (False, "redの回避で射線が外れた", None),
}


def _unit(state: Any, uid: str) -> Any:
    return next(c["status"] for c in state["combatants"] if c["combatant_id"] == uid)


def _awaits(state: Any, command: str, unit: str | None = None) -> bool:
    return any(
        a["command"] == command and (unit is None or a["combatant"] == unit)
        for a in state["procedure"]["awaiting"]
    )


def _close_in(table: DemoTable, uid: str, other: str) -> None:
    """AK-MOV-1: step along the row towards the opponent until in range (F move 3 at most)."""
    state = table.state()
    here, there = _unit(state, uid)["cell"]["x"], _unit(state, other)["cell"]["x"]
    gap = abs(there - here)
    if gap <= REACH:
        return
    way = 1 if there > here else -1
    steps = [{"x": here + way * i, "y": ROW} for i in range(1, min(gap - REACH, 3) + 1)]
    table.command({"command": "StartMove", "unit_id": uid, "f_steps": steps}, CONTROLLER[uid])
    table.command({"command": "AdvanceMove", "unit_id": uid, "steps": len(steps)}, CONTROLLER[uid])


def _phase(table: DemoTable, uid: str, turn: int) -> None:
    """The acting knight's phase: close in, fire, the opponent's answer, the GM's ruling."""
    other = "blue" if uid == "red" else "red"
    _close_in(table, uid, other)
    table.command({"command": "DeclareAttack", "unit_id": uid, "weapon": "rifle"}, CONTROLLER[uid])
    if _awaits(table.state(), "Evade", other):
        table.command({"command": "Evade", "unit_id": other}, CONTROLLER[other])
    hit, reason, effect = SHOTS[(turn, uid)]
    table.command({"command": "ResolveAttack", "hit": hit, "reason": reason})
    if effect is not None:
        table.command(
            {
                "command": "ApplyArmorEffect",
                "target": other,
                "armor": "physical",
                "mode": "reduced",
            }
            | effect
        )
    if not table.state()["ended"]:
        table.command({"command": "EndPhase", "unit_id": uid}, CONTROLLER[uid])


def play(table: DemoTable, turns: int = 2, limit: int = 10) -> None:
    """Answer what the duel awaits: the first-move roll, then each knight's phase."""
    for _ in range(limit):
        state = table.state()
        if state["ended"]:
            return
        if _awaits(state, "RollFirstMove"):
            if state["procedure"]["turn"] >= turns:
                return
            table.command({"command": "RollFirstMove"})
            continue
        _phase(table, state["procedure"]["acting"], state["procedure"]["turn"])


def run_ak(http: httpx.Client, console: Console) -> bool:
    table = DemoTable(http)
    open_table(table, "デモ: 騎士の決闘", "armor_knights", {"width": 8, "height": 3}, COMBATANTS)
    console.print(f"[bold]Encounter[/] {table.encounter} (Armor Knights): red vs blue, a duel")
    play(table)
    return finish(table, console)
