"""RULES.md: replaying a WZ encounter under the other reading of an Interpretation shows what
would have changed (the generic what-if replay of domain/encounter/replay)."""

from __future__ import annotations

from typing import Any

from domain.dice import commitment
from domain.encounter import aggregate
from domain.encounter.record import issue
from domain.encounter.replay import replay
from domain.events import DomainEvent
from domain.rules.ruleset import CommandContext
from tests.unit.encounter.log import FIGHT, SEED
from tests.unit.encounter.table import AT
from tests.unit.rules.wizardry_round.table import sheet


class WzLog:
    """An in-memory WZ encounter stream whose commands are recorded before their effects."""

    def __init__(self) -> None:
        self.events: list[DomainEvent] = []
        self.do("OpenEncounter", {"ruleset_id": "wizardry_round", "commitment": commitment(SEED)})

    def do(self, command: str, payload: dict[str, Any], faces: list[int] | None = None) -> None:
        state = aggregate.KIND.rebuild(FIGHT, self.events)
        ctx = CommandContext(at=AT, by="gm", is_gm=True)
        self.events += issue(state, command, payload, ctx, server_seed=SEED, hand_faces=faces)

    def join(self, cid: str, side: str, sheet_: dict[str, Any]) -> None:
        payload = {"combatant_id": cid, "name": cid, "side": side, "controller": "gm"}
        self.do("JoinCombatant", payload | {"sheet": sheet_})


def first_round() -> WzLog:
    """The fighter (INI 15) against a goblin (INI 11); PC 4, GM 7 on the initiative roll."""
    log = WzLog()
    log.join("fighter", "pc", sheet(15))
    log.join("goblin", "enemy", sheet(11))
    log.do("ResolveSurprise", {"note": "none"})
    log.do("EndPhase", {})
    for cid, ini in (("fighter", 15), ("goblin", 11)):
        declared = {"form": "b", "sub": "move", "main": "attack", "ini": ini}
        log.do("Declare", {"combatant_id": cid} | declared)
    log.do("EndPhase", {})
    log.do("RollInitiative", {"representative": "fighter"}, faces=[4, 7])
    return log


def test_WZ_7a_replayed_as_pc_minus_gm_the_initiative_roll_diverges() -> None:
    log = first_round()
    same = replay(FIGHT, log.events)
    assert same.divergence is None
    other = replay(FIGHT, log.events, options={"initiative_difference": "pc_minus_gm"})
    assert other.complete
    assert other.divergence is not None
    assert other.divergence.command_type == "RollInitiative"
    rolled = [e for e in other.divergence.replayed if e["type"] == "wz.InitiativeRolled"]
    assert rolled[0]["difference"] == -3  # the goblin acts at 8 instead of 14
