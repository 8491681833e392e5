"""The rulesets this build can adjudicate, by id (WZ and AK join here when they exist)."""

from __future__ import annotations

from domain.encounter.errors import WrongState
from domain.rules.armor_knights.ruleset import ARMOR_KNIGHTS
from domain.rules.glorious_drive.ruleset import GLORIOUS_DRIVE
from domain.rules.ruleset import AnyRuleset
from domain.rules.wizardry_round.ruleset import WIZARDRY_ROUND

RULESETS: dict[str, AnyRuleset] = {GLORIOUS_DRIVE.id: GLORIOUS_DRIVE}
RULESETS[WIZARDRY_ROUND.id] = WIZARDRY_ROUND
RULESETS[ARMOR_KNIGHTS.id] = ARMOR_KNIGHTS


def ruleset_for(ruleset_id: str) -> AnyRuleset:
    """The ruleset with this id, or a refusal naming the known ones."""
    found = RULESETS.get(ruleset_id)
    if found is None:
        raise WrongState(f"unknown ruleset {ruleset_id!r}; known: {sorted(RULESETS)}")
    return found
