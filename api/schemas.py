"""Shared response shapes."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Accepted(BaseModel):
    """What a command changed: the new version (also the ETag) of the resource it acted on."""

    id: str
    version: int = Field(description="The resource's version now; send it as If-Match next.")
