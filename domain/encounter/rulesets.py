"""The rulesets this build can adjudicate, by id: a rule system's folder plus its line here.

Everything else finds a ruleset through this registry: the Encounter (`ruleset_for`), the
HTTP API's command bodies (api/encounter_commands.py) and the encounter log (`log_line`).
"""

from __future__ import annotations

from domain.encounter.errors import WrongState
from domain.events import DomainEvent
from domain.rules.armor_knights.ruleset import ARMOR_KNIGHTS
from domain.rules.glorious_drive.ruleset import GLORIOUS_DRIVE
from domain.rules.ruleset import AnyRuleset, LogLine
from domain.rules.wizardry_round.ruleset import WIZARDRY_ROUND

RULESETS: dict[str, AnyRuleset] = {GLORIOUS_DRIVE.id: GLORIOUS_DRIVE}
RULESETS[WIZARDRY_ROUND.id] = WIZARDRY_ROUND
RULESETS[ARMOR_KNIGHTS.id] = ARMOR_KNIGHTS


def ruleset_for(ruleset_id: str) -> AnyRuleset:
    """The ruleset with this id, or a refusal naming the known ones."""
    found = RULESETS.get(ruleset_id)
    if found is None:
        raise WrongState(
            f"unknown ruleset {ruleset_id!r}; known: {sorted(RULESETS)}",
            ja=f"不明なルールシステム {ruleset_id!r} です。既知のもの：{sorted(RULESETS)}",
        )
    return found


def log_line(event: DomainEvent) -> LogLine | None:
    """The line of a ruleset's fact, from the ruleset whose fact it is (None: no ruleset's)."""
    for ruleset in RULESETS.values():
        line = ruleset.log_line(event)
        if line is not None:
            return line
    return None
