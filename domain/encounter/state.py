"""The Encounter's state and how each event changes it (pure); generic over rulesets."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.encounter.awaited import AwaitedRollWithdrawn, Awaiting, DiceMode, RollAwaited
from domain.encounter.dispute_events import (
    CombatantCorrected,
    Dispute,
    DisputeAmended,
    DisputeUpheld,
    RulingDisputed,
)
from domain.encounter.events import CombatantJoined, EncounterOpened, EncounterSeedRevealed
from domain.encounter.rulesets import ruleset_for
from domain.events import DomainEvent, JsonObject
from domain.frozen import replaced
from domain.rules.records import EncounterDiceRolled, EncounterEnded, RulingRecorded
from domain.rules.ruleset import AnyRuleset, Entrant


class Encounter(BaseModel):
    """One fight: the generic record plus the ruleset's own state (`rules`)."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    version: int = 0  # events applied; the store's expected version
    ruleset_id: str = ""
    ruleset_version: str = ""
    options: JsonObject = {}
    battle_map: JsonObject = {}
    commitment: str = ""
    campaign_id: UUID | None = None
    scenario_id: UUID | None = None
    combatants: tuple[Entrant, ...] = ()
    rules: BaseModel | None = None  # the ruleset's own frozen state
    roll_count: int = 0  # roll sequences are 0..roll_count-1; the rolls live in the events
    rulings: int = 0
    ended: bool = False
    revealed_seed: str | None = None
    disputes: dict[str, Dispute] = {}
    dice_mode: DiceMode = "server"
    awaiting: Awaiting | None = None  # the die a pending command waits for (hand dice)

    @property
    def opened(self) -> bool:
        return bool(self.ruleset_id)

    @property
    def ruleset(self) -> AnyRuleset:
        return ruleset_for(self.ruleset_id)

    def controller_of(self, combatant_id: str) -> str | None:
        return next((c.controller for c in self.combatants if c.combatant_id == combatant_id), None)


def evolve(state: Encounter, event: DomainEvent) -> Encounter:
    """Apply one event: the generic record first, then the ruleset's own state (one copy)."""
    changes: dict[str, object] = {"version": state.version + 1}
    match event:
        case RollAwaited(pending=pending, die=die):
            return replaced(state, changes | {"awaiting": Awaiting(pending=pending, die=die)})
        case AwaitedRollWithdrawn():
            return replaced(state, changes | {"awaiting": None})
        case EncounterOpened():
            ruleset = ruleset_for(event.ruleset_id)
            return replaced(
                state,
                changes
                | {
                    "ruleset_id": event.ruleset_id,
                    "ruleset_version": event.ruleset_version,
                    "options": event.options,
                    "battle_map": event.battle_map,
                    "commitment": event.commitment,
                    "campaign_id": event.campaign_id,
                    "scenario_id": event.scenario_id,
                    "dice_mode": event.dice,
                    "rules": ruleset.initial_state(event.options, event.battle_map),
                },
            )
        case CombatantJoined():
            entrant = Entrant(**event.model_dump(exclude={"at", "by"}))
            return replaced(
                state,
                changes
                | {
                    "combatants": (*state.combatants, entrant),
                    "rules": state.ruleset.joined(state.rules, entrant),
                },
            )
        case EncounterSeedRevealed(server_seed=seed):
            return replaced(state, changes | {"revealed_seed": seed})
        case RulingDisputed() | DisputeUpheld() | DisputeAmended():
            return replaced(state, changes | {"disputes": _disputes(state.disputes, event)})
        case CombatantCorrected(combatant_id=combatant, changes=fixes):
            return replaced(state, changes | {"rules": _corrected(state.rules, combatant, fixes)})
        case EncounterDiceRolled():
            changes["roll_count"] = state.roll_count + 1
        case RulingRecorded():
            changes["rulings"] = state.rulings + 1
        case EncounterEnded():
            changes["ended"] = True
    if state.awaiting is not None and event.event_type not in _KEEP_AWAITING:
        changes["awaiting"] = None  # the pending command resolved
    if state.rules is not None:
        changes["rules"] = state.ruleset.evolve(state.rules, event)
    return replaced(state, changes)


