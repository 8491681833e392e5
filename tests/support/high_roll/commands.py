"""High Roll's one command: the HTTP API serves it as `HrRollBody`, example included."""

from __future__ import annotations

from pydantic import Field

from domain.rules.ruleset import Command, example


class Roll(Command):
    """HR-1: roll 1D6 for this combatant, once each; the highest roll wins."""

    model_config = example(combatant_id="ace")
    command_type = "Roll"
    combatant_id: str = Field(min_length=1, description="The combatant who rolls.")

    @property
    def combatant(self) -> str | None:
        return self.combatant_id


COMMANDS: tuple[type[Command], ...] = (Roll,)
