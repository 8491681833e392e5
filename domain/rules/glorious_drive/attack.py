"""Declaring an attack: GD-MAIN-5 A, GD-MAIN-6/7, GD-RNG-1..3, GD-SQ-3/4, GD-RLD-1/3, GD-INJ-4.

The attack's final values (attack, hit) are fixed at declaration and recorded; each defender
then reacts (reaction.py). Defenders who cannot react (fainted or worse) are hit at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.main_steps import occupied_by_others
from domain.rules.glorious_drive.position import Position, distance
from domain.rules.glorious_drive.reaction import finish_if_settled, hit_without_reaction
from domain.rules.glorious_drive.reload import after_attack
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.sheet import AttackMeans, Item, Reach, Weapon
from domain.rules.glorious_drive.situation import check_situation
from domain.rules.glorious_drive.state import GdCombatant
from domain.rules.glorious_drive.targeting import can_target_point, check_target, in_area
from domain.rules.outcome import Decision, Value


@DECLARED.command(cmd.DeclareAttack, legal="action", en="Declare Attack", ja="攻撃宣言")
def declare_attack(run: Run, command: cmd.DeclareAttack) -> None:
    """GD-MAIN-5 A: check weapon, ammunition and target; record the attack and await reactions."""
    attacker = run.state.combatant(command.combatant_id)
    weapon = attacker.main()
    ammo = attacker.ammo.get(weapon.name)
    if ammo is not None:
        after_attack(ammo)  # GD-RLD-1/3: refuses an empty or half-reloaded weapon
    if weapon.area:
        defenders, aim = _area_defenders(run, attacker, weapon, command), command.point
    else:
        defenders, aim = _single_defender(run, attacker, weapon, command), None
    attack, hit = _attack_values(attacker, weapon)
    aimed_at = aim if aim is not None else run.state.combatants[defenders[0]].position
    run.rule(_targeting(attacker, weapon, aimed_at, defenders=defenders, attack=attack, hit=hit))
    run.emit(
        ev.AttackDeclared,
        attacker=attacker.id,
        weapon=weapon.name,
        attack_type=weapon.attack_type,
        reach=weapon.reach,
        attack=attack,
        hit=hit,
        defenders=defenders,
        point=aim,
        area=weapon.area,
    )
    for defender in defenders:
        if not run.state.combatants[defender].can_react:
            hit_without_reaction(run, defender)
    finish_if_settled(run)


UNARMED_RANGE = 1  # GD-MAIN-6: silent on range; an adjacent square, or the same (GD-SQ-1)
UNARMED = "unarmed"


@DECLARED.command(cmd.AttackUnarmed, legal="action", en="Attack Unarmed", ja="素手攻撃")
def attack_unarmed(run: Run, command: cmd.AttackUnarmed) -> None:
    """GD-MAIN-6: physical attack and melee hit without the weapon's contribution."""
    attacker = run.state.combatant(command.combatant_id)
    held = attacker.weapon(attacker.main_weapon)
    if held is not None and held.reach != "ranged":
        raise RuleViolation(
            "GD-MAIN-6",
            f"{attacker.id} holds the melee weapon {held.name}: attack with it (GD-MAIN-5 A)",
            ja=f"{attacker.id} は白兵武器 {held.name} を持っています。"
            "それで攻撃してください（GD-MAIN-5 A）",
        )
    means: AttackMeans = "unarmed" if held is None else "bash"
    stats = attacker.sheet.stats
    target = cmd.named(command.target, "GD-MAIN-6", "target")
    defenders = _target(run, attacker, target, UNARMED_RANGE)
    name = UNARMED if held is None else held.name
    _declare(
        run,
        attacker,
        defenders,
        _Means(name=name, means=means, reach="melee", attack=stats.phys_atk, hit=stats.melee_hit),
        rules=("GD-MAIN-6", "GD-RNG-1", "GD-SQ-3"),
        inputs={"range": UNARMED_RANGE, "weapon_contribution": False},
    )