# Facts that leave an awaited die awaited: the command record (in front of every block,
# including the one entering the die) and the table's own acts. Any other fact is the
# pending command's resolution, which is what ends the wait.
_KEEP_AWAITING = frozenset(
    {
        "CommandIssued",
        "RulingDisputed",
        "DisputeUpheld",
        "DisputeAmended",
        "CombatantCorrected",
        "EncounterSeedRevealed",
    }
)


def reached(state: Encounter, events: Sequence[DomainEvent], rules: BaseModel | None) -> Encounter:
    """The Encounter after `events`, whose ruleset state `rules` the ruleset reached while
    deciding them: the generic record is brought up to date without evolving the ruleset's
    state again, in one pass over the events and one copy. Equal to folding `evolve` over
    `events` (tests/unit/encounter/test_properties.py checks it); an event with its own
    generic change is folded instead."""
    rolls = rulings = 0
    ended = state.ended
    awaiting = state.awaiting
    for event in events:
        kind = record_kind(type(event))
        if kind == "whole":
            return _folded(state, events)
        if kind == "roll":
            rolls += 1
        elif kind == "ruling":
            rulings += 1
        elif kind == "ended":
            ended = True
        if event.event_type not in _KEEP_AWAITING:
            awaiting = None  # the pending command resolved
    return replaced(
        state,
        {
            "version": state.version + len(events),
            "roll_count": state.roll_count + rolls,
            "rulings": state.rulings + rulings,
            "ended": ended,
            "awaiting": awaiting,
            "rules": rules,
        },
    )


def _folded(state: Encounter, events: Sequence[DomainEvent]) -> Encounter:
    for event in events:
        state = evolve(state, event)
    return state


# Events whose generic change is more than a count or a flag (the ruleset never decides them).
_WHOLE = (
    RollAwaited,
    AwaitedRollWithdrawn,
    EncounterOpened,
    CombatantJoined,
    EncounterSeedRevealed,
    RulingDisputed,
    DisputeUpheld,
    DisputeAmended,
    CombatantCorrected,
)


@functools.cache
def record_kind(event_class: type[DomainEvent]) -> str:
    """What an event of this class changes in the generic record (`reached`): "whole", "roll",
    "ruling", "ended" or only the "count". Found once per class, so each event of a command
    costs one look-up instead of up to twelve isinstance tests (nine of them for `_WHOLE`)."""
    if issubclass(event_class, _WHOLE):
        return "whole"
    if issubclass(event_class, EncounterDiceRolled):
        return "roll"
    if issubclass(event_class, RulingRecorded):
        return "ruling"
    if issubclass(event_class, EncounterEnded):
        return "ended"
    return "count"


def _disputes(disputes: dict[str, Dispute], event: DomainEvent) -> dict[str, Dispute]:
    match event:
        case RulingDisputed(dispute_id=key, ruling_version=version, reason=reason, by=by):
            return disputes | {
                key: Dispute(dispute_id=key, ruling_version=version, reason=reason, filed_by=by)
            }
        case DisputeUpheld(dispute_id=key):
            return disputes | {key: disputes[key].model_copy(update={"status": "upheld"})}
        case DisputeAmended(dispute_id=key):
            return disputes | {key: disputes[key].model_copy(update={"status": "amended"})}
    return disputes


def _corrected(rules: BaseModel | None, combatant: str, changes: JsonObject) -> BaseModel | None:
    """Apply a correction to the ruleset's combatant record, whatever the ruleset: every
    ruleset keeps its combatants in a `combatants` mapping of pydantic models."""
    combatants = getattr(rules, "combatants", None)
    if rules is None or not isinstance(combatants, dict) or combatant not in combatants:
        return rules
    current = combatants[combatant]
    fixed = type(current).model_validate(current.model_dump() | changes)
    return rules.model_copy(update={"combatants": combatants | {combatant: fixed}})
