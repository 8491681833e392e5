"""Time travel: an encounter as it stood at a version, or when a turn, phase or step began."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from domain.encounter.aggregate import KIND, procedure
from domain.encounter.state import Encounter
from domain.errors import WrongState
from domain.events import DomainEvent


def at_point(
    stream_id: UUID,
    events: Sequence[DomainEvent],
    turn: int,
    phase: str | None = None,
    step: str | None = None,
) -> Encounter:
    """The state at the moment the procedure first reached turn (and phase, and step)."""
    state = KIND.initial(stream_id)
    for event in events:
        state = KIND.evolve(state, event)
        if not state.opened or state.rules is None:
            continue
        point = procedure(state)
        if (point.turn, phase or point.phase, step or point.step) == (
            turn,
            point.phase,
            point.step,
        ):
            return state
    wanted = " ".join(str(p) for p in (f"turn {turn}", phase, step) if p)
    raise WrongState(
        f"the encounter never reached {wanted}", ja=f"戦闘は {wanted} に達していません"
    )