@DECLARED.command(cmd.ThrowItem, legal="action", en="Throw Item", ja="アイテムを投げる")
def throw_item(run: Run, command: cmd.ThrowItem) -> None:
    """GD-MAIN-7: ranged hit without the weapon's contribution; the item's physical attack."""
    thrower = run.state.combatant(command.combatant_id)
    name = cmd.named(command.item, "GD-MAIN-7", "item to throw")
    target = cmd.named(command.target, "GD-MAIN-7", "target")
    item = thrower.item(name)
    if item is not None and item.name in thrower.equipped_items:
        raise RuleViolation(
            "GD-MAIN-7",
            f"{item.name} is equipped: only carried items are thrown",
            ja=f"{item.name} は装備中です。投擲できるのは携帯品だけです",
        )
    if command.item_attack is not None and not run.ctx.is_gm:
        raise RuleViolation(
            "GD-MAIN-7",
            "only the GM sets or lowers a thrown item's attack",
            ja="投擲するアイテムの攻撃力を決めたり下げたりできるのはGMだけです",
        )
    if item is None:
        if command.item_attack is None:
            raise RuleViolation(
                "GD-MAIN-7",
                f"{thrower.id} carries no {name!r}: a nearby item needs the GM's attack",
                ja=f"{thrower.id} は {name!r} を携帯していません。"
                "周囲のアイテムにはGMが決める攻撃力が必要です",
            )
        item_attack, reach = command.item_attack, Item(name=name).range
    else:
        if command.item_attack is not None and command.item_attack > item.phys_atk:
            raise RuleViolation(
                "GD-MAIN-7",
                f"the GM may lower {item.name}'s attack {item.phys_atk}, not raise it",
                ja=f"GMは {item.name} の攻撃力 {item.phys_atk} を下げることはできますが、"
                "上げることはできません",
            )
        item_attack, reach = item.phys_atk, item.range
    attack = item_attack if command.item_attack is None else command.item_attack
    defenders = _target(run, thrower, target, reach)
    _declare(
        run,
        thrower,
        defenders,
        _Means(
            name=name,
            means="thrown",
            reach="ranged",
            attack=attack,
            hit=thrower.sheet.stats.ranged_hit,
        ),
        rules=("GD-MAIN-7", "GD-RNG-1", "GD-SQ-3"),
        inputs={
            "range": reach,
            "carried": item is not None,
            "item_attack": item_attack,
            "lowered_by_gm": command.item_attack is not None and item is not None,
        },
    )


@dataclass(frozen=True)
class _Means:
    name: str
    means: AttackMeans
    reach: Reach
    attack: int
    hit: int


def _declare(
    run: Run,
    attacker: GdCombatant,
    defenders: tuple[str, ...],
    means: _Means,
    *,
    rules: tuple[str, ...],
    inputs: dict[str, Value],
) -> None:
    """Record a physical attack without the main weapon and await the defender's reaction."""
    target = run.state.combatants[defenders[0]]
    d = distance(attacker.position, target.position)
    run.rule(
        Decision(
            rule_ids=rules,
            inputs={"means": means.means, "item": means.name, "distance": d, **inputs},
            outcome={"defenders": defenders, "attack": means.attack, "hit": means.hit},
            summary_en=f"{attacker.id} attacks {target.id} ({means.means}, {means.name}): "
            f"attack {means.attack}, hit {means.hit}",
            summary_ja=f"{attacker.id}が{target.id}を攻撃（{means.name}）："
            f"攻撃力{means.attack}、命中{means.hit}",
        )
    )
    run.emit(
        ev.AttackDeclared,
        attacker=attacker.id,
        weapon=means.name,
        attack_type="physical",
        reach=means.reach,
        attack=means.attack,
        hit=means.hit,
        defenders=defenders,
        means=means.means,
    )
    for defender in defenders:
        if not run.state.combatants[defender].can_react:
            hit_without_reaction(run, defender)
    finish_if_settled(run)


def _attack_values(attacker: GdCombatant, weapon: Weapon) -> tuple[int, int]:
    stats = attacker.sheet.stats
    base_attack = stats.phys_atk if weapon.attack_type == "physical" else stats.perc_atk
    base_hit = stats.melee_hit if weapon.reach == "melee" else stats.ranged_hit
    return base_attack + weapon.attack, base_hit + weapon.hit


def _single_defender(
    run: Run, attacker: GdCombatant, weapon: Weapon, command: cmd.DeclareAttack
) -> tuple[str, ...]:
    if command.target is None or command.point is not None:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{weapon.name} attacks one target: name a target",
            ja=f"{weapon.name} は単体を攻撃します。対象を指定してください",
        )
    return _target(run, attacker, command.target, weapon.range)


