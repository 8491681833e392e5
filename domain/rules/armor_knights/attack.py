"""Attacks: range, out-of-range fire, the check stack, tracking, and the GM's ruling.

AK-DST-1 (ranges), AK-OOR-1 (aim check declared with the attack), AK-ORD-1 (declared,
answered, resolved top first), AK-RLD-1 (reload starts on declaring); AK-TRK-1 is tracking.py.
The seed has no hit formula: whether a check that still stands hits is the GM's ruling.
"""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.actions import interrupt, is_response, points_left, require
from domain.rules.armor_knights.commands import DECLARED
from domain.rules.armor_knights.run import Run
from domain.rules.armor_knights.sheet import BANDS, AkWeapon
from domain.rules.armor_knights.state import AkState, AkUnit
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision

FAR = BANDS.index("far")
AIM_BASE = 2  # AK-OOR-1: 1D6 ≥ 2 + F distance


def distance_rank(state: AkState, attacker: AkUnit, target: AkUnit) -> int:
    """AK-DST-1: the band rank in one cell; far + F distance between cells."""
    if attacker.cell == target.cell:
        if state.band is None:
            raise RuleViolation(
                "AK-DST-1",
                "the units share a cell but no M distance is set",
                ja="両ユニットは同じマップにいますが、M距離が決まっていません",
            )
        return BANDS.index(state.band)
    return FAR + attacker.cell.f_distance(target.cell)


@DECLARED.command(
    cmd.DeclareAttack, legal=("act", "counter_attack"), en="Declare Attack", ja="攻撃宣言"
)
def declare_attack(run: Run, command: cmd.DeclareAttack) -> None:
    """AK-ORD-1: spend the point, start the reload, push the check; AK-OOR-1 aims first."""
    state = run.state
    unit = state.unit(command.unit_id)
    response = is_response(state, unit.id)
    require(unit, "counter_attack" if response else "attack")
    weapon = _ready_weapon(unit, command.weapon)
    target = state.opponent(unit.id)
    rank = distance_rank(state, unit, target)
    f_distance = unit.cell.f_distance(target.cell)
    out_of_range = rank > weapon.rank
    if out_of_range and not command.aim:
        raise RuleViolation(
            "AK-DST-1",
            f"{target.id} is beyond {weapon.name}'s {weapon.range}",
            ja=f"{target.id} は {weapon.name} の射程 {weapon.range} の外です",
        )
    if command.aim and not out_of_range:
        raise RuleViolation(
            "AK-OOR-1",
            f"{target.id} is within range: no aim check is needed",
            ja=f"{target.id} は射程内です。照準判定は要りません",
        )
    if out_of_range and weapon.rank < FAR:
        raise RuleViolation(
            "AK-OOR-1",
            f"{weapon.name} ({weapon.range}) is shorter than far",
            ja=f"{weapon.name}（{weapon.range}）の射程は遠より短いので、有効射程外射撃はできません",
        )
    left = points_left(unit, response=response, cost=1)
    interrupt(run, unit.id, "attack")
    aimed = _aim(run, unit, weapon, f_distance) if out_of_range else True
    said = (
        f"{unit.id} attacks {target.id} with {weapon.name}" + (" (response)" if response else ""),
        f"{unit.id}が{weapon.name}で{target.id}を攻撃" + ("（対応動作）" if response else ""),
    )
    run.rule(
        Decision(
            rule_ids=("AK-ORD-1", "AK-DST-1", "AK-RLD-1"),
            inputs={
                "attacker": unit.id,
                "target": target.id,
                "weapon": weapon.name,
                "range": weapon.range,
                "distance_rank": rank,
                "response": response,
            },
            outcome={"declared": True, "load_turns": weapon.load_turns, "points_left": left},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(
        ev.AttackDeclared,
        said,
        attacker=unit.id,
        target=target.id,
        weapon=weapon.name,
        response=response,
        points_left=left,
        load_turns=weapon.load_turns,
        m_correction=weapon.m_correction,
        f_correction=weapon.f_correction,
        out_of_range=out_of_range,
    )
    if not aimed:
        run.emit(
            ev.AttackSettled,
            (
                f"{unit.id}'s shot past effective range misses",
                f"{unit.id}の有効射程外射撃は照準判定失敗で外れる",
            ),
            attacker=unit.id,
            target=target.id,
            outcome="missed",
            rule_id="AK-OOR-1",
        )


def _ready_weapon(unit: AkUnit, name: str) -> AkWeapon:
    weapon = unit.sheet.weapon(name)
    if weapon is None or name not in unit.equipped:
        raise RuleViolation(
            "AK-SWP-1",
            f"{unit.id} has no equipped weapon {name!r}",
            ja=f"{unit.id} は武器 {name!r} を装備していません",
        )
    if unit.loads.get(name, 0) > 0:
        raise RuleViolation(
            "AK-RLD-1",
            f"{name} is loading ({unit.loads[name]} turns left)",
            ja=f"{name} は装填中です（残り {unit.loads[name]} T）",
        )
    return weapon


def _aim(run: Run, unit: AkUnit, weapon: AkWeapon, f_distance: int) -> bool:
    """AK-OOR-1: 1D6 ≥ 2 + F distance, rolled with the declaration; a failure misses."""
    need = AIM_BASE + f_distance
    face = run.draw(6, "AK-OOR-1")
    ok = face >= need
    run.rule(
        Decision(
            rule_ids=("AK-OOR-1",),
            inputs={"unit": unit.id, "weapon": weapon.name, "f_distance": f_distance},
            outcome={"face": face, "need": need, "success": ok},
            summary_en=f"{unit.id} aims past effective range: {face} vs {need}+ → "
            + ("on target" if ok else "misses"),
            summary_ja=f"{unit.id}の有効射程外射撃・照準判定：出目{face}（{need}以上）→"
            + ("成功" if ok else "失敗、攻撃は外れる"),
        )
    )
    return ok


@DECLARED.command(cmd.ResolveAttack, legal="ruling", en="Resolve Attack", ja="攻撃の裁定（GM）")
def resolve_attack(run: Run, command: cmd.ResolveAttack) -> None:
    """AK-ORD-1: the top check resolves first; the GM rules whether it hit."""
    top = run.state.checks[-1]
    said = (
        f"GM: {top.attacker}'s attack on {top.target} "
        + ("hits" if command.hit else "does not hit")
        + f" ({command.reason})",
        f"GM裁定：{top.attacker}の{top.target}への攻撃は"
        + ("命中" if command.hit else "命中せず")
        + f"（{command.reason}）",
    )
    run.rule(
        Decision(
            rule_ids=("AK-ORD-1",),
            inputs={
                "attacker": top.attacker,
                "target": top.target,
                "evading": top.evading,
                "moved_m": top.moved_m,
                "moved_f": top.moved_f,
                "reason": command.reason,
            },
            outcome={"hit": command.hit},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    outcome = "hit" if command.hit else "not_hit"
    run.emit(
        ev.AttackSettled,
        said,
        attacker=top.attacker,
        target=top.target,
        outcome=outcome,
        rule_id="AK-ORD-1",
    )
