"""Moves: normal (AK-MOV-1), fixed (AK-MOV-2) and emergency (AK-MOV-3) on the field (AK-DST-1).

A move is declared with its steps and then carried on; the opponent may answer between
steps, and an exclusive action started by the mover loses what is left (AK-EXC-1). A move
made while any check is open is an emergency move, resolved at once and tracked (AK-TRK-1).
"""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.actions import interrupt, is_response, points_left, require
from domain.rules.armor_knights.commands import DECLARED
from domain.rules.armor_knights.run import Run
from domain.rules.armor_knights.sheet import BANDS, Band, Cell
from domain.rules.armor_knights.state import AkState, AkUnit, MoveInProgress
from domain.rules.armor_knights.tracking import track
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision

_CLOSE: tuple[Band, ...] = ("near", "mid")  # AK-MOV-2: △F may not leave a map at these


@DECLARED.command(cmd.StartMove, legal=("act", "response_move"), en="Start Move", ja="移動開始")
def start_move(run: Run, command: cmd.StartMove) -> None:
    """Declare a move: check kind, scope and distance; spend the point; interrupt (AK-EXC-1)."""
    state = run.state
    unit = state.unit(command.unit_id)
    response = is_response(state, unit.id)
    emergency = bool(state.checks)  # AK-MOV-3: any move during a check
    axis = "M" if command.m_steps else "F"
    if bool(command.m_steps) == bool(command.f_steps):
        raise RuleViolation(
            "AK-DST-1",
            "a move is either M steps or F steps, not both or none",
            ja="移動はM移動かF移動のどちらか一方です（両方も、どちらもなしも不可）",
        )
    if unit.cannot_move:
        raise RuleViolation(
            "AK-MOV-2",
            f"{unit.id} cannot move this turn",
            ja=f"{unit.id} はこのターン移動できません",
        )
    distance = len(command.m_steps) + len(command.f_steps)
    kind = "fixed" if command.fixed is not None else "normal"
    rules = (
        _fixed(unit, command, axis=axis, distance=distance, state=state, response=response)
        if command.fixed
        else None
    )
    if rules is None:
        rules = _normal(unit, axis, distance, response)
    plan = MoveInProgress(
        axis=axis, m_steps=command.m_steps, f_steps=command.f_steps, entry_band=command.entry_band
    )
    _walk(state, unit, plan, plan.remaining)  # refuses an impossible path before anything
    left = points_left(unit, response=response, cost=1)
    interrupt(run, unit.id, "move")
    said = (
        f"{unit.id} starts a {kind} {axis} move of {distance}"
        + (" (emergency)" if emergency else ""),
        f"{unit.id}が{axis}距離{distance}の"
        + ("固定値移動" if kind == "fixed" else "通常移動")
        + ("（緊急移動）" if emergency else ""),
    )
    run.rule(
        Decision(
            rule_ids=(*rules, *(("AK-MOV-3",) if emergency else ())),
            inputs={"unit": unit.id, "kind": kind, "axis": axis, "distance": distance},
            outcome={"emergency": emergency, "response": response, "points_left": left},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(
        ev.MoveStarted,
        said,
        unit=unit.id,
        kind=kind,
        emergency=emergency,
        axis=axis,
        m_steps=command.m_steps,
        f_steps=command.f_steps,
        entry_band=command.entry_band,
        response=response,
        points_left=left,
    )
    if emergency or response:
        # A response answers now: it resolves before the action it answers (AK-ORD-1).
        advance(run, unit.id, distance)


def _normal(unit: AkUnit, axis: str, distance: int, response: bool) -> tuple[str, ...]:
    require(unit, "response_move" if response else "move")
    value = (unit.sheet.m_move if axis == "M" else unit.sheet.f_move) - unit.move_penalty
    if distance > value:
        raise RuleViolation(
            "AK-MOV-1",
            f"{unit.id} may move {axis} {value}; {distance} asked",
            ja=f"{unit.id} の{axis}移動値は {value} です。{distance} が求められました",
        )
    return ("AK-MOV-1", "AK-DST-1")


def _fixed(
    unit: AkUnit,
    command: cmd.StartMove,
    *,
    axis: str,
    distance: int,
    state: AkState,
    response: bool,
) -> tuple[str, ...]:
    """AK-MOV-2: exactly N, whatever the move values and penalties; △F / ▲M scope."""
    spec = unit.sheet.fixed_move(command.fixed or "")
    if spec is None:
        raise RuleViolation(
            "AK-TURN-3",
            f"{unit.id} has no fixed move {command.fixed!r}",
            ja=f"{unit.id} に固定値移動 {command.fixed!r} はありません",
        )
    if (spec.timing == "response") != response:
        raise RuleViolation(
            "AK-TURN-3",
            f"{spec.name} is a {spec.timing} action",
            ja=f"{spec.name} は {spec.timing} の動作です",
        )
    if distance != spec.distance:
        raise RuleViolation(
            "AK-MOV-2",
            f"{spec.name} moves exactly {spec.distance}",
            ja=f"{spec.name} はちょうど {spec.distance} 移動します",
        )
    if spec.scope == "map" and axis != "M":
        raise RuleViolation(
            "AK-MOV-2",
            f"{spec.name} (▲M) moves inside the map only",
            ja=f"{spec.name}（▲M）はマップ内でのみ移動します",
        )
    if spec.scope == "field" and axis != "F":
        raise RuleViolation(
            "AK-MOV-2",
            f"{spec.name} (△F) moves on the field only",
            ja=f"{spec.name}（△F）はフィールド上でのみ移動します",
        )
    if spec.scope == "field" and state.engaged() and state.band in _CLOSE:
        raise RuleViolation(
            "AK-MOV-2",
            f"{spec.name} (△F) cannot leave a map at {state.band}",
            ja=f"{spec.name}（△F）は {state.band} の距離からマップを離れられません",
        )
    return ("AK-MOV-2", "AK-DST-1")


@DECLARED.command(cmd.AdvanceMove, legal="moving", en="Advance Move", ja="移動を進める")
def advance_move(run: Run, command: cmd.AdvanceMove) -> None:
    """AK-MOV-1: carry the move in progress on by some steps."""
    unit = run.state.unit(command.unit_id)
    if unit.moving is None:
        raise RuleViolation(
            "AK-EXC-1", f"{unit.id} has no move in progress", ja=f"{unit.id} は移動中ではありません"
        )
    if command.steps > unit.moving.remaining:
        raise RuleViolation(
            "AK-MOV-1",
            f"only {unit.moving.remaining} steps are left",
            ja=f"残りの移動は {unit.moving.remaining} だけです",
        )
    advance(run, unit.id, command.steps)


def advance(run: Run, unit_id: str, steps: int) -> None:
    """Take `steps` steps of the move in progress; entering a MAP ends it (AK-DST-1)."""
    unit = run.state.combatants[unit_id]
    plan = unit.moving
    if plan is None:
        raise RuleViolation(
            "AK-EXC-1", f"{unit_id} has no move in progress", ja=f"{unit_id} は移動中ではありません"
        )
    cell, band, taken = _walk(run.state, unit, plan, steps)
    lost = plan.remaining - taken if taken < steps else 0
    remaining = plan.remaining - taken - lost
    said = (
        f"{unit_id} moves {taken} to ({cell.x},{cell.y})"
        + (f", band {band}" if band else "")
        + (f"; entering a map ends the move, {lost} lost" if lost else ""),
        f"{unit_id}が{taken}距離移動：({cell.x},{cell.y})"
        + (f"・{band}" if band else "")
        + (f"・MAP進入で移動終了、残り{lost}は失われる" if lost else ""),
    )
    run.rule(
        Decision(
            rule_ids=("AK-DST-1",),
            inputs={"unit": unit_id, "steps": steps},
            outcome={"x": cell.x, "y": cell.y, "band": band, "remaining": remaining, "lost": lost},
            summary_en=said[0],
            summary_ja=said[1],
        )
    )
    run.emit(
        ev.MoveAdvanced,
        said,
        unit=unit_id,
        steps=taken,
        cell=cell,
        band=band,
        remaining=remaining,
        lost_distance=lost,
    )
    if run.state.checks:
        m = taken if plan.axis == "M" else 0
        track(run, unit_id, m, taken - m)


def _walk(
    state: AkState, unit: AkUnit, plan: MoveInProgress, steps: int
) -> tuple[Cell, Band | None, int]:
    """Where `steps` steps lead: cell, band and steps taken (stops on entering a MAP)."""
    cell, band = unit.cell, state.band
    other = state.opponent(unit.id).cell
    for index, m_step in enumerate(plan.m_steps[:steps]):
        if cell != other or band is None:
            raise RuleViolation(
                "AK-DST-1",
                "an M move needs the opponent in the same map",
                ja="M移動には同じマップに相手がいることが必要です",
            )
        moved = BANDS.index(band) + (-1 if m_step == "closer" else 1)
        if not 0 <= moved < len(BANDS):
            raise RuleViolation(
                "AK-DST-1",
                f"M step {index + 1}: no band beyond {band}",
                ja=f"M移動の {index + 1} 歩目：{band} より先の距離はありません",
            )
        band = BANDS[moved]
    for index, f_step in enumerate(plan.f_steps[:steps]):
        if cell.f_distance(f_step) != 1 or not state.battle_map.holds(f_step):
            raise RuleViolation(
                "AK-DST-1",
                f"F step {index + 1} is not an adjacent field cell",
                ja=f"F移動の {index + 1} 歩目は隣のフィールドのマスではありません",
            )
        cell, band = f_step, None
        if cell == other:
            if plan.entry_band is None:
                raise RuleViolation(
                    "AK-DST-1",
                    "entering the opponent's map needs entry_band",
                    ja="相手のマップに入るには entry_band（入る距離）が必要です",
                )
            band = plan.entry_band
        if state.battle_map.is_map(cell):
            return cell, band, index + 1
    return cell, band, steps
