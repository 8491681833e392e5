"""Typed dependencies for the routes."""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Request

from api.ports import SenkiPort


def get_senki(request: Request) -> SenkiPort:
    return cast(SenkiPort, request.app.state.senki)


SenkiDep = Annotated[SenkiPort, Depends(get_senki)]
