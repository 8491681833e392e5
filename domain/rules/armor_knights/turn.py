"""The turn around the actions: who goes first, the end of a phase, the end of a turn.

AK-TURN-1 (two sides alternate phases), AK-TURN-2/2a (first-move roll), AK-TURN-3 (points
restored), AK-RLD-2 (load counts drop at turn end), AK-ARM-1 (turn-long changes end).
"""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.armor import armor_after_turn
from domain.rules.armor_knights.commands import DECLARED
from domain.rules.armor_knights.run import Run
from domain.rules.armor_knights.state import AkUnit
from domain.rules.armor_knights.victory import check_first_move_totals
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision, Scalar


@DECLARED.command(cmd.RollFirstMove, legal="first_move", en="Roll First Move", ja="先攻を決める")
def first_move_called(run: Run, command: cmd.RollFirstMove) -> None:
    """AK-TURN-2: the GM starts the fight (the command has nothing more to say)."""
    roll_first_move(run)


def roll_first_move(run: Run) -> None:
    """AK-TURN-2: each side rolls 1D6, the higher takes the first phase; ties per AK-TURN-2a."""
    units = sorted(run.state.combatants.values(), key=lambda u: u.id)
    if len(units) != 2 or units[0].side == units[1].side:
        raise RuleViolation(
            "AK-TURN-1",
            "a duel needs exactly two units on two sides",
            ja="対決には二つの陣営にちょうど二機のユニットが必要です",
        )
    ties = run.state.options.first_move_ties
    previous = run.state.order[0] if run.state.order else None
    rolls: list[dict[str, Scalar]] = []
    while True:
        faces = {u.id: run.draw(6, f"AK-TURN-2 {u.id}") for u in units}
        rolls += [{"unit": uid, "die": face} for uid, face in faces.items()]
        a, b = (faces[u.id] for u in units)
        if a != b:
            first = units[0].id if a > b else units[1].id
            break
        if ties == "keep_previous" and previous is not None:
            first = previous
            break
    second = next(u.id for u in units if u.id != first)
    # The faces that decided the turn count towards AK-WIN-1; a tied pair that was rolled
    # again decided nothing.
    totals = {u.id: u.first_move_total + faces[u.id] for u in units}
    said = (
        f"turn {run.state.turn + 1}: {first} takes the first phase",
        f"第{run.state.turn + 1}ターン：{first}が先攻",
    )
    run.rule(
        Decision(
            rule_ids=("AK-TURN-2", "AK-TURN-2a"),
            inputs={"rolls": tuple(rolls), "previous_first": previous},
            outcome={"first": first, "totals": tuple(totals.values())},
            options={"first_move_ties": ties},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    turn = run.state.turn + 1
    run.emit(ev.FirstMoveDecided, said, turn=turn, order=(first, second), totals=totals)
    check_first_move_totals(run)


@DECLARED.command(cmd.EndPhase, legal="end_phase", en="End Phase", ja="フェイズ終了")
def end_phase(run: Run, command: cmd.EndPhase) -> None:
    """AK-TURN-3: own active points and the opponent's response points are restored."""
    unit = run.state.unit(command.unit_id)
    opponent = run.state.opponent(unit.id)
    lost = unit.moving.remaining if unit.moving is not None else 0
    said = (
        f"{unit.id}'s phase ends: its active points and {opponent.id}'s response points "
        "are restored" + (f"; the {lost} left of its move is lost" if lost else ""),
        f"{unit.id}のフェイズ終了：能動動作数値と{opponent.id}の対応動作数値が回復"
        + (f"・移動の残り{lost}は失われる" if lost else ""),
    )
    run.rule(
        Decision(
            rule_ids=("AK-TURN-1", "AK-TURN-3"),
            inputs={"unit": unit.id, "opponent": opponent.id, "move_lost": lost},
            outcome={
                "active_points": unit.sheet.active_points,
                "opponent_response_points": opponent.sheet.response_points,
            },
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    if unit.moving is not None:  # the phase is over: the rest of the move cannot be made
        run.emit(
            ev.MoveAdvanced,
            said,
            unit=unit.id,
            steps=0,
            cell=unit.cell,
            band=run.state.band,
            remaining=0,
            lost_distance=lost,
        )
    run.emit(
        ev.PhaseEnded,
        said,
        unit=unit.id,
        active_points=unit.sheet.active_points,
        opponent=opponent.id,
        opponent_response_points=opponent.sheet.response_points,
    )
    if run.state.phase_index >= len(run.state.order):
        _end_turn(run)


def phase_ends_by_itself(run: Run) -> None:
    """Issue 19: every active action costs active points (AK-TURN-3), so a unit left with
    none, no move under way and no check open has nothing to choose in its phase: it ends by
    itself, recorded as such (an opponent's answers come with a check, which is closed)."""
    while (acting := run.state.acting) is not None and not run.state.checks:
        unit = run.state.combatants[acting]
        if unit.active_points > 0 or unit.moving is not None or unit.shot_down:
            return
        run.rule(
            Decision(
                rule_ids=("AK-TURN-3",),
                inputs={"unit": unit.id, "active_points": unit.active_points},
                outcome={"advanced": "phase"},
                summary_en=f"{unit.id} has no active points left: its phase has nothing to "
                "choose, so it ends by itself",
                summary_ja=f"{unit.id}は能動動作数値が残っていない：選択の余地がないため"
                "フェイズは自動で終了",
            )
        )
        end_phase(run, cmd.EndPhase(unit_id=unit.id))


def _end_turn(run: Run) -> None:
    """AK-RLD-2 every load count −1; AK-ARM-1 turn-long armour changes end."""
    units = sorted(run.state.combatants.values(), key=lambda u: u.id)
    loads = {u.id: _loads_after(u) for u in units}
    armor = {u.id: armor_after_turn(u) for u in units}
    turn = run.state.turn
    said = (
        f"turn {turn} ends: load counts −1, this turn's armour changes end",
        f"第{turn}ターン終了：装填T数−1、そのターンのみの装甲増減が終了",
    )
    run.rule(
        Decision(
            rule_ids=("AK-RLD-2", "AK-ARM-1"),
            inputs={"turn": turn},
            outcome={
                "loads": tuple(
                    {"unit": uid, "weapon": w, "load_turns": n}
                    for uid, by_weapon in loads.items()
                    for w, n in sorted(by_weapon.items())
                ),
            },
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(ev.TurnEnded, said, turn=turn, loads=loads, armor=armor)


def _loads_after(unit: AkUnit) -> dict[str, int]:
    return {w: n - 1 for w, n in unit.loads.items() if n - 1 > 0}
