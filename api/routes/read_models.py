"""Read models over HTTP: fast, eventually consistent, each answer naming the log position
(per shard) it reflects — so a client can tell how fresh it is (DESIGN.md, step 6)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.resources import require_reader
from api.routes.encounters import load_for
from api.security import READERS, PrincipalDep
from infra.projector.reads import Reflected

router = APIRouter(prefix="/v1", tags=["read models"])


class ReadModelPage(BaseModel):
    rows: list[dict[str, Any]]
    reflects: dict[str, int] = Field(
        description="Shard → the last log position these rows include (eventually consistent)."
    )
    parked: dict[str, int] = Field(
        default_factory=dict,
        description="Shard → the first position of an event this read model could not take "
        "and parked (the model is degraded: a stream's rows may stop before it until an "
        "operator's fix and `senki projections retry`). Empty when healthy.",
    )


def _page(found: Reflected) -> ReadModelPage:
    return ReadModelPage(
        rows=[dict(r) for r in found.rows],
        reflects={str(k): v for k, v in found.positions.items()},
        parked={str(k): v for k, v in found.parked.items()},
    )


@router.get("/characters/{character_id}/hp-ledger", response_model=ReadModelPage)
def hp_ledger(character_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> ReadModelPage:
    """A pilot's HP ratio in and out of every scenario, and why (GD-HPS)."""
    character, _ = runtime.characters.get(character_id)
    require_reader(who, character.campaign_id)
    return _page(runtime.read_models.hp_ledger(character_id))


@router.get("/encounters/{encounter_id}/log", response_model=ReadModelPage)
def encounter_log(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    after: Annotated[int, Query(ge=0)] = 0,
) -> ReadModelPage:
    """One readable line per event, in English and Japanese, with rule IDs."""
    load_for(runtime, who, encounter_id, READERS)
    return _page(runtime.read_models.encounter_log(encounter_id, after_version=after))


@router.get("/encounters/{encounter_id}/rulings/search", response_model=ReadModelPage)
def rulings(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    rule_id: Annotated[str | None, Query(max_length=40)] = None,
    subject: Annotated[str | None, Query(max_length=100)] = None,
    disputed: bool | None = None,
) -> ReadModelPage:
    """The encounter's rulings from the read model, searchable by rule ID, combatant and
    dispute (fast; for the full evidence of each ruling see `/rulings`)."""
    load_for(runtime, who, encounter_id, READERS)
    return _page(
        runtime.read_models.rulings(
            encounter_id=encounter_id, rule_id=rule_id, subject=subject, disputed=disputed
        )
    )


@router.get("/campaigns/{campaign_id}/timeline", response_model=ReadModelPage)
def timeline(campaign_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> ReadModelPage:
    """Scenarios, encounters, joins and losses, in log order."""
    require_reader(who, campaign_id)
    return _page(runtime.read_models.timeline(campaign_id))
