"""Snapshots of an encounter: the generic record plus the ruleset's own state, by its type.

The `rules` field is declared as a plain BaseModel, which pydantic would serialise as an empty
object; it is dumped and read back through the ruleset's `state_model` instead.
"""

from __future__ import annotations

from domain.aggregate import Snapshotter
from domain.encounter.rulesets import RULESETS, ruleset_for
from domain.encounter.state import Encounter
from domain.events import JsonObject


def dump(state: Encounter) -> JsonObject:
    rules = None if state.rules is None else state.rules.model_dump(mode="json")
    return {"encounter": state.model_dump(mode="json", exclude={"rules"}), "rules": rules}


def load(data: JsonObject) -> Encounter:
    state = Encounter.model_validate(data["encounter"])
    if data["rules"] is None:
        return state
    rules = ruleset_for(state.ruleset_id).state_model.model_validate(data["rules"])
    return state.model_copy(update={"rules": rules})


# The version names every ruleset's version, so a new ruleset release ignores old snapshots.
VERSION = "1+" + ",".join(f"{k}:{r.version}" for k, r in sorted(RULESETS.items()))
# Every 500 versions (about 100 commands): a snapshot costs a command ~0.65 ms to save, and
# replaying costs ~22 µs an event, so a load without a cached state replays at most ~11 ms,
# and the snapshots cost the commands ~6 µs each on average (every 200: ~16 µs, 4.5 ms).
SNAPSHOTS = Snapshotter[Encounter](VERSION, dump, load, every=500)
