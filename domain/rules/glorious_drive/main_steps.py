"""The steps of a main action phase before and besides attacking: GD-MAIN-3/4/5, GD-RLD."""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.movement import check_path
from domain.rules.glorious_drive.occupancy import occupied_squares
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.reload import after_reload
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.state import GdCombatant, GdState
from domain.rules.outcome import Decision


@DECLARED.command(cmd.SwapWeapons, legal="weapon_swap", en="Swap Weapons", ja="武器持ち替え")
def swap_weapons(run: Run, command: cmd.SwapWeapons) -> None:
    """GD-MAIN-3: main and sub weapon change places."""
    combatant = run.state.combatant(command.combatant_id)
    if combatant.main_weapon is None and combatant.sub_weapon is None:
        raise RuleViolation(
            "GD-MAIN-3",
            f"{combatant.id} holds neither a main nor a sub weapon",
            ja=f"{combatant.id} はメイン武器もサブ武器も持っていません",
        )
    run.emit(
        ev.WeaponsSwapped,
        combatant=combatant.id,
        main_weapon=combatant.sub_weapon,
        sub_weapon=combatant.main_weapon,
    )


@DECLARED.command(cmd.Move, legal="move", en="Move", ja="移動")
def move(run: Run, command: cmd.Move) -> None:
    """GD-MAIN-4 A / GD-RNG-4/5 / GD-SQ-3: a path within `move`, around occupied squares."""
    mover = run.state.combatant(command.combatant_id)
    path = check_path(
        (mover.position, *command.path),
        "assault_core" if mover.sheet.is_assault_core else "licenser",
        mover.sheet.stats.move,
        run.state.battle_map.terrain_at,
        occupied_by_others(run.state, mover.id),
        underwater=run.state.battle_map.underwater,
    )
    run.rule(path.decision())
    run.emit(ev.CombatantMoved, combatant=mover.id, path=command.path, cost=path.total)


def occupied_by_others(state: GdState, *excluded: str) -> frozenset[Position]:
    """GD-SQ-2: the squares blocked by every body but the `excluded` combatants'."""
    squares: set[Position] = set()
    for other in state.combatants.values():
        if other.id not in excluded:
            squares |= _body(other, state)
    return frozenset(squares)


def _body(combatant: GdCombatant, state: GdState) -> frozenset[Position]:
    sheet = combatant.sheet
    return occupied_squares(combatant.position, sheet.size, sheet.body, state.options)


@DECLARED.command(cmd.Reload, legal="action", en="Reload", ja="リロード")
def reload(run: Run, command: cmd.Reload) -> None:
    """GD-MAIN-5 E / GD-RLD-2/3: one reload action; the t-th refills to n."""
    combatant = run.state.combatant(command.combatant_id)
    name = command.weapon or combatant.main_weapon
    if name not in (combatant.main_weapon, combatant.sub_weapon) or name is None:
        raise RuleViolation(
            "GD-RLD-2",
            f"{combatant.id} holds no weapon {name!r} to reload",
            ja=f"{combatant.id} はリロードする武器 {name!r} を持っていません",
        )
    ammo = combatant.ammo.get(name)
    if ammo is None:
        raise RuleViolation(
            "GD-RLD-4",
            f"{name} has no reload interval; it never runs dry",
            ja=f"{name} にはリロード間隔がありません。弾切れになりません",
        )
    after = after_reload(ammo)
    run.rule(
        Decision(
            rule_ids=("GD-RLD-2", "GD-RLD-3") if ammo.reload_time != 1 else ("GD-RLD-2",),
            inputs={
                "weapon": name,
                "interval": ammo.interval,
                "reload_time": ammo.reload_time,
                "shots_left": ammo.shots_left,
                "reloads_done": ammo.reloads_done,
            },
            outcome={"shots_left": after.shots_left, "reloads_done": after.reloads_done},
            summary_en=f"{combatant.id} reloads {name}: {after.reloads_done or ammo.reload_time}"
            f"/{ammo.reload_time} actions, {after.shots_left}/{ammo.interval} shots",
            summary_ja=f"{combatant.id}が{name}をリロード：残弾{after.shots_left}/{ammo.interval}",
        )
    )
    run.emit(
        ev.WeaponReloaded,
        combatant=combatant.id,
        weapon=name,
        shots_left=after.shots_left,
        reloads_done=after.reloads_done,
    )
    run.end_main_action(combatant.id)


@DECLARED.command(
    cmd.ForgoAction, legal=("action", "action_spent"), en="Forgo Action", ja="アクションを放棄"
)
def forgo_action(run: Run, command: cmd.ForgoAction) -> None:
    """GD-MAIN-5 F (or no action): the step ends; what was done is the GM's note."""
    run.rule(
        Decision(
            rule_ids=("GD-MAIN-5",),
            inputs={"note": command.note},
            outcome={"attack": False},
            summary_en=f"{command.combatant_id} takes no attack: {command.note or 'no action'}",
            summary_ja=f"{command.combatant_id}は攻撃しない：{command.note or '行動なし'}",
        )
    )
    run.end_main_action(command.combatant_id)
