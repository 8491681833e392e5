"""How each Glorious Drive fact changes the ruleset's state: pure, no rule is re-run."""

from __future__ import annotations

from collections.abc import Callable

from domain.events import DomainEvent
from domain.frozen import replaced
from domain.rules.glorious_drive import condition_events as cev
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.reload import WeaponAmmo, after_attack, loaded
from domain.rules.glorious_drive.sheet import GdSheet
from domain.rules.glorious_drive.state import (
    GdCombatant,
    GdState,
    PendingAttack,
    PendingLoan,
    SituationGrant,
    Status,
    next_acting_index,
)
from domain.rules.records import COUNTED_ONLY, EncounterEnded
from domain.rules.ruleset import Entrant


def joined(state: GdState, entrant: Entrant) -> GdState:
    """A combatant joins with full ammunition and the sheet's HP."""
    sheet = GdSheet.model_validate(entrant.sheet)
    ammo = {
        w.name: loaded(w.reload_interval, w.reload_time)
        for w in sheet.weapons
        if w.reload_interval is not None
    }
    combatant = GdCombatant(
        id=entrant.combatant_id,
        name=entrant.name,
        side=entrant.side,
        controller=entrant.controller,
        sheet=sheet,
        position=sheet.position,
        hp=sheet.stats.hp if sheet.hp is None else sheet.hp,
        main_weapon=sheet.main_weapon,
        sub_weapon=sheet.sub_weapon,
        ammo=ammo,
        skill_uses={s.name: s.uses for s in sheet.skills if s.uses is not None},
        items=sheet.items,
        equipped_items=sheet.equipped_items,
    )
    return state.replace(combatant)


def evolve(state: GdState, event: DomainEvent) -> GdState:  # noqa: PLR0912
    if type(event) in COUNTED_ONLY:
        return state
    match event:
        # The facts of every turn first: each case is an isinstance test, in this order.
        case ev.InitiativeOrdered(turn=turn, order=order):
            started = replaced(
                state, {"turn": turn, "phase": "main_action", "order": order, "step": "cleanup"}
            )
            return replaced(started, {"acting_index": next_acting_index(started, 0)})
        case ev.CleanupCompleted():
            return replaced(state, {"step": "weapon_swap"})
        case ev.AttackDeclared():
            return _declared(state, event)
        case ev.ReactionDeclared(combatant=cid, instead_of=target) if target is not None:
            return _with_pending(state, lambda a: _swap_defender(a, target, cid))
        case ev.ReactionDeclared():
            return state  # only an interception changes who is attacked
        case ev.HitRolled(die=die, roll_seq=seq):
            change = {"hit_die": die, "hit_roll_seq": seq}
            return _with_pending(state, lambda a: replaced(a, change))
        case ev.GuardCostPaid(combatant=cid, hp=hp) | ev.DamageApplied(combatant=cid, hp=hp):
            return _update(state, cid, hp=hp)
        case ev.DefenceResolved(combatant=cid):
            return _with_pending(state, lambda a: _resolved(a, cid))
        case ev.MainActionEnded(combatant=cid) | ev.CombatantWaited(combatant=cid):
            spent = tuple(c for c in state.actions_spent if c != cid)
            # The order and the combatants stay as they are: the next to act is found on
            # them before the one copy.
            index = next_acting_index(state, state.acting_index + 1)
            return replaced(
                state,
                {"step": "cleanup", "pending": None, "pending_loan": None}
                | {"actions_spent": spent, "acting_index": index},
            )
        case ev.TurnEnded():
            return replaced(
                state, {"phase": "initiative", "order": (), "acting_index": 0, "actions_spent": ()}
            )
        case ev.ActionDelayed(order=order):
            delayed = replaced(state, {"order": order})
            index = next_acting_index(delayed, state.acting_index)
            return replaced(delayed, {"acting_index": index})
        case ev.WeaponsSwapped(combatant=cid, main_weapon=main, sub_weapon=sub):
            moved = _update(state, cid, main_weapon=main, sub_weapon=sub)
            return replaced(moved, {"step": "move"})
        case ev.CombatantMoved(combatant=cid, path=path):
            return replaced(_update(state, cid, position=path[-1]), {"step": "action"})
        case ev.SituationModifierGranted(defender=who, percent=p, grade=g, reason=r):
            return _with_pending(
                state, lambda a: _grant(a, who, SituationGrant(percent=p, grade=g, reason=r))
            )
        case cev.SkillUsed(combatant=cid, skill=skill, uses_left=left, hp=hp):
            uses = state.combatants[cid].skill_uses
            changed = uses if left is None else {**uses, skill: left}
            return _update(state, cid, hp=hp, skill_uses=changed)
        case ev.InjurySuffered(combatant=cid, injury=injury):
            return _update(state, cid, injury=injury)
        case cev.FaintRecovered(combatant=cid):
            return _update(state, cid, injury="none")
        case ev.WeaponReloaded(combatant=cid, weapon=name, shots_left=left, reloads_done=done):
            return _reloaded(state, cid, name, left, done)
        case cev.StatusInflicted() | cev.StatusExpired() | cev.StatusDurationElapsed():
            return _status(state, event)
        case ev.LoanOffered(lender=lender, borrower=borrower, item=item):
            loan = PendingLoan(lender=lender, borrower=borrower, item=item)
            return replaced(state, {"pending_loan": loan})
        case ev.LoanDeclined():
            return replaced(state, {"pending_loan": None})
        case ev.ItemLent(lender=lender, borrower=borrower, item=item):
            return _lent(state, lender, borrower, item)
        case ev.EquipmentSwapped(combatant=cid, sub_weapon=sub, equipped_items=equipped):
            return _update(state, cid, sub_weapon=sub, equipped_items=equipped)
        case EncounterEnded():
            return replaced(state, {"phase": "over", "pending": None})
    return state


