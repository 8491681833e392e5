"""Every read model of this build, by name: the projector runs them all."""

from __future__ import annotations

from projections.base import Projection
from projections.campaign_timeline import CampaignTimelineV2
from projections.character_sheets import CharacterSheetsV1
from projections.encounter_log import EncounterLogV4
from projections.hp_ledger import HpLedgerV1
from projections.rulings import RulingsV2

PROJECTIONS: tuple[Projection, ...] = (
    CharacterSheetsV1(),
    HpLedgerV1(),
    EncounterLogV4(),
    RulingsV2(),
    CampaignTimelineV2(),
)


def by_name(name: str) -> Projection:
    """The projection called `name`, or a LookupError listing the known ones."""
    for projection in PROJECTIONS:
        if projection.name == name:
            return projection
    raise LookupError(f"no projection {name!r}; known: {[p.name for p in PROJECTIONS]}")
