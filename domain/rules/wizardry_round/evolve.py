"""How each WZ fact changes the ruleset's state: pure, no rule is re-run."""

from __future__ import annotations

from domain.events import DomainEvent
from domain.frozen import replaced
from domain.rules.records import COUNTED_ONLY, EncounterEnded
from domain.rules.ruleset import Entrant
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round import status_events as sev
from domain.rules.wizardry_round.sheet import WzSheet
from domain.rules.wizardry_round.state import (
    Declaration,
    Deferred,
    Identification,
    PendingCheck,
    Status,
    WzCombatant,
    WzState,
)


def joined(state: WzState, entrant: Entrant) -> WzState:
    """A combatant joins; it starts combat (WZ-2) in the first round it can act."""
    combatant = WzCombatant(
        id=entrant.combatant_id,
        name=entrant.name,
        side=entrant.side,
        controller=entrant.controller,
        sheet=WzSheet.model_validate(entrant.sheet),
    )
    return state.replace(combatant)


def evolve(state: WzState, event: DomainEvent) -> WzState:  # noqa: PLR0912
    if type(event) in COUNTED_ONLY:
        return state
    match event:
        case ev.PhaseEntered():
            return _entered(state, event)
        case ev.CombatStarted(combatant=cid, weapon=weapon, strategy=strategy):
            pool = state.pool_of(state.combatants[cid])
            credited = {**state.credited, pool: max(state.credited.get(pool, 0), strategy)}
            return replaced(
                _update(state, cid, started=True, weapon=weapon), {"credited": credited}
            )
        case ev.TpGained(pool=pool, tp=tp) | ev.FormationDeclared(pool=pool, tp=tp):
            changed = replaced(state, {"tp": {**state.tp, pool: tp}})
            if isinstance(event, ev.FormationDeclared):
                return replaced(changed, {"formations": (*state.formations, event.formation)})
            return changed
        case ev.FatigueChanged(combatant=cid):
            return _update(
                state,
                cid,
                fatigue_step=event.step,
                die_penalty=event.die_penalty,
                ac_penalty=event.ac_penalty,
                collapsed=event.collapsed,
            )
        case ev.IdentificationNamed(target=target, difficulty=difficulty, skill=skill):
            named = Identification(target=target, difficulty=difficulty, skill=skill)
            return replaced(state, {"identification": named})
        case ev.CheckRolled():
            pending = PendingCheck(
                combatant=event.combatant,
                kind=event.kind,
                expression=event.expression,
                total=event.total,
                fatigue_penalty=event.fatigue_penalty,
                roll_seqs=event.roll_seqs,
            )
            return replaced(state, {"pending_check": pending})
        case ev.CheckRuled():
            return replaced(state, {"pending_check": None})
        case ev.ActionDeclared():
            declared = Declaration.model_validate(
                event.model_dump(include=set(Declaration.model_fields))
            )
            declarations = {**state.declarations, event.combatant: declared}
            return replaced(state, {"declarations": declarations})
        case ev.InitiativeRolled(innings=innings):
            return replaced(
                state, {"innings": innings, "inning_index": 0, "done": (), "deferred": ()}
            )
        case ev.ActionTaken(combatant=cid) | ev.DeclarationDropped(combatant=cid):
            acted = replaced(state, {"done": (*state.done, cid)})
            if isinstance(event, ev.DeclarationDropped) and event.fallback == "surrender":
                return _update(acted, cid, surrendered=True)
            return acted
        case sev.StatusInflicted(combatant=cid, status=name, incapacitating=inc, deferred=True):
            later = Deferred(combatant=cid, status=Status(name=name, incapacitating=inc))
            return replaced(state, {"deferred": (*state.deferred, later)})
        case sev.StatusInflicted(combatant=cid, status=name, incapacitating=inc) | (
            sev.StatusTookEffect(combatant=cid, status=name, incapacitating=inc)
        ):
            return _with_status(state, cid, Status(name=name, incapacitating=inc))
        case sev.StatusRemoved(combatant=cid, status=name):
            kept = tuple(s for s in state.combatants[cid].statuses if s.name != name)
            return _update(state, cid, statuses=kept)
        case ev.InningEnded():
            return replaced(
                state, {"inning_index": state.inning_index + 1, "done": (), "deferred": ()}
            )
        case EncounterEnded():
            return replaced(state, {"phase": "over", "pending_check": None})
    return state


def _entered(state: WzState, event: ev.PhaseEntered) -> WzState:
    changes: dict[str, object] = {"round": event.round, "phase": event.phase}
    if event.phase == "identification":
        changes["identification"] = None  # the GM names it afresh each round (WZ-4)
    if event.phase == "declaration":  # WZ-5: a new round's declarations and innings
        changes |= {"declarations": {}, "formations": (), "innings": (), "inning_index": 0}
    return replaced(state, changes)


def _update(state: WzState, cid: str, **changes: object) -> WzState:
    return state.replace(replaced(state.combatants[cid], changes))


def _with_status(state: WzState, cid: str, status: Status) -> WzState:
    kept = tuple(s for s in state.combatants[cid].statuses if s.name != status.name)
    return _update(state, cid, statuses=(*kept, status))
