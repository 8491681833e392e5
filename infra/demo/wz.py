"""`senki demo --ruleset wz`: two Wizardry-style rounds played through the HTTP API.

A fighter and a mage (the player aoi's) against a goblin and an ogre. The GM rules out
surprise; in round 1 the mage tries to identify the ogre by lore. Each round everyone able
declares, the fighter (the party's representative) and the GM roll initiative, and in each
inning the actor rolls a 1D20 check by the server's dice and the GM rules on it before it
acts (the demo's GM: a success at 14 or under; the mage's success puts the goblin to sleep,
from the end of its inning). The mage tires by round 2 (fatigue raises its die); there the
ogre drops its declaration to surrender and the GM ends the fight. The script answers what
the encounter awaits phase by phase; then the seed is revealed and every die verified. The
GM's words (notes, outcomes, reasons) are Japanese, as at the table the demo plays.
"""

from __future__ import annotations

from typing import Any

import httpx
from rich.console import Console

from infra.demo.table import DemoTable, finish, open_table

ROUNDS = 2
# The GM's target for a check in this demo: a 1D20 check succeeds at this total or under
# (WZ-3's fatigue penalty raises the die, so a lower total is the better one).
TARGET = 14


def _sheet(ini: int, **fields: Any) -> dict[str, Any]:
    return {"ini": ini, "ac": 5, "endurance": 10, "weapons": ["sword"]} | fields


COMBATANTS = [
    ("fighter", "戦士 (Fighter)", "aoi", "pc", _sheet(15, endurance=4, fatigue=2, strategy=2)),
    (
        "mage",
        "魔術師 (Mage)",
        "aoi",
        "pc",
        _sheet(13, endurance=3, fatigue=2, tactics=1, academic_skills=["lore"]),
    ),
    ("goblin", "ゴブリン", "gm", "enemy", _sheet(11)),
    ("ogre", "オーガ", "gm", "enemy", _sheet(8, weapons=["club"])),
]
# What each one declares (WZ-5) and rolls to act (WZ-8).
DECLARED: dict[str, dict[str, Any]] = {
    "fighter": {"form": "b", "sub": "combat move", "main": "attack", "ini": 15},
    "mage": {"form": "c", "full": "cast Katino", "ini": 13},
    "goblin": {"form": "b", "sub": "combat move", "main": "attack", "ini": 11},
    "ogre": {"form": "b", "sub": "combat move", "main": "attack", "ini": 8},
}
ROLLS = {"fighter": "1D20+4", "mage": "1D20+3", "goblin": "1D20+2", "ogre": "1D20+1"}


def _who(combatant: str) -> str:
    return "aoi" if combatant in {"fighter", "mage"} else "gm"


def _awaited(state: Any, command: str) -> list[str]:
    """The combatants for whom `command` is awaited now (empty: not awaited)."""
    return [a["combatant"] or "" for a in state["procedure"]["awaiting"] if a["command"] == command]


def _check(table: DemoTable, combatant: str, expression: str) -> int:
    """A check by the server's dice; its total."""
    rolled = table.command(
        {"command": "RollCheck", "combatant_id": combatant, "expression": expression},
        _who(combatant),
    )
    return int(rolled["rulings"][-1]["outcome"]["total"])


def _rule(table: DemoTable, total: int, success: str, failure: str) -> bool:
    """The GM's ruling on the pending check; True on a success."""
    ok = total <= TARGET
    table.command({"command": "RuleCheck", "success": ok, "outcome": success if ok else failure})
    return ok


def _identify(table: DemoTable) -> None:
    """WZ-4: the GM names the ogre's difficulty; the mage, who has lore, checks."""
    table.command(
        {"command": "NameIdentification", "target": "ogre", "difficulty": TARGET, "skill": "lore"}
    )
    total = _check(table, "mage", "1D20+2")
    _rule(table, total, "オーガの正体が分かった", "オーガの正体は分からない")


def _asleep(state: Any, combatant: str) -> bool:
    status = next(c["status"] for c in state["combatants"] if c["combatant_id"] == combatant)
    return any(s["name"] == "sleep" for s in status["statuses"])


def _act(table: DemoTable, combatant: str, round_: int) -> None:
    """WZ-8: the combatant's inning: its check, the GM's ruling, then the act."""
    if combatant == "ogre" and round_ == ROUNDS:
        table.command(
            {"command": "DropDeclaration", "combatant_id": "ogre", "fallback": "surrender"}
        )
        return
    total = _check(table, combatant, ROLLS[combatant])
    if combatant == "mage" and not _asleep(table.state(), "goblin"):
        if _rule(table, total, "ゴブリンは眠った", "ゴブリンはカティノに抵抗した"):
            table.command(
                {
                    "command": "InflictStatus",
                    "target": "goblin",
                    "status": "sleep",
                    "incapacitating": True,
                }
            )
    else:
        _rule(table, total, "攻撃が当たった", "攻撃が外れた")
    table.command({"command": "Act", "combatant_id": combatant}, _who(combatant))


def play(table: DemoTable, limit: int = 80) -> None:
    """Answer what the encounter awaits, phase by phase, for ROUNDS rounds."""
    table.command({"command": "ResolveSurprise", "note": "互いに気づいていた：不意打ちなし"})
    for _ in range(limit):
        state = table.state()
        phase, round_ = state["procedure"]["phase"], state["procedure"]["turn"]
        if state["ended"]:
            return
        if phase == "identification" and round_ == 1:
            _identify(table)
            table.command({"command": "EndPhase"})
        elif phase == "declaration":
            for combatant in _awaited(state, "Declare"):
                body = {"command": "Declare", "combatant_id": combatant} | DECLARED[combatant]
                table.command(body, _who(combatant))
        elif phase == "initiative":
            table.command({"command": "RollInitiative", "representative": "fighter"})
        elif phase == "action":
            _act(table, _awaited(state, "Act")[0], round_)
        elif round_ == ROUNDS and phase in {"recovery", "end"}:
            table.command({"command": "EndCombat", "reason": "オーガが第2ラウンドの後に降伏"})
        else:  # identification after round 1, strategy, recovery, end
            table.command({"command": "EndPhase"})


def run_wz(http: httpx.Client, console: Console) -> bool:
    table = DemoTable(http)
    open_table(table, "デモ: 迷宮の遭遇", "wizardry_round", {}, COMBATANTS)
    console.print(
        f"[bold]Encounter[/] {table.encounter} (Wizardry-style round): "
        "fighter and mage vs a goblin and an ogre"
    )
    play(table)
    return finish(table, console)
