"""The play at the table: encounters, their live feed, and free rolls, as one router."""

from __future__ import annotations

from fastapi import APIRouter

from api.routes import encounter_stream, encounters, rolls

router = APIRouter()
for part in (encounters, encounter_stream, rolls):
    router.include_router(part.router)
