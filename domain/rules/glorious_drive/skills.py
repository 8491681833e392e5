"""Skills at their timing: GD-MAIN-4 B (movement), GD-MAIN-5 B (active), GD-REACT-2 (counter).

The engine enforces what the rules say of every skill — its timing, its uses left, and its
cost during the step it is declared in (GD-COST-3, option GD-COST-3a) — and records the
skill's effect as the GM applies it from the skill's text (the `note` of the ruling).
"""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import condition_events as cev
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.cost import skill_step_hp
from domain.rules.glorious_drive.main_steps import occupied_by_others
from domain.rules.glorious_drive.reaction import finish_if_settled, hit_after_reaction
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.sheet import Skill, SkillType
from domain.rules.glorious_drive.state import GdCombatant
from domain.rules.outcome import Decision

_TIMING: dict[SkillType, str] = {
    "movement": "GD-MAIN-4",
    "active": "GD-MAIN-5",
    "counter": "GD-REACT-2",
}


@DECLARED.command(
    cmd.UseMovementSkill, legal="movement_skill", en="Use Movement Skill", ja="移動スキル使用"
)
def use_movement_skill(run: Run, command: cmd.UseMovementSkill) -> None:
    """GD-MAIN-4 B: the skill moves the character as its text says (not the move stat)."""
    user = run.state.combatant(command.combatant_id)
    skill = _declare(run, user, command.skill, "movement", command.note)
    to = command.destination
    if run.state.battle_map.terrain_at(to) is None:
        raise RuleViolation("GD-RNG-4", f"{to} is off the map", ja=f"{to} はマップの外です")
    if to in occupied_by_others(run.state, user.id):
        raise RuleViolation("GD-SQ-3", f"{to} is an occupied square", ja=f"{to} は占有スクエアです")
    run.rule(_effect(user, skill, command.note, {"destination": str(to)}))
    run.emit(ev.CombatantMoved, combatant=user.id, path=(to,), cost=0)


@DECLARED.command(
    cmd.UseActiveSkill, legal="active_skill", en="Use Active Skill", ja="アクティブスキル使用"
)
def use_active_skill(run: Run, command: cmd.UseActiveSkill) -> None:
    """GD-MAIN-5 B: an active skill is the action of this phase."""
    user = run.state.combatant(command.combatant_id)
    skill = _declare(run, user, command.skill, "active", command.note)
    run.rule(_effect(user, skill, command.note, {}))
    run.end_main_action(user.id)


@DECLARED.command(
    cmd.UseCounterSkill, legal="counter", en="Use Counter Skill", ja="カウンタースキル使用"
)
def use_counter_skill(run: Run, command: cmd.UseCounterSkill) -> None:
    """GD-REACT-2: a counter skill is this defender's reaction."""
    user = run.state.combatant(command.combatant_id)
    if command.negates_hit and not run.ctx.is_gm:
        raise RuleViolation(
            "GD-REACT-2",
            "whether a counter skill stops the hit is the GM's ruling on its text",
            ja="対抗スキルで攻撃を止められるかは、スキルの文面に基づくGMの裁定です",
        )
    skill = _declare(run, user, command.skill, "counter", command.note)
    run.emit(ev.ReactionDeclared, combatant=user.id, reaction="counter_skill")
    run.rule(_effect(user, skill, command.note, {"negates_hit": command.negates_hit}))
    if command.negates_hit:
        run.emit(ev.DefenceResolved, combatant=user.id, hit=False)
        finish_if_settled(run)
    else:
        hit_after_reaction(run, user.id)


def _declare(run: Run, user: GdCombatant, name: str, kind: SkillType, note: str) -> Skill:
    """Check the skill and its uses, pay GD-COST-3 for the step, record the use."""
    rule = _TIMING[kind]
    skill = user.sheet.skill(name)
    if skill is None or skill.skill_type != kind:
        raise RuleViolation(
            rule,
            f"{user.id} has no {kind} skill {name!r}",
            ja=f"{user.id} に {kind} スキル {name!r} はありません",
        )
    _check_weapon_type(user, skill, rule)
    if not user.can_use(name):
        raise RuleViolation(
            "GD-MAIN-5",
            f"{user.id} has used {name!r} all {skill.uses} times it allows",
            ja=f"{user.id} は {name!r} を使用回数の {skill.uses} 回すべて使いました",
        )
    hp = user.hp
    if skill.cost:
        step = skill_step_hp(
            user.sheet.base_max_hp or user.max_hp,
            user.sheet.stats.capacity,
            user.sheet.equipment_cost,
            skill.cost,
            user.hp,
            options=run.state.options,
        )
        run.rule(step.decision())
        hp = step.hp_in_step
    left = None if skill.uses is None else user.skill_uses[name] - 1
    run.emit(cev.SkillUsed, combatant=user.id, skill=name, uses_left=left, hp=hp)
    return skill


def _check_weapon_type(user: GdCombatant, skill: Skill, rule: str) -> None:
    """GD-MAIN-6: a skill naming a weapon type needs a main weapon of that type."""
    if skill.weapon_type is None:
        return
    held = user.weapon(user.main_weapon)
    if held is None:
        raise RuleViolation(
            "GD-MAIN-6",
            f"{skill.name} requires a {skill.weapon_type} weapon; {user.id} holds none (unarmed)",
            ja=f"{skill.name} には {skill.weapon_type} の武器が必要ですが、{user.id} は素手です",
        )
    if held.weapon_type != skill.weapon_type:
        raise RuleViolation(
            rule,
            f"{skill.name} requires a {skill.weapon_type} weapon, not {held.name}",
            ja=f"{skill.name} には {held.name} ではなく {skill.weapon_type} の武器が必要です",
        )


def _effect(user: GdCombatant, skill: Skill, note: str, extra: dict[str, str | bool]) -> Decision:
    rule = _TIMING[skill.skill_type]
    return Decision(
        rule_ids=(rule,),
        inputs={"skill": skill.name, "skill_type": skill.skill_type, "cost": skill.cost, **extra},
        outcome={"effect": note or "as the skill's text says"},
        summary_en=f"{user.id} uses {skill.name}: {note or 'as its text says'}",
        summary_ja=f"{user.id}が《{skill.name}》を使用：{note or 'スキルの記載どおり'}",
    )
