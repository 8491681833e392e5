"""Dice tables a GM keeps in a campaign (BCDice's user-defined table format): saved by the GM as
new versions, read by members and sheet sites, rolled by name in a roll log (`table` on a roll).
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, HTTPException
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.security import GM_ONLY, READERS, PrincipalDep, require
from api.writes import idempotency_key
from domain.campaign.dice_tables import MAX_NAME
from domain.dice.bcdice.user_table import MAX_TABLE_CHARS
from infra.services import DiceTablePublic, Idempotency
from infra.services import dice_table_public as public

router = APIRouter(prefix="/v1/campaigns/{campaign_id}/tables", tags=["dice tables"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
DRINKS = (
    "飲み物表\n1D6\n1:水\n2:緑茶\n3:麦茶\n4:コーラ\n5:オレンジジュース\n6:選ばれし者の知的飲料\n"
)


class TableSave(BaseModel):
    name: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        pattern=r"^[^/\s\x00-\x1f\x7f-\x9f]([^/\x00-\x1f\x7f-\x9f]*[^/\s\x00-\x1f\x7f-\x9f])?$",
        description="No '/', no control character, no space at either end.",
        examples=["飲み物表"],
    )
    text: str = Field(
        min_length=1,
        max_length=MAX_TABLE_CHARS,
        description="BCDice's user-defined table: a title line, a dice line (1D6, 2D6, 3D4, "
        "1D100, D66, D66A/D66S ascending, D66D descending), then one `n:text` row per index "
        "(`\\n` in a row is a line break).",
        examples=[DRINKS],
    )


class DiceTableList(BaseModel):
    tables: list[DiceTablePublic]


@router.post(
    "",
    response_model=DiceTablePublic,
    operation_id="saveDiceTable",
    summary="The GM saves a dice table: its next version",
)
def save_table(
    campaign_id: UUID, body: TableSave, runtime: RuntimeDep, who: PrincipalDep, key: KeyDep
) -> DiceTablePublic:
    """The GM saves a table under a name: the next version of that name (every one is kept);
    the same text as the latest version saves nothing."""
    require(who, campaign_id, GM_ONLY)
    return runtime.dice_tables.save(
        campaign_id, body.name, body.text, by=who.actor, idempotency=key
    )


@router.get(
    "",
    response_model=DiceTableList,
    operation_id="listDiceTables",
    summary="The campaign's dice tables, each at its latest version",
)
def list_tables(campaign_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> DiceTableList:
    """Every table the campaign keeps, at its latest version, by name."""
    require(who, campaign_id, READERS)
    kept = runtime.dice_tables.tables(campaign_id).tables
    return DiceTableList(tables=[public(name, kept[name], history=False) for name in sorted(kept)])


@router.get(
    "/{name}",
    response_model=DiceTablePublic,
    operation_id="getDiceTable",
    summary="One dice table with every version",
)
def get_table(
    campaign_id: UUID, name: str, runtime: RuntimeDep, who: PrincipalDep
) -> DiceTablePublic:
    """One table: its latest version and every version before it (`versions`, oldest first)."""
    require(who, campaign_id, READERS)
    versions = runtime.dice_tables.tables(campaign_id).tables.get(name)
    if not versions:
        raise HTTPException(404, f"campaign {campaign_id} keeps no table {name!r}")
    return public(name, versions, history=True)
