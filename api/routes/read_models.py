"""Read models over HTTP: fast, eventually consistent, each answer naming the log position
(per shard) it reflects — so a client can tell how fresh it is (docs/architecture.md,
"The flow of one command", step 6)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.encounter_views import lens_for
from api.openapi import answered
from api.resources import require_reader
from api.routes.encounters import load_for
from api.security import READERS, PrincipalDep
from infra.services import Lens, Reflected

# What of a read-model row is about the event it reflects (the rest: keys and positions).
_LOG_TEXTS = ("line_en", "line_ja")
_RULING_PARTS = ("inputs", "outcome", "summary_en", "summary_ja", "subjects")

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


def _page(found: Reflected, seen: Any = dict) -> ReadModelPage:
    return ReadModelPage(
        rows=[seen(r) for r in found.rows],
        reflects={str(k): v for k, v in found.positions.items()},
        parked={str(k): v for k, v in found.parked.items()},
    )


def _line(lens: Lens, row: Any) -> dict[str, Any]:
    """A log line as the reader may see it (numbers withheld in a hidden combatant's block)."""
    line = dict(row)
    for name in _LOG_TEXTS:
        line[name] = lens.text(int(line["version"]), str(line[name]))
    return line


def _ruling(lens: Lens, row: Any) -> dict[str, Any]:
    ruling = dict(row)
    shown = lens.record(int(ruling["version"]), {k: ruling[k] for k in _RULING_PARTS})
    assert isinstance(shown, dict)
    return ruling | shown


_CAMPAIGN = "d7e4c7c8-83f0-56da-93b6-756e0e9b3de7"
_PILOT = "a9dd6997-d3fb-584b-8004-8726a35f6fb9"
# Answers of a real run (tests/api/test_openapi_clients.py), trimmed: what a site reads.
HP_LEDGER_EXAMPLE: dict[str, Any] = {
    "rows": [
        {
            "scenario_id": "b6db006d-8349-58bb-9b43-fe74ef8a6b29",
            "character_id": _PILOT,
            "campaign_id": _CAMPAIGN,
            "scenario_name": "第1話",
            "unit_id": None,
            "ratio_in_numerator": 1,
            "ratio_in_denominator": 1,
            "pilot_hp_in": 80,
            "pilot_max_hp_in": 80,
            "end_hp": 40,
            "end_max_hp": 80,
            "ratio_out_numerator": 1,
            "ratio_out_denominator": 2,
            "injury": "none",
            "why_in": "GD-HPS-2/3: entered at carried ratio 1/1: pilot 80/80, on foot",
            "why_out": "GD-HPS-1/3: last fought on foot, ended at 40/80: carries 1/2; GD-INJ: none",
            "position": 8,
        }
    ],
    "reflects": {"0": 18},
}
ENCOUNTER_LOG_EXAMPLE: dict[str, Any] = {
    "rows": [
        {
            "position": 18,
            "encounter_id": "218ae7e0-db1f-54e5-b6bc-0b7362d459fb",
            "version": 3,
            "event_type": "CombatantJoined",
            "at": "2026-12-01T19:49:33.853834Z",
            "by": "gm",
            "line_en": "ace (ace) joined on side pc, controlled by aoi",
            "line_ja": "ace（ace）が陣営「pc」で参加（操作：aoi）",
            "rule_ids": [],
        }
    ],
    "reflects": {"0": 18},
}
TIMELINE_EXAMPLE: dict[str, Any] = {
    "rows": [
        {
            "position": 4,
            "campaign_id": _CAMPAIGN,
            "at": "2026-12-01T19:49:32.172650Z",
            "by": "gm",
            "kind": "character_joined",
            "subject_id": _PILOT,
            "line_en": "蒼井ソラ (played by aoi) joined",
            "line_ja": "蒼井ソラ（PL：aoi）が参加",
        }
    ],
    "reflects": {"0": 18},
}


@router.get(
    "/characters/{character_id}/hp-ledger",
    response_model=ReadModelPage,
    operation_id="getHpLedger",
    responses=answered(HP_LEDGER_EXAMPLE),
    summary="A pilot's HP ratio across scenarios (read model)",
)
def hp_ledger(character_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> ReadModelPage:
    """A pilot's HP ratio in and out of every scenario, and why (GD-HPS)."""
    character, _ = runtime.characters.get(character_id)
    require_reader(who, character.campaign_id)
    return _page(runtime.read_models.hp_ledger(character_id))


@router.get(
    "/encounters/{encounter_id}/log",
    response_model=ReadModelPage,
    operation_id="getEncounterLog",
    responses=answered(ENCOUNTER_LOG_EXAMPLE),
    summary="An encounter's log in English and Japanese (read model)",
)
def encounter_log(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    after: Annotated[int, Query(ge=0)] = 0,
) -> ReadModelPage:
    """One readable line per event, in English and Japanese, with rule IDs."""
    load_for(runtime, who, encounter_id, READERS)
    found = runtime.read_models.encounter_log(encounter_id, after_version=after)
    lens = lens_for(runtime, who, encounter_id)  # after the read: it knows every row's block
    return _page(found, lambda row: _line(lens, row))


@router.get(
    "/encounters/{encounter_id}/rulings/search",
    response_model=ReadModelPage,
    operation_id="searchEncounterRulings",
    summary="Search an encounter's rulings (read model)",
)
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
    found = runtime.read_models.rulings(
        encounter_id=encounter_id, rule_id=rule_id, subject=subject, disputed=disputed
    )
    lens = lens_for(runtime, who, encounter_id)
    return _page(found, lambda row: _ruling(lens, row))


@router.get(
    "/campaigns/{campaign_id}/timeline",
    response_model=ReadModelPage,
    operation_id="getCampaignTimeline",
    responses=answered(TIMELINE_EXAMPLE),
    summary="A campaign's scenarios, fights and joins (read model)",
)
def timeline(campaign_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> ReadModelPage:
    """Scenarios, encounters, joins and losses, in log order."""
    require_reader(who, campaign_id)
    return _page(runtime.read_models.timeline(campaign_id))
