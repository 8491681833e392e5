"""The rulesets this build can adjudicate, by id (WZ and AK join here when they exist)."""

from __future__ import annotations

from domain.encounter.errors import WrongState
from domain.rules.glorious_drive.ruleset import GLORIOUS_DRIVE
from domain.rules.ruleset import AnyRuleset

RULESETS: dict[str, AnyRuleset] = {GLORIOUS_DRIVE.id: GLORIOUS_DRIVE}


def ruleset_for(ruleset_id: str) -> AnyRuleset:
    """The ruleset with this id, or a refusal naming the known ones."""
    found = RULESETS.get(ruleset_id)
    if found is None:
        raise WrongState(f"unknown ruleset {ruleset_id!r}; known: {sorted(RULESETS)}")
    return found
