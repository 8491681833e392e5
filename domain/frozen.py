"""Copies of frozen pydantic models with some fields changed: the one step every evolve takes.

`replaced(model, changes)` gives what `model.model_copy(update=changes)` gives (the same
`__dict__`, fields set, extra and private parts), in fewer steps: `model_copy` goes through
`copy.copy` of each part and its options for deep copies and `extra="allow"` models, which
the domain's frozen models do not use. A model that does carry extra or private values is
copied by `model_copy` itself. Like `model_copy`, nothing is validated: the changes are
values of the fields' types already (tests/unit/test_frozen.py checks the two agree).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


def replaced(model: M, changes: Mapping[str, Any]) -> M:
    """`model.model_copy(update=changes)`, made directly."""
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None:
        return model.model_copy(update=changes)
    cls = type(model)
    copy = cls.__new__(cls)
    _set(copy, "__dict__", {**model.__dict__, **changes})
    _set(copy, "__pydantic_extra__", None)
    _set(copy, "__pydantic_fields_set__", model.__pydantic_fields_set__ | changes.keys())
    _set(copy, "__pydantic_private__", None)
    return copy


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
