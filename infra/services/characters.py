"""Application service for characters (pilot sheets): load → decide → save, one command each.

The actor is the member id from the caller's token; the campaign is loaded by id for the
permission checks the deciders make (a player registers only their own pilot).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from uuid import UUID

from domain.campaign import campaign, character
from domain.campaign import character_commands as ch
from domain.campaign.character import Character
from domain.campaign.model import Item, Skill
from domain.events import DomainEvent
from infra.services import answers
from infra.services.answers import CharacterPublic
from infra.services.executor import NO_GUARD, Executor, Idempotency, Write, new_stream_id


class CharacterService:
    """Character commands and reads; one per process."""

    def __init__(self, executor: Executor, clock: Callable[[], datetime]) -> None:
        self.executor = executor
        self.clock = clock

    def register(
        self,
        campaign_id: UUID,
        by: str,
        command: ch.RegisterCharacter,
        idempotency: Idempotency | None = None,
    ) -> CharacterPublic:
        """Register a pilot in the campaign at full HP (a player only their own)."""
        owner = self.executor.load(campaign.KIND, campaign_id).state
        character_id = new_stream_id(idempotency)
        events = ch.register_character(
            character.KIND.initial(character_id), owner, command, at=self.clock(), by=by
        )
        return self.executor.create(
            character.KIND,
            character_id,
            events,
            describe,
            restore=CharacterPublic.model_validate,
            idempotency=idempotency,
            campaign_id=campaign_id,
        )

    def get(self, character_id: UUID) -> tuple[Character, int]:
        """The character's sheet and version."""
        loaded = self.executor.load(character.KIND, character_id)
        return loaded.state, loaded.version

    def advance(
        self, character_id: UUID, by: str, command: ch.AdvanceCharacter, write: Write = NO_GUARD
    ) -> CharacterPublic:
        """A new level and base stats (GD-STAT-1); max HP recomputed (GD-COST-1/2)."""
        return self._run(
            character_id, lambda s: ch.advance(s, command, at=self.clock(), by=by), write
        )

    def equip(
        self, character_id: UUID, by: str, item: Item, write: Write = NO_GUARD
    ) -> CharacterPublic:
        """Equip an item (GD-COST-1/2)."""
        command = ch.EquipItem(item=item)
        return self._run(
            character_id, lambda s: ch.equip(s, command, at=self.clock(), by=by), write
        )

    def unequip(
        self, character_id: UUID, by: str, item_name: str, write: Write = NO_GUARD
    ) -> CharacterPublic:
        """Take an item off (GD-COST-2: current HP does not rise)."""
        command = ch.UnequipItem(item_name=item_name)
        return self._run(
            character_id, lambda s: ch.unequip(s, command, at=self.clock(), by=by), write
        )

    def learn(
        self, character_id: UUID, by: str, skill: Skill, write: Write = NO_GUARD
    ) -> CharacterPublic:
        """Learn a skill (its cost counts only while used, GD-COST-3)."""
        command = ch.LearnSkill(skill=skill)
        return self._run(
            character_id, lambda s: ch.learn_skill(s, command, at=self.clock(), by=by), write
        )

    def forget(
        self, character_id: UUID, by: str, skill_name: str, write: Write = NO_GUARD
    ) -> CharacterPublic:
        """Forget a learned skill."""
        command = ch.ForgetSkill(skill_name=skill_name)
        return self._run(
            character_id, lambda s: ch.forget_skill(s, command, at=self.clock(), by=by), write
        )

    def _run(
        self,
        character_id: UUID,
        decide: Callable[[Character], list[DomainEvent]],
        write: Write,
    ) -> CharacterPublic:
        return self.executor.execute(
            character.KIND,
            character_id,
            decide,
            describe,
            restore=CharacterPublic.model_validate,
            expected_version=write.expected_version,
            idempotency=write.idempotency,
        )


# The answers (infra/services/answers.py): a character as stored, and as a sheet site shows it.
describe = answers.character
sheet = answers.character_sheet
