"""What the routes over a campaign's sheets share: who may read or write, and conditional GETs.

Authorization goes resource → campaign (from the aggregate's state) → role: a GM may do
everything, a player may change only their own sheets, viewers and sites only read.
"""

from __future__ import annotations

from uuid import UUID

from fastapi import HTTPException, Response

from api.security import GM_ONLY, READERS, WRITERS, require
from infra.services import Principal


def _campaign(campaign_id: UUID | None) -> UUID:
    if campaign_id is None:  # only an unregistered aggregate has none, and it is not found
        raise HTTPException(404, "the resource belongs to no campaign")
    return campaign_id


def require_reader(who: Principal, campaign_id: UUID | None) -> None:
    """Any member or site token of the resource's campaign."""
    require(who, _campaign(campaign_id), READERS)


def require_gm(who: Principal, campaign_id: UUID | None) -> None:
    """Only a GM of the resource's campaign."""
    require(who, _campaign(campaign_id), GM_ONLY)


def require_writer(who: Principal, campaign_id: UUID | None, owner: str) -> None:
    """The GM, or the player who owns the sheet; 403 for anyone else."""
    require(who, _campaign(campaign_id), WRITERS)
    if who.role == "player" and who.member_id != owner:
        raise HTTPException(
            403, f"{who.member_id!r} may change only their own sheets; this one is {owner!r}'s"
        )


def not_modified(if_none_match: str | None, tag: str) -> Response | None:
    """304 when the client's If-None-Match names the current ETag (or is `*`)."""
    if if_none_match is None:
        return None
    wanted = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    if f'"{tag}"' in wanted or "*" in wanted:
        return Response(status_code=304, headers={"ETag": f'"{tag}"'})
    return None
