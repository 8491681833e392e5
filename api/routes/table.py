"""The play at the table: encounters, their live feed, free rolls, and what the table page
needs beside them (who rides which Assault Core, procedure stops, who the caller is)."""

from __future__ import annotations

from fastapi import APIRouter

from api.routes import (
    encounter_stream,
    encounters,
    roll_log_list,
    rolls,
    table_board,
    table_play,
)
from api.routes.campaigns import me_router

# Included one by one on the application, not through a router of their own: FastAPI matches
# a request against each level of included routers twice (to choose, then to handle), so a
# level less is work less on every request; the encounters' routes come first, as the busiest.
routers: tuple[APIRouter, ...] = (
    encounters.router,
    encounter_stream.router,
    rolls.router,
    roll_log_list.router,
    table_board.router,
    table_play.router,
    me_router,
)
