"""A table for encounter tests: a GM, two players, sheets, and a fight driven by commands.

`Table.do` decides a command and applies its events, exactly as the application service
will (load → decide → save); dice are entered by hand so each test names its faces.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from domain.dice import commitment, derive_server_seed
from domain.encounter import aggregate
from domain.encounter.aggregate import Encounter
from domain.encounter.awaited import DiceMode, EnterDie
from domain.encounter.commands import JoinCombatant, OpenEncounter
from domain.events import DomainEvent
from domain.rules.glorious_drive.state import GdCombatant, GdState
from domain.rules.ruleset import Command, CommandContext

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ENCOUNTER = uuid.UUID("00000000-0000-4000-8000-0000000000e1")
SEED = derive_server_seed(bytes(range(32)), ENCOUNTER)
GM = CommandContext(at=AT, by="gm", is_gm=True)


def player(member: str) -> CommandContext:
    return CommandContext(at=AT, by=member)


def weapon(name: str = "rifle", **fields: Any) -> dict[str, Any]:
    base = {"name": name, "attack_type": "physical", "reach": "ranged", "range": 5, "attack": 20}
    return base | fields


def sheet(
    x: int,
    y: int,
    *,
    reaction: int = 5,
    hp: int = 100,
    weapons: Sequence[dict[str, Any]] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A combatant's sheet: stats 50 across, the given reaction and max HP, a rifle."""
    arms = list(weapons) if weapons is not None else [weapon()]
    stats = {
        "phys_atk": 100,
        "phys_def": 50,
        "perc_atk": 80,
        "perc_def": 40,
        "evasion": 50,
        "melee_hit": 50,
        "ranged_hit": 50,
        "move": 5,
        "hp": hp,
        "reaction": reaction,
        "resistance": 3,
    }
    return {
        "stats": stats | fields.pop("stats", {}),
        "weapons": arms,
        "main_weapon": arms[0]["name"] if arms else None,
        "position": {"x": x, "y": y},
    } | fields


class Table:
    """An encounter in progress: every event so far and the state they lead to."""

    def __init__(self) -> None:
        self.events: list[DomainEvent] = []
        self.state: Encounter = aggregate.KIND.initial(ENCOUNTER)

    def do(
        self,
        command: Command,
        *,
        by: CommandContext = GM,
        faces: Sequence[int] | None = None,
        then: Sequence[int] | None = None,
    ) -> list[DomainEvent]:
        """Decide `command` and apply what it decided; returns the new events. `then`: the
        faces the GM enters next, for the hand dice the encounter then awaits (a step that
        runs by itself never takes the command's own faces, issue 35 §6)."""
        outcome = aggregate.decided(
            self.state,
            command,
            by,
            server_seed=SEED,  # a step that runs by itself after a command rolls these
            hand_faces=faces,
        )
        for event in outcome.events:
            self.state = aggregate.evolve(self.state, event)
        # Every test of every ruleset checks it: the state deciding reached (which the
        # application keeps instead of evolving again) is the state the events lead to.
        assert outcome.state == self.state
        self.events += outcome.events
        if then is not None:
            return outcome.events + self.do(EnterDie(faces=tuple(then)))
        return outcome.events

    def open(
        self, battle_map: dict[str, Any] | None = None, *, dice: DiceMode = "server", **options: Any
    ) -> Table:
        self.do(
            OpenEncounter(
                ruleset_id="glorious_drive",
                options=options,
                commitment=commitment(SEED),
                battle_map={"width": 12, "height": 12} | (battle_map or {}),
                dice=dice,
            )
        )
        return self

    def join(self, cid: str, controller: str, side: str, sheet_: dict[str, Any]) -> Table:
        self.do(
            JoinCombatant(
                combatant_id=cid, name=cid, side=side, controller=controller, sheet=sheet_
            )
        )
        return self

    @property
    def gd(self) -> GdState:
        rules = self.state.rules
        assert isinstance(rules, GdState)
        return rules

    def c(self, cid: str) -> GdCombatant:
        return self.gd.combatants[cid]


def of_type(events: Sequence[DomainEvent], cls: type[DomainEvent]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def names(events: Sequence[DomainEvent]) -> list[str]:
    return [type(e).__name__ for e in events]
