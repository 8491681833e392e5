"""Typed dependencies for the routes.

They are `async def` on purpose: they only read app state, and FastAPI runs a plain `def`
dependency on its thread pool — one thread hop per dependency per request.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Request

from infra.services import Runtime, SenkiPort


async def get_senki(request: Request) -> SenkiPort:
    return cast(SenkiPort, request.app.state.senki)


SenkiDep = Annotated[SenkiPort, Depends(get_senki)]


async def get_runtime(request: Request) -> Runtime:
    """The running service with its application services (routes that act on aggregates)."""
    return cast(Runtime, request.app.state.senki)


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