def _target(run: Run, attacker: GdCombatant, target_id: str, reach: int) -> tuple[str, ...]:
    """GD-MAIN-5 / GD-RNG-1 / GD-SQ-3 / GD-INJ-4: one living target in range, line clear."""
    target = run.state.combatant(target_id, "GD-MAIN-5")
    if target.id == attacker.id:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{attacker.id} cannot attack itself",
            ja=f"{attacker.id} は自分を攻撃できません",
        )
    if target.injury == "dead":  # GD-INJ-4: lost for good, as area attacks leave them out
        raise RuleViolation(
            "GD-INJ-4",
            f"{target.id} is dead and can no longer be attacked",
            ja=f"{target.id} は死亡しており、もう攻撃の対象にできません",
        )
    blockers = occupied_by_others(run.state, attacker.id, target.id)
    check_target(attacker.position, target.position, reach, blockers, options=run.state.options)
    return (target.id,)


def _area_defenders(
    run: Run, attacker: GdCombatant, weapon: Weapon, command: cmd.DeclareAttack
) -> tuple[str, ...]:
    point = command.point
    if point is None or command.target is not None:
        raise RuleViolation(
            "GD-RNG-3",
            f"{weapon.name} is an area weapon: name a target point",
            ja=f"{weapon.name} は範囲攻撃の武器です。対象の地点を指定してください",
        )
    blockers = occupied_by_others(run.state, attacker.id)
    if not can_target_point(
        attacker.position, point, weapon.range, blockers, options=run.state.options
    ):
        raise RuleViolation(
            "GD-SQ-4",
            f"target point {point} is {distance(attacker.position, point)} squares away "
            f"(range {weapon.range}) or beyond an occupied square",
            ja=f"対象の地点 {point} は {distance(attacker.position, point)} スクエア先（射程 "
            f"{weapon.range}）か、占有スクエアの向こうです",
        )
    # GD-REACT-6: friend and foe alike; the attacker itself is not its own target.
    return tuple(
        c.id
        for c in run.state.combatants.values()
        if c.id != attacker.id and c.injury != "dead" and in_area(point, weapon.area, c.position)
    )


def _targeting(
    attacker: GdCombatant,
    weapon: Weapon,
    aim: Position,
    *,
    defenders: tuple[str, ...],
    attack: int,
    hit: int,
) -> Decision:
    rules = ("GD-MAIN-5", "GD-RNG-1", "GD-SQ-3") + (("GD-RNG-3", "GD-SQ-4") if weapon.area else ())
    if aim.z != attacker.position.z:  # the distance counts the height difference too
        rules += ("GD-RNG-2",)
    d = distance(attacker.position, aim)
    return Decision(
        rule_ids=rules,
        inputs={"weapon": weapon.name, "range": weapon.range, "area": weapon.area, "distance": d},
        outcome={"defenders": defenders, "attack": attack, "hit": hit},
        summary_en=f"{attacker.id} attacks with {weapon.name} at {aim} ({d} of range "
        f"{weapon.range}): " + (", ".join(defenders) or "no one in the area"),
        summary_ja=f"{attacker.id}が{weapon.name}で攻撃（距離{d}/射程{weapon.range}）：対象"
        + ("、".join(defenders) or "なし"),
    )


@DECLARED.command(
    cmd.GrantSituationModifier,
    legal="situation",
    en="Grant Situation Modifier",
    ja="状況修正を与える（GM裁定）",
)
def grant_situation_modifier(run: Run, command: cmd.GrantSituationModifier) -> None:
    """GD-DMG-4: the GM's extra damage against one defender still to react."""
    attack = run.state.pending
    if attack is None or command.defender not in attack.defenders:
        raise RuleViolation(
            "GD-DMG-4",
            f"{command.defender!r} is not a defender awaiting damage",
            ja=f"{command.defender!r} はダメージを待つ防御側ではありません",
        )
    check_situation(command.percent, command.grade)
    run.emit(
        ev.SituationModifierGranted,
        defender=command.defender,
        percent=command.percent,
        grade=command.grade,
        reason=command.reason,
    )
