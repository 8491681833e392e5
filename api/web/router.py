"""The table page (issue 9): one HTML page and its static modules, served by the API itself.

No build step and no CDN: the files under `static/` are sent as they are. The page holds the
caller's token in sessionStorage only and talks to the same `/v1` API as any other client.
"""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

STATIC = Path(__file__).parent / "static"
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Everything the page loads comes from this origin; no inline script, no framing.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


def _page(name: str = "index.html") -> FileResponse:
    page = STATIC / name
    if not page.is_file():  # a wheel built without the package data
        raise HTTPException(404, "the table page is not installed with this Senki")
    return FileResponse(page, media_type=MEDIA_TYPES[".html"], headers=HEADERS)


@router.get("/table")
def table() -> FileResponse:
    """The page: it asks for a token and an encounter id."""
    return _page()


@router.get("/table/encounters/{encounter_id}")
def table_encounter(encounter_id: UUID) -> FileResponse:
    """The page, opened on one encounter (the script reads the id from the address)."""
    return _page()


@router.get("/table/characters/{character_id}")
def character_sheet_page(character_id: UUID) -> FileResponse:
    """A pilot's sheet page: stats, HP, injuries, equipment, HP ratio across scenarios."""
    return _page("sheet.html")


@router.get("/table/units/{unit_id}")
def unit_sheet_page(unit_id: UUID) -> FileResponse:
    """An Assault Core's sheet page, under its pilot (the same page as a pilot's)."""
    return _page("sheet.html")


@router.get("/table/rolls/{log_id}")
def roll_log_page(log_id: UUID) -> FileResponse:
    """A roll log's page: every roll in BCDice's text, a form to roll, the GM's reveal."""
    return _page("rolls.html")


@router.get("/table/campaigns/{campaign_id}/rolls")
def new_roll_log_page(campaign_id: UUID) -> FileResponse:
    """The roll-log page of a campaign, before a log is open: open one, or go to one by id."""
    return _page("rolls.html")


@router.get("/table/static/{name}")
def static(name: str) -> FileResponse:
    """One of the page's own files; nothing outside `static/` is reachable."""
    path = STATIC / name
    media_type = MEDIA_TYPES.get(path.suffix)
    if "/" in name or name.startswith(".") or media_type is None or not path.is_file():
        raise HTTPException(404, f"no static file {name!r}")
    return FileResponse(path, media_type=media_type, headers=HEADERS)
