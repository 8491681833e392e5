"""The HTTP body of a command: the domain's command (declared once, in its rule system's
folder) plus the `command` tag and the dice fields every command shares.

`body_of` makes the body class; api/encounter_commands.py gathers the bodies into each
ruleset's tagged union, from the ruleset registry.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from domain.rules.ruleset import Command

DICE_FIELDS = {"command", "client_seed", "hand_faces", "dice"}


class CommandBody(BaseModel):
    """What a body adds to its command: the tag that names it, and the dice."""

    model_config = ConfigDict(extra="forbid")

    carries: ClassVar[type[Command]] = Command

    command: str
    client_seed: str | None = Field(
        default=None, max_length=200, description="Mixed into every server die of this command."
    )
    hand_faces: list[Annotated[int, Field(ge=1, le=1000)]] | None = Field(
        default=None,
        max_length=100,
        description="Faces rolled at the physical table, in the order they are needed (the GM's; "
        "with hand dice, the issuer's too). Faces still missing are asked for one at a time.",
    )
    dice: Literal["server", "hand"] | None = Field(
        default=None,
        description="In an encounter opened with dice 'per_roll': this command's dice (issue 19).",
    )

    def payload(self) -> dict[str, Any]:
        """The command's own fields, as the domain reads them."""
        return self.model_dump(mode="json", exclude=DICE_FIELDS)

    def domain_command(self) -> Command:
        """The command this body carries, as its ruleset's own class: validated already (the
        body is that class with the dice added), so it is not validated again."""
        fields = {name: getattr(self, name) for name in self.carries.model_fields}
        return self.carries.model_construct(self.model_fields_set - DICE_FIELDS, **fields)


def body_of(command: type[Command], prefix: str) -> type[CommandBody]:
    """The body of `command`, named `{prefix}{command}Body`: its fields, bounds, docstring and
    examples, the `command` tag, and the dice fields."""
    name = command.command_type
    title = f"{prefix}{name}Body"
    tag: Any = Literal[name]
    namespace = {
        "__module__": __name__,
        "__qualname__": title,
        "__doc__": command.__doc__,
        "__annotations__": {"command": tag},
        "model_config": ConfigDict(
            extra="forbid",
            json_schema_extra={"examples": [{"command": name, **e} for e in examples_of(command)]},
        ),
        "carries": command,
    }
    return cast(type[CommandBody], type(title, (command, CommandBody), namespace))


def examples_of(command: type[Command]) -> list[dict[str, Any]]:
    """The examples a command declares (domain.rules.ruleset.example), without the tag."""
    extra = command.model_config.get("json_schema_extra")
    found = extra.get("examples", []) if isinstance(extra, dict) else []
    return [dict(e) for e in found if isinstance(e, dict)] if isinstance(found, list) else []
