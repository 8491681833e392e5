"""Reaction, damage and injury steps for each defender: GD-REACT-1..6, GD-DMG-1..4, GD-INJ.

Each defender of the pending attack makes exactly one reaction; a hit goes through the
damage step (situation modifier, guard cut) and, when HP falls to −1 or below, the injury
checks. When the last defender is settled the attacker's main action phase ends.
"""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.damage import can_pay_guard_cost, resolve_damage
from domain.rules.glorious_drive.dodge import resolve_dodge
from domain.rules.glorious_drive.injury import heaviest, resolve_injuries
from domain.rules.glorious_drive.procedure import interceptors
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.sheet import Weapon
from domain.rules.glorious_drive.state import GdCombatant, PendingAttack


@DECLARED.command(cmd.Dodge, legal="reaction", en="Dodge", ja="回避")
def dodge(run: Run, command: cmd.Dodge) -> None:
    """GD-REACT-1/6: the attacker's one hit roll against this defender's evasion roll."""
    attack = _pending(run)
    defender = run.state.combatant(command.combatant_id)
    run.emit(ev.ReactionDeclared, combatant=defender.id, reaction="dodge")
    first_dodge = attack.hit_die is None
    if attack.hit_die is None:
        hit_die = run.draw(100, f"GD-REACT-1 hit {attack.attacker}")  # the attacker rolls it
        hit_seq: int | None = run.dice.last_roll_seq
    else:  # GD-REACT-6: the attacker's one roll meets every dodge
        hit_die, hit_seq = attack.hit_die, attack.hit_roll_seq
    evasion_die = run.draw(100, "GD-REACT-1 evasion")
    result = resolve_dodge(attack.hit, hit_die, defender.sheet.stats.evasion, evasion_die)
    cites = () if first_dodge or hit_seq is None else (hit_seq,)
    run.rule(result.decision(), cites=cites)
    if first_dodge:  # after the ruling, so the die it names is recorded before it
        run.emit(ev.HitRolled, attacker=attack.attacker, die=hit_die, roll_seq=hit_seq)
    if result.dodged:
        run.emit(ev.DefenceResolved, combatant=defender.id, hit=False)
        finish_if_settled(run)
    else:
        _hit(run, defender.id, guard=None)


@DECLARED.command(cmd.Guard, legal="guard", en="Guard", ja="ガード")
def guard(run: Run, command: cmd.Guard) -> None:
    """GD-REACT-4: pay the guard cost, then the cut reduces the damage (GD-DMG-3)."""
    defender = run.state.combatant(command.combatant_id)
    weapon = _guard_weapon(defender)
    run.emit(ev.ReactionDeclared, combatant=defender.id, reaction="guard", guard=True)
    _hit(run, defender.id, guard=weapon)


@DECLARED.command(cmd.TakeHit, legal="reaction", en="Take Hit", ja="そのまま受ける")
def take_hit(run: Run, command: cmd.TakeHit) -> None:
    """GD-REACT-5: no reaction (待機); the attack hits."""
    run.emit(ev.ReactionDeclared, combatant=command.combatant_id, reaction="wait")
    _hit(run, command.combatant_id, guard=None)


@DECLARED.command(cmd.Intercept, legal="intercept", en="Intercept", ja="かばう")
def intercept(run: Run, command: cmd.Intercept) -> None:
    """GD-REACT-3 (with GD-REACT-4): step into the line of fire and take the attack instead."""
    attack = _pending(run)
    interceptor = run.state.combatant(command.combatant_id)
    if command.target not in attack.defenders or interceptor.id not in interceptors(
        run.state, attack
    ):
        raise RuleViolation(
            "GD-REACT-3",
            f"{interceptor.id} at {interceptor.position} is not across the attack on "
            f"{command.target!r} (only a single-target attack crossing it can be intercepted)",
            ja=f"{interceptor.id}（{interceptor.position}）"
            f"は {command.target!r} への攻撃の射線上にいません（射線の妨害ができるのは、"
            "自身を跨ぐ単体攻撃だけです）",
        )
    weapon = _guard_weapon(interceptor) if command.guard else None
    run.emit(
        ev.ReactionDeclared,
        combatant=interceptor.id,
        reaction="intercept",
        instead_of=command.target,
        guard=command.guard,
    )
    _hit(run, interceptor.id, guard=weapon)


