"""GD-CHK-3: a carrier (キャリアー) is a special Assault Core and shares HP ratio like one (GD-HPS).

EX-HPS-1's numbers with the unit registered as a carrier instead of an Assault Core: pilot Aoi
(max HP 80, piloting 150) in a unit of base HP 160 (× 2.5 = 400, GD-STAT-2).
"""

from __future__ import annotations

from fractions import Fraction
from uuid import UUID

import pytest

from domain.campaign import scenario_commands as sc
from domain.campaign import unit_commands as uc
from tests.unit.campaign.table import AT, GM, Table, stats


def pilot_in(kind: str) -> tuple[Table, UUID, UUID, UUID]:
    """Given: a campaign, Aoi, and her unit of `kind`, both at full HP."""
    table = Table()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats(piloting=150))
    unit = table.fresh_id()
    command = uc.RegisterUnit.model_validate(
        {"name": "Hakobune", "kind": kind, "base_stats": stats(hp=160, capacity=40)}
    )
    registered = uc.register_unit(
        table.unit(unit), table.character(aoi), command, table.options(campaign), at=AT, by=GM
    )
    table.append(unit, registered)
    return table, campaign, aoi, unit


@pytest.mark.parametrize("kind", ["carrier", "assault_core"])
def test_GD_CHK_3_a_carrier_shares_its_hp_ratio_with_its_pilot_like_an_assault_core(
    kind: str,
) -> None:
    table, campaign, aoi, unit = pilot_in(kind)
    assert table.unit(unit).max_hp == 400
    first = table.start_scenario(campaign, {aoi: unit})
    end = sc.ParticipantEnd(character_id=aoi, end_hp=100)
    table.close_scenario(campaign, first, end)
    pilot = table.character(aoi)
    assert (pilot.current_hp, pilot.carried_ratio.value) == (20, Fraction(1, 4))  # GD-HPS-1
    again = table.scenario(table.start_scenario(campaign, {aoi: unit})).entry(aoi)
    assert again is not None
    assert (again.unit_hp, again.unit_max_hp) == (100, 400)  # GD-HPS-2
