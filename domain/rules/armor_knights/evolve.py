"""How each Armor Knights fact changes the ruleset's state: pure, no rule is re-run."""

from __future__ import annotations

from collections.abc import Callable

from domain.events import DomainEvent
from domain.frozen import replaced
from domain.rules.armor_knights import condition_events as cev
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.sheet import AkSheet
from domain.rules.armor_knights.state import AkState, AkUnit, ArmorEffect, Check, MoveInProgress
from domain.rules.records import COUNTED_ONLY, EncounterEnded
from domain.rules.ruleset import Entrant


def joined(state: AkState, entrant: Entrant) -> AkState:
    """A unit joins with full points, its base armour and the weapons marked equipped."""
    sheet = AkSheet.model_validate(entrant.sheet)
    unit = AkUnit(
        id=entrant.combatant_id,
        name=entrant.name,
        side=entrant.side,
        controller=entrant.controller,
        sheet=sheet,
        cell=sheet.cell,
        armor=dict(sheet.armor),
        active_points=sheet.active_points,
        response_points=sheet.response_points,
        equipped=tuple(w.name for w in sheet.weapons if w.equipped),
    )
    return state.replace(unit)


def evolve(state: AkState, event: DomainEvent) -> AkState:  # noqa: PLR0912
    if type(event) in COUNTED_ONLY:
        return state
    match event:
        case ev.FirstMoveDecided(turn=turn, order=order, totals=totals):
            for uid, total in totals.items():
                state = _update(state, uid, first_move_total=total)
            return replaced(
                state, {"turn": turn, "phase": "phase", "order": order, "phase_index": 0}
            )
        case ev.AttackDeclared():
            return _declared(state, event)
        case ev.AttackSettled(attacker=settled_by, target=settled_on):
            return _checks(state, lambda c: _drop_last(c, settled_by, settled_on))
        case ev.ActionInterrupted(unit=uid, action=action):
            return _interrupted(state, uid, action)
        case ev.EvadeDeclared(unit=uid, points_left=left):
            evading = _checks(state, lambda c: _evading(c, uid))
            return _update(evading, uid, response_points=left)
        case ev.MoveStarted(unit=uid, response=response, points_left=left):
            moving = MoveInProgress(
                axis=event.axis,
                m_steps=event.m_steps,
                f_steps=event.f_steps,
                entry_band=event.entry_band,
            )
            points = "response_points" if response else "active_points"
            return _update(state, uid, moving=moving, **{points: left})
        case ev.MoveAdvanced():
            return _advanced(state, event)
        case ev.TrackingChecked(attacker=tracker, target=mover, moved_m=m, moved_f=f):
            change: dict[str, object] = {"moved_m": m, "moved_f": f}
            return _checks(state, lambda c: _on_check(c, tracker, mover, change))
        case ev.WeaponReloaded(unit=uid, weapon=name, load_turns=turns, points_left=left):
            return _update(
                state, uid, loads=_load(state.combatants[uid], name, turns), active_points=left
            )
        case ev.WeaponsSwapped(unit=uid, now_equipped=equipped, points_left=left):
            return _update(state, uid, equipped=equipped, active_points=left)
        case cev.ArmorEffectApplied(unit=uid, armor=name, stored=stored):
            unit = state.combatants[uid]
            effect = ArmorEffect(
                armor=name, amount=event.amount, mode=event.mode, lasts=event.lasts
            )
            armor = {**unit.armor, name: stored}
            return _update(state, uid, armor=armor, effects=(*unit.effects, effect))
        case cev.MoveLimitImposed(unit=uid, penalty=penalty, cannot_move=cannot):
            return _update(state, uid, move_penalty=penalty, cannot_move=cannot)
        case cev.UnitShotDown(unit=uid):
            return _update(state, uid, shot_down=True)
        case cev.SideWon(side=side):
            return replaced(state, {"winner": side})
        case ev.PhaseEnded(unit=uid, active_points=a, opponent=o, opponent_response_points=r):
            state = _update(_update(state, uid, active_points=a), o, response_points=r)
            return replaced(state, {"phase_index": state.phase_index + 1})
        case ev.TurnEnded():
            return _turn_ended(state, event)
        case EncounterEnded():
            return replaced(state, {"phase": "over", "checks": ()})
    return state


def _update(state: AkState, uid: str, **changes: object) -> AkState:
    return state.replace(replaced(state.combatants[uid], changes))


def _checks(state: AkState, change: Callable[[tuple[Check, ...]], tuple[Check, ...]]) -> AkState:
    return replaced(state, {"checks": change(state.checks)})


def _load(unit: AkUnit, weapon: str, turns: int) -> dict[str, int]:
    # A weapon at 0 is loaded again: it leaves the table of loading weapons.
    rest = {k: v for k, v in unit.loads.items() if k != weapon}
    return {**rest, weapon: turns} if turns > 0 else rest


def _declared(state: AkState, event: ev.AttackDeclared) -> AkState:
    unit = state.combatants[event.attacker]
    points = "response_points" if event.response else "active_points"
    loads = _load(unit, event.weapon, event.load_turns)
    state = _update(state, unit.id, loads=loads, **{points: event.points_left})
    check = Check(
        attacker=event.attacker,
        target=event.target,
        weapon=event.weapon,
        m_correction=event.m_correction,
        f_correction=event.f_correction,
        out_of_range=event.out_of_range,
    )
    return replaced(state, {"checks": (*state.checks, check)})


def _drop_last(checks: tuple[Check, ...], attacker: str, target: str) -> tuple[Check, ...]:
    for index in range(len(checks) - 1, -1, -1):
        if checks[index].attacker == attacker and checks[index].target == target:
            return checks[:index] + checks[index + 1 :]
    return checks


def _evading(checks: tuple[Check, ...], uid: str) -> tuple[Check, ...]:
    top = checks[-1]
    return (*checks[:-1], replaced(top, {"evading": True})) if top.target == uid else checks


def _on_check(
    checks: tuple[Check, ...], attacker: str, target: str, change: dict[str, object]
) -> tuple[Check, ...]:
    return tuple(
        replaced(c, change) if (c.attacker, c.target) == (attacker, target) else c for c in checks
    )


def _interrupted(state: AkState, uid: str, action: str) -> AkState:
    if action == "move":
        return _update(state, uid, moving=None)
    if action == "attack":
        return _checks(state, lambda cs: tuple(c for c in cs if c.attacker != uid))
    return _checks(
        state,
        lambda cs: tuple(replaced(c, {"evading": False}) if c.target == uid else c for c in cs),
    )


def _advanced(state: AkState, event: ev.MoveAdvanced) -> AkState:
    moving = state.combatants[event.unit].moving
    left = None
    if moving is not None and event.remaining > 0:
        left = replaced(
            moving,
            {
                "m_steps": moving.m_steps[event.steps :],
                "f_steps": moving.f_steps[event.steps :],
            },
        )
    state = _update(state, event.unit, cell=event.cell, moving=left)
    return replaced(state, {"band": event.band})


def _turn_ended(state: AkState, event: ev.TurnEnded) -> AkState:
    for uid, unit in state.combatants.items():
        kept = tuple(e for e in unit.effects if e.lasts != "turn")
        state = state.replace(
            replaced(
                unit,
                {
                    "loads": event.loads.get(uid, {}),
                    "armor": event.armor.get(uid, unit.armor),
                    "effects": kept,
                    "move_penalty": 0,
                    "cannot_move": False,
                },
            )
        )
    # The order stays: AK-TURN-2a keep_previous reads who had the first phase last turn.
    return replaced(state, {"phase": "first_move", "phase_index": 0})
