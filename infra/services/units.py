"""Application service for units (Assault Cores and carriers): load → decide → save.

A unit's numbers depend on its pilot (GD-STAT-2: +piloting %) and on the campaign's options,
so every command loads the pilot's sheet and the campaign beside the unit.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from uuid import UUID

from domain.aggregate import NotFound
from domain.campaign import campaign, character, unit
from domain.campaign import unit_commands as uc
from domain.campaign.character import Character
from domain.campaign.derived import unit_max_hp, unit_stats
from domain.campaign.model import Item
from domain.campaign.unit import Unit
from domain.events import DomainEvent
from domain.rules.glorious_drive.hp_share import entering_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions
from infra.services import answers
from infra.services.answers import UnitPublic, UnitSheet
from infra.services.executor import NO_GUARD, Executor, Idempotency, Write, new_stream_id


class UnitService:
    """Unit commands and reads; one per process."""

    def __init__(self, executor: Executor, clock: Callable[[], datetime]) -> None:
        self.executor = executor
        self.clock = clock

    def register(
        self,
        campaign_id: UUID,
        by: str,
        pilot_id: UUID,
        command: uc.RegisterUnit,
        idempotency: Idempotency | None = None,
    ) -> UnitPublic:
        """Register a unit for a pilot of the campaign, at its full max HP under that pilot."""
        pilot = self.pilot(pilot_id)
        if pilot.campaign_id != campaign_id:
            raise NotFound(f"no character {pilot_id} in campaign {campaign_id}")
        unit_id = new_stream_id(idempotency)
        events = uc.register_unit(
            unit.KIND.initial(unit_id),
            pilot,
            command,
            self._options(campaign_id),
            at=self.clock(),
            by=by,
        )
        return self.executor.create(
            unit.KIND,
            unit_id,
            events,
            describe,
            restore=UnitPublic.model_validate,
            idempotency=idempotency,
            campaign_id=campaign_id,
        )

    def get(self, unit_id: UUID) -> tuple[Unit, int]:
        """The unit's sheet and version."""
        loaded = self.executor.load(unit.KIND, unit_id)
        return loaded.state, loaded.version

    def pilot(self, character_id: UUID | None) -> Character:
        """The pilot's sheet (a unit's owner is its pilot's owner)."""
        if character_id is None:
            raise NotFound("the unit names no pilot")
        return self.executor.load(character.KIND, character_id).state

    def equip(self, unit_id: UUID, by: str, item: Item, write: Write = NO_GUARD) -> UnitPublic:
        """Equip an item; max HP under the pilot's boost (GD-STAT-2, GD-COST-1/2)."""
        command = uc.EquipUnitItem(item=item)
        return self._run(
            unit_id,
            lambda s, pilot, options: uc.equip_unit(
                s, pilot, command, options, at=self.clock(), by=by
            ),
            write,
        )

    def unequip(
        self, unit_id: UUID, by: str, item_name: str, write: Write = NO_GUARD
    ) -> UnitPublic:
        """Take an item off the unit (GD-COST-2)."""
        command = uc.UnequipUnitItem(item_name=item_name)
        return self._run(
            unit_id,
            lambda s, pilot, options: uc.unequip_unit(
                s, pilot, command, options, at=self.clock(), by=by
            ),
            write,
        )

    def sheet(self, unit_id: UUID) -> tuple[UnitSheet, str]:
        """The unit's sheet under its pilot now, and an ETag of every version it depends on."""
        loaded = self.executor.load(unit.KIND, unit_id)
        state = loaded.state
        pilot = self.executor.load(character.KIND, _pilot_id(state))
        owner = self.executor.load(campaign.KIND, _campaign_id(state))
        options = owner.state.gd_options()
        tag = f"{loaded.version}.{pilot.version}.{owner.version}"
        return unit_sheet(state, loaded.version, pilot.state, options), tag

    def _options(self, campaign_id: UUID | None) -> GloriousDriveOptions:
        if campaign_id is None:
            raise NotFound("the unit names no campaign")
        return self.executor.load(campaign.KIND, campaign_id).state.gd_options()

    def _run(
        self,
        unit_id: UUID,
        decide: Callable[[Unit, Character, GloriousDriveOptions], list[DomainEvent]],
        write: Write,
    ) -> UnitPublic:
        def with_pilot(state: Unit) -> list[DomainEvent]:
            return decide(state, self.pilot(state.pilot_id), self._options(state.campaign_id))

        return self.executor.execute(
            unit.KIND,
            unit_id,
            with_pilot,
            describe,
            restore=UnitPublic.model_validate,
            expected_version=write.expected_version,
            idempotency=write.idempotency,
        )


def _pilot_id(state: Unit) -> UUID:
    if state.pilot_id is None:
        raise NotFound(f"unit {state.id} names no pilot")
    return state.pilot_id


def _campaign_id(state: Unit) -> UUID:
    if state.campaign_id is None:
        raise NotFound(f"unit {state.id} names no campaign")
    return state.campaign_id


describe = answers.unit  # a unit as stored (infra/services/answers.py)


def unit_sheet(
    state: Unit, version: int, pilot: Character, options: GloriousDriveOptions
) -> UnitSheet:
    """GD-STAT-2 and GD-HPS-2: stats under the pilot's piloting, HP at the pilot's ratio."""
    piloting = uc.piloting_of(pilot)
    max_hp = unit_max_hp(state.base_stats, state.items, piloting, options)
    return UnitSheet(
        **answers.unit_fields(state, version)
        | {
            "stats": dict(unit_stats(state.base_stats, state.items, piloting, options)),
            "max_hp": max_hp,
            "current_hp": entering_hp(max_hp, pilot.carried_ratio.value, options),
            "carried_ratio": answers.ratio(pilot.carried_ratio),
            "piloting_boost": piloting,
            "pilot_name": pilot.name,
            "owner": pilot.owner,
        }
    )