def hit_without_reaction(run: Run, defender: str) -> None:
    """GD-INJ-1 / GD-REACT-5: a defender who acts in no phase cannot react and is hit."""
    run.emit(ev.ReactionDeclared, combatant=defender, reaction="none_possible")
    _hit(run, defender, guard=None)


def hit_after_reaction(run: Run, defender: str) -> None:
    """GD-REACT-2: a reaction that did not stop the attack; the damage step follows."""
    _hit(run, defender, guard=None)


def finish_if_settled(run: Run) -> None:
    """GD-REACT: when no defender is left to settle, the attacker's phase ends."""
    attack = run.state.pending
    if attack is not None and not attack.defenders:
        run.end_main_action(attack.attacker)


def _pending(run: Run) -> PendingAttack:
    if run.state.pending is None:
        raise RuleViolation(
            "GD-REACT-1",
            "no attack is awaiting a reaction",
            ja="対抗判定を待っている攻撃はありません",
        )
    return run.state.pending


def _guard_weapon(defender: GdCombatant) -> Weapon:
    weapon = defender.weapon(defender.main_weapon)
    if weapon is None or weapon.cut is None:
        raise RuleViolation(
            "GD-REACT-4",
            f"{defender.id}'s main weapon has no cut value",
            ja=f"{defender.id} のメイン武器にはカット値がありません",
        )
    if not can_pay_guard_cost(defender.hp, weapon.guard_cost):
        raise RuleViolation(
            "GD-REACT-4",
            f"guard costs {weapon.guard_cost} HP but {defender.id} has {defender.hp}; "
            f"paying would leave {defender.hp - weapon.guard_cost}",
            ja=f"【防御】のコストは生命 {weapon.guard_cost} ですが、"
            f"{defender.id} の生命は {defender.hp} です。"
            f"払うと {defender.hp - weapon.guard_cost} になります",
        )
    return weapon


def _hit(run: Run, defender_id: str, *, guard: Weapon | None) -> None:
    """GD-DMG-1..4 then GD-INJ: apply the damage of the pending attack to one defender."""
    attack = _pending(run)
    defender = run.state.combatants[defender_id]
    if guard is not None and guard.guard_cost:
        hp = defender.hp - guard.guard_cost
        run.emit(ev.GuardCostPaid, combatant=defender.id, cost=guard.guard_cost, hp=hp)
    stats = defender.sheet.stats
    grant = attack.situation.get(defender.id)
    result = resolve_damage(
        attack.attack,
        stats.phys_def if attack.attack_type == "physical" else stats.perc_def,
        cut=guard.cut if guard is not None else None,
        guard_cost=guard.guard_cost if guard is not None else 0,
        situation_percent=grant.percent if grant is not None else 0,
        situation_grade=grant.grade if grant is not None else None,
        options=run.state.options,
    )
    run.rule(result.decision())
    hp = run.state.combatants[defender.id].hp - result.damage
    run.emit(ev.DamageApplied, combatant=defender.id, damage=result.damage, hp=hp)
    if result.damage > 0 and hp <= -1:
        _injuries(run, run.state.combatants[defender.id])
    run.emit(ev.DefenceResolved, combatant=defender.id, hit=True)
    finish_if_settled(run)


def _injuries(run: Run, defender: GdCombatant) -> None:
    """GD-INJ-1..5: faint → critical → incapacitated → death; only the heaviest applies."""
    result = resolve_injuries(
        defender.hp,
        defender.max_hp,
        defender.sheet.stats.resistance,
        is_assault_core=defender.sheet.is_assault_core,
        draw=run.draw_for(defender.id),
        options=run.state.options,
    )
    run.rule(result.decision())
    worst = heaviest(defender.injury, result.injury)
    if worst != defender.injury:
        run.emit(ev.InjurySuffered, combatant=defender.id, injury=worst)
