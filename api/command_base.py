"""What every typed command body shares: the dice fields, and one OpenAPI example each."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

DICE_FIELDS = {"command", "client_seed", "hand_faces"}


def example(**fields: Any) -> ConfigDict:
    return ConfigDict(extra="forbid", json_schema_extra={"examples": [fields]})


class CommandBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    client_seed: str | None = Field(
        default=None, max_length=200, description="Mixed into every server die of this command."
    )
    hand_faces: list[Annotated[int, Field(ge=1, le=1000)]] | None = Field(
        default=None,
        max_length=100,
        description="GM only: faces rolled at the physical table, in the order they are needed.",
    )

    def payload(self) -> dict[str, Any]:
        """The command's own fields, as the domain reads them."""
        return self.model_dump(mode="json", exclude=DICE_FIELDS)


class ActingBody(CommandBody):
    combatant_id: str = Field(min_length=1, description="The combatant this command acts for.")
