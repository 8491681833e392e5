"""Commands the Encounter handles itself; the rest go to its ruleset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from uuid import UUID

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue

from domain.campaign.bounds import BoundedJson, Id, Name, check_json_numbers
from domain.encounter.awaited import DiceMode, EnterDie, WithdrawAwaitedRoll
from domain.rules.ruleset import Command, Labels, example


def _lists(value: object) -> object:
    """Tuples as lists: a sheet built in Python (a test's, a demo's) is JSON all the same."""
    if isinstance(value, dict):
        return {key: _lists(child) for key, child in value.items()}
    if isinstance(value, list | tuple):
        return [_lists(child) for child in value]
    return value


# A sheet as a client sends it: free-form JSON, every number bounded (domain/campaign/bounds.py).
SheetJson = Annotated[
    dict[str, JsonValue], BeforeValidator(_lists), AfterValidator(check_json_numbers)
]


class OpenEncounter(Command):
    """The GM opens a fight: ruleset, house-rule options, map, and the dice commitment."""

    command_type = "OpenEncounter"
    ruleset_id: Id
    options: BoundedJson = Field(default_factory=dict)
    battle_map: BoundedJson = Field(default_factory=dict)
    commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
    campaign_id: UUID | None = None
    scenario_id: UUID | None = None
    dice: DiceMode = Field(
        default="server",
        description="Whose dice: the server's, the table's (asked for one at a time), or "
        "either, chosen per command (issue 19).",
    )


class JoinCombatant(Command):
    """GM: bring a combatant in with the sheet its ruleset reads (`hidden` keeps the sheet
    from players)."""

    model_config = example(
        combatant_id="grunt-1",
        name="量産型AC",
        side="enemy",
        controller="gm",
        sheet={"stats": {"hp": 60}, "position": {"x": 3, "y": 1}},
        hidden=True,
    )
    command_type = "JoinCombatant"
    combatant_id: Id
    name: Name
    side: Id
    controller: Id = Field(description="A member id, or 'gm'.")
    sheet: SheetJson
    hidden: bool = False  # the GM keeps its sheet from players (an enemy's stats)


class RevealSeed(Command):
    """The GM reveals the server seed (at the end, or to settle a dispute)."""

    command_type = "RevealSeed"
    server_seed: str = Field(pattern=r"^[0-9a-f]{64}$")


# The Encounter's own commands, each with its name for the table (its handling is the
# Encounter's: domain/encounter/aggregate.py `decision`).
OWN: Mapping[type[Command], Labels] = {
    OpenEncounter: Labels(en="Open Encounter", ja="戦闘を開く"),
    JoinCombatant: Labels(en="Join Combatant", ja="参加者を加える"),
    RevealSeed: Labels(en="Reveal Seed", ja="シードを公開"),
    EnterDie: Labels(en="Enter Die", ja="出目を入力"),
    WithdrawAwaitedRoll: Labels(en="Withdraw Awaited Roll", ja="待機中の判定を取り下げる"),
}
COMMANDS: tuple[type[Command], ...] = tuple(OWN)
LABELS: Mapping[str, Labels] = {c.command_type: labels for c, labels in OWN.items()}
