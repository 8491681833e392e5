"""Points, acquired actions and exclusive actions shared by every action (AK-TURN-3, AK-EXC-1);
and the actions with nothing more to them: reload (AK-RLD-1), stow/equip (AK-SWP-1), evade.
"""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.commands import DECLARED
from domain.rules.armor_knights.events import Exclusive
from domain.rules.armor_knights.run import Run
from domain.rules.armor_knights.sheet import Action
from domain.rules.armor_knights.state import AkState, AkUnit
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision

_JA: dict[str, str] = {"attack": "攻撃動作", "move": "移動動作", "evade": "回避動作"}


def is_response(state: AkState, unit_id: str) -> bool:
    """AK-TURN-3: an active action is one's own, in one's own phase, answering nothing.

    Anything else is a response, in either phase (the AK introduction): the opponent's
    answer to a move under way, or the acting unit's own counter-attack when it is attacked
    while it moves in its own phase (the seed's example, EX-EXC-1).
    """
    return not (state.acting == unit_id and not state.checks)


def require(unit: AkUnit, action: Action, rule_id: str = "AK-TURN-3") -> None:
    """AK-TURN-3: only acquired actions (attack and move every unit has)."""
    if not unit.sheet.has(action):
        raise RuleViolation(
            rule_id,
            f"{unit.id} has not acquired {action!r}",
            ja=f"{unit.id} は {action!r} を習得していません",
        )


def points_left(unit: AkUnit, *, response: bool, cost: int) -> int:
    """AK-TURN-3: spend `cost` active (or response) points, or refuse."""
    have = unit.response_points if response else unit.active_points
    if have < cost:
        kind = "response" if response else "active"
        raise RuleViolation(
            "AK-TURN-3",
            f"{unit.id} has {have} {kind} points; {cost} needed",
            ja=f"{unit.id} の{'対応動作' if response else '能動動作'}の値は {have} です。"
            f"{cost} 必要です",
        )
    return have - cost


def interrupt(run: Run, unit_id: str, starting: str) -> None:
    """AK-EXC-1: starting an exclusive action (attack, move, evade) loses any in progress."""
    unit = run.state.combatants[unit_id]
    lost: list[tuple[Exclusive, int]] = []
    if unit.moving is not None:
        lost.append(("move", unit.moving.remaining))
    if any(c.attacker == unit_id for c in run.state.checks):
        lost.append(("attack", 0))
    if any(c.target == unit_id and c.evading for c in run.state.checks):
        lost.append(("evade", 0))
    if not lost:
        return
    names = tuple(f"{a} ({n} left)" if a == "move" else a for a, n in lost)
    run.rule(
        Decision(
            rule_ids=("AK-EXC-1",),
            inputs={"unit": unit_id, "starting": starting},
            outcome={"interrupted": names},
            summary_en=f"{unit_id} starts {starting}: {', '.join(names)} interrupted and lost",
            summary_ja=f"{unit_id}が{starting}を開始：{'、'.join(names)}は中断（独占動作）",
        )
    )
    for action, left in lost:
        said = (
            f"{unit_id}'s {action} is interrupted" + (f"; {left} distance lost" if left else ""),
            f"{unit_id}の{_JA[action]}は中断" + (f"：残り{left}距離は失われる" if left else ""),
        )
        run.emit(ev.ActionInterrupted, said, unit=unit_id, action=action, lost_distance=left)


@DECLARED.command(cmd.Reload, legal="reload", en="Reload", ja="リロード")
def reload(run: Run, command: cmd.Reload) -> None:
    """AK-RLD-1: one loading weapon's load count drops by 1; one active point."""
    unit = run.state.unit(command.unit_id)
    require(unit, "reload")
    before = unit.loads.get(command.weapon, 0)
    if before <= 0:
        raise RuleViolation(
            "AK-RLD-1",
            f"{command.weapon!r} of {unit.id} is not loading",
            ja=f"{unit.id} の {command.weapon!r} は装填中ではありません",
        )
    left = points_left(unit, response=False, cost=1)
    said = (
        f"{unit.id} reloads {command.weapon}: load {before} → {before - 1}",
        f"{unit.id}が{command.weapon}をリロード：装填T数{before}→{before - 1}",
    )
    run.rule(
        Decision(
            rule_ids=("AK-RLD-1",),
            inputs={"unit": unit.id, "weapon": command.weapon, "load_turns": before},
            outcome={"load_turns": before - 1},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(
        ev.WeaponReloaded,
        said,
        unit=unit.id,
        weapon=command.weapon,
        load_turns=before - 1,
        points_left=left,
    )


@DECLARED.command(cmd.SwapWeapons, legal="swap", en="Swap Weapons", ja="武器持ち替え")
def swap_weapons(run: Run, command: cmd.SwapWeapons) -> None:
    """AK-SWP-1: stow or equip several weapons, one active point each (at least one).

    Stowing (換装) is a combat skill the unit must have acquired (the seed: 戦闘技能の一種)."""
    unit = run.state.unit(command.unit_id)
    require(unit, "swap", "AK-SWP-1")
    names = command.weapons
    if len(set(names)) != len(names) or any(unit.sheet.weapon(n) is None for n in names):
        raise RuleViolation(
            "AK-SWP-1",
            f"{unit.id} has no distinct weapons {list(names)}",
            ja=f"{unit.id} に別々の武器 {list(names)} はありません",
        )
    stowing = command.direction == "stow"
    wrong = [n for n in names if (n in unit.equipped) != stowing]
    if wrong:
        state_now = "stowed" if stowing else "equipped"
        raise RuleViolation(
            "AK-SWP-1",
            f"{wrong} of {unit.id} are {state_now} already",
            ja=f"{unit.id} の {wrong} はすでに{'格納' if stowing else '装備'}されています",
        )
    left = points_left(unit, response=False, cost=len(names))
    after = (
        tuple(n for n in unit.equipped if n not in names) if stowing else (*unit.equipped, *names)
    )
    said = (
        f"{unit.id} {command.direction}s {', '.join(names)} ({len(names)} points)",
        f"{unit.id}が換装：{'、'.join(names)}を"
        + ("格納" if stowing else "装備")
        + f"（能動動作{len(names)}）",
    )
    run.rule(
        Decision(
            rule_ids=("AK-SWP-1",),
            inputs={"unit": unit.id, "direction": command.direction, "weapons": names},
            outcome={"equipped": after, "points_spent": len(names)},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    moved = {"stowed": names} if stowing else {"equipped": names}
    run.emit(ev.WeaponsSwapped, said, unit=unit.id, now_equipped=after, points_left=left, **moved)


@DECLARED.command(cmd.Evade, legal="evade", en="Evade", ja="回避行動")
def evade(run: Run, command: cmd.Evade) -> None:
    """AK-EXC-1: evade the top check (a response); what evading achieves, the GM rules."""
    unit = run.state.unit(command.unit_id)
    require(unit, "evade")
    top = run.state.checks[-1]
    left = points_left(unit, response=True, cost=1)
    interrupt(run, unit.id, "evade")
    said = (
        f"{unit.id} evades {top.attacker}'s attack (the GM rules the effect)",
        f"{unit.id}が{top.attacker}の攻撃に回避動作（効果はGMが裁定）",
    )
    run.rule(
        Decision(
            rule_ids=("AK-EXC-1", "AK-ORD-1"),
            inputs={"unit": unit.id, "attacker": top.attacker},
            outcome={"evading": True},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(ev.EvadeDeclared, said, unit=unit.id, attacker=top.attacker, points_left=left)
