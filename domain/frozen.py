"""Copies of frozen pydantic models with some fields changed: the one step every evolve takes.

`replaced(model, changes)` gives what `model.model_copy(update=changes)` gives (the same
`__dict__`, fields set, extra and private parts), in fewer steps: `model_copy` goes through
`copy.copy` of each part and its options for deep copies and `extra="allow"` models, which
the domain's frozen models do not use. A model that does carry extra or private values is
copied by `model_copy` itself. Like `model_copy`, nothing is validated: the changes are
values of the fields' types already (tests/unit/test_frozen.py checks the two agree).
"""

from __future__ import annotations

from collections.abc import Mapping
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
