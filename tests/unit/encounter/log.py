"""An encounter log built through `issue`, as the application service builds it: every command
is recorded before its effects, so the log can be replayed."""

from __future__ import annotations

import uuid
from typing import Any

from domain.dice import commitment, derive_server_seed
from domain.encounter import aggregate
from domain.encounter.record import issue
from domain.events import DomainEvent
from domain.rules.ruleset import CommandContext
from tests.unit.encounter.table import AT

FIGHT = uuid.UUID("00000000-0000-4000-8000-0000000000f1")
SEED = derive_server_seed(bytes(range(32)), FIGHT)


class Log:
    """Given events / when command: an in-memory encounter stream with recorded commands."""

    def __init__(self, **options: Any) -> None:
        self.events: list[DomainEvent] = []
        self.do(
            "OpenEncounter",
            {"ruleset_id": "glorious_drive", "options": options, "commitment": commitment(SEED)},
        )

    @property
    def state(self) -> aggregate.Encounter:
        return aggregate.KIND.rebuild(FIGHT, self.events)

    def do(
        self,
        command: str,
        payload: dict[str, Any],
        *,
        by: str = "gm",
        faces: list[int] | None = None,
    ) -> list[DomainEvent]:
        ctx = CommandContext(at=AT, by=by, is_gm=by == "gm")
        new = issue(self.state, command, payload, ctx, server_seed=SEED, hand_faces=faces)
        self.events += new
        return new

    def join(self, combatant: str, controller: str, side: str, sheet: dict[str, Any]) -> None:
        self.do(
            "JoinCombatant",
            {
                "combatant_id": combatant,
                "name": combatant,
                "side": side,
                "controller": controller,
                "sheet": sheet,
            },
        )
