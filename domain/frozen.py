"""Copies of frozen pydantic models with some fields changed, and answers kept per state.

`replaced(model, changes)` is the one step every evolve takes: pydantic's `model_copy`, which
validates nothing (the changes are values of the fields' types already).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def replaced(model: M, changes: Mapping[str, Any]) -> M:
    """`model` with `changes`, unvalidated (`model_copy(update=changes)`)."""
    return model.model_copy(update=changes)


S = TypeVar("S")
T = TypeVar("T")


def last_answer(function: Callable[[S], list[T]]) -> Callable[[S], list[T]]:
    """`function` of a frozen state, kept for the state it was last asked about (per thread).

    Each command asks which commands are legal twice of the same state: the answer to the
    previous command (what the fight awaits next) and the check of this one, decided on the
    state that answer was about. The state is frozen and kept here, so `is` names it, and the
    answer cannot change; each caller gets its own list."""
    local = threading.local()

    @functools.wraps(function)
    def answer(state: S) -> list[T]:
        last: tuple[S, tuple[T, ...]] | None = getattr(local, "last", None)
        if last is not None and last[0] is state:
            return list(last[1])
        found = function(state)
        local.last = (state, tuple(found))
        return found

    return answer
