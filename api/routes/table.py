"""The play at the table: encounters, their live feed, free rolls, and what the table page
needs beside them (who rides which Assault Core, procedure stops, who the caller is)."""

from __future__ import annotations

from fastapi import APIRouter

from api.routes import encounter_stream, encounters, rolls, table_board, table_play
from api.routes.campaigns import me_router

router = APIRouter()
for part in (encounters, encounter_stream, rolls, table_board, table_play):
    router.include_router(part.router)
router.include_router(me_router)