def _update(state: GdState, cid: str, **changes: object) -> GdState:
    return state.replace(replaced(state.combatants[cid], changes))


def _lent(state: GdState, lender_id: str, borrower_id: str, name: str) -> GdState:
    """GD-MAIN-5 C: the item leaves the lender (equipped or not) and is carried by the borrower."""
    lender, borrower = state.combatants[lender_id], state.combatants[borrower_id]
    item = lender.item(name)
    if item is None:
        return state
    lender = replaced(
        lender,
        {
            "items": tuple(i for i in lender.items if i.name != name),
            "equipped_items": tuple(n for n in lender.equipped_items if n != name),
        },
    )
    borrower = replaced(borrower, {"items": (*borrower.items, item)})
    after = state.replace(lender).replace(borrower)
    return replaced(
        after, {"pending_loan": None, "actions_spent": (*state.actions_spent, borrower_id)}
    )


def _declared(state: GdState, event: ev.AttackDeclared) -> GdState:
    attacker = state.combatants[event.attacker]
    ammo = attacker.ammo.get(event.weapon) if event.means == "weapon" else None
    if event.means == "thrown":  # GD-MAIN-7: a thrown carried item leaves the thrower
        kept = tuple(i for i in attacker.items if i.name != event.weapon)
        attacker = replaced(attacker, {"items": kept})
    if ammo is not None:
        attacker = replaced(attacker, {"ammo": {**attacker.ammo, event.weapon: after_attack(ammo)}})
    pending = PendingAttack(
        attacker=event.attacker,
        weapon=event.weapon,
        attack_type=event.attack_type,
        reach=event.reach,
        attack=event.attack,
        hit=event.hit,
        point=event.point,
        area=event.area,
        defenders=event.defenders,
        means=event.means,
    )
    combatants = {**state.combatants, attacker.id: attacker}
    return replaced(state, {"combatants": combatants, "pending": pending, "step": "reaction"})


def _with_pending(state: GdState, change: Callable[[PendingAttack], PendingAttack]) -> GdState:
    if state.pending is None:
        return state
    return replaced(state, {"pending": change(state.pending)})


def _grant(attack: PendingAttack, who: str, grant: SituationGrant) -> PendingAttack:
    return replaced(attack, {"situation": {**attack.situation, who: grant}})


def _swap_defender(attack: PendingAttack, target: str, interceptor: str) -> PendingAttack:
    defenders = tuple(interceptor if d == target else d for d in attack.defenders)
    # A modifier granted against the original target (e.g. unaware) does not follow the
    # attack onto a character who chose to step into it.
    situation = {k: v for k, v in attack.situation.items() if k != target}
    return replaced(attack, {"defenders": defenders, "situation": situation})


def _resolved(attack: PendingAttack, cid: str) -> PendingAttack:
    return replaced(attack, {"defenders": tuple(d for d in attack.defenders if d != cid)})


def _reloaded(state: GdState, cid: str, weapon: str, left: int, done: int) -> GdState:
    combatant = state.combatants[cid]
    old = combatant.ammo[weapon]
    new = WeaponAmmo(
        interval=old.interval, reload_time=old.reload_time, shots_left=left, reloads_done=done
    )
    ammo = {**combatant.ammo, weapon: new}
    return state.replace(replaced(combatant, {"ammo": ammo}))


def _status(state: GdState, event: DomainEvent) -> GdState:
    match event:
        case cev.StatusInflicted(combatant=cid, status=name, effect_value=value):
            added = Status(name=name, effect_value=value, turns_left=value)
            kept = [s for s in state.combatants[cid].statuses if s.name != name]
            return _update(state, cid, statuses=(*kept, added))
        case cev.StatusExpired(combatant=cid, status=name):
            kept = [s for s in state.combatants[cid].statuses if s.name != name]
            return _update(state, cid, statuses=tuple(kept))
        case cev.StatusDurationElapsed(combatant=cid, status=name, turns_left=left):
            statuses = tuple(
                replaced(s, {"turns_left": left}) if s.name == name else s
                for s in state.combatants[cid].statuses
            )
            return _update(state, cid, statuses=statuses)
    return state
