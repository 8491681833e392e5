"""Hand dice asked for one at a time (issue 19): what an encounter waits for, and its facts.

An encounter chooses its dice when it opens (`DiceMode`): the server's (commit–reveal), the
table's (`hand`: physical dice, entered as the rules ask for them), or either per command
(`per_roll`). With hand dice a command that needs a die is recorded as pending
(`RollAwaited`: the command, who issued it, the faces entered so far, and the die awaited)
and decided again, from the start, once the die is entered (`EnterDie`): deciding is
deterministic, so the same faces lead to the same events, and the resolution is the
ordinary events of that command with its dice marked `source="hand"`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from domain.events import DomainEvent, registry
from domain.rules.ruleset import Command, example

DiceMode = Literal["server", "hand", "per_roll"]
DiceChoice = Literal["server", "hand"]  # what a command says under `per_roll`


class AwaitedDie(BaseModel):
    """The die the rules need next: notation, purpose (EN/JA), rule ID, and who enters it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    notation: str = Field(description="BCDice notation of the die, e.g. '1D6'.")
    sides: int = Field(ge=2)
    purpose: str = Field(description="What the rules draw it for, rule ID first.")
    rule_id: str
    combatant: str | None = Field(description="The combatant it is rolled for (None: the table).")
    for_member: str = Field(description="Who enters it: a member id, or 'gm'. The GM always may.")
    text_en: str
    text_ja: str


class PendingCommand(BaseModel):
    """A command waiting for its dice: as issued, with the faces entered for it so far."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command_type: str
    payload: dict[str, JsonValue]
    by: str
    is_gm: bool
    client_seed: str | None = None
    faces: tuple[int, ...] = ()
    # Who entered each face, in order (None: recorded before RollAwaited v2, not known).
    entered_by: tuple[str | None, ...] = ()


class Awaiting(BaseModel):
    """The Encounter's state while a die is awaited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pending: PendingCommand
    die: AwaitedDie


class RollAwaited(DomainEvent):
    """A command needs a die the table has not entered yet: it waits, recorded as pending."""

    event_type = "RollAwaited"
    version = 2
    pending: PendingCommand
    die: AwaitedDie


class AwaitedRollWithdrawn(DomainEvent):
    """The GM withdrew the command that waited for a die: nothing it would have done happens."""

    event_type = "AwaitedRollWithdrawn"
    command_type: str
    reason: str


registry.register(RollAwaited, AwaitedRollWithdrawn)


@registry.upcaster("RollAwaited", 1)
def _enterers_unrecorded(data: dict[str, Any]) -> dict[str, Any]:
    """A v1 wait: who entered the faces so far was not recorded."""
    pending = data["pending"]
    return data | {"pending": pending | {"entered_by": [None] * len(pending.get("faces", ()))}}


class EnterDie(Command):
    """Enter the face(s) of the die the encounter awaits (its controller, or the GM): the
    pending command goes on, and asks for the next die or resolves."""

    model_config = example(faces=[4])
    command_type = "EnterDie"
    faces: tuple[Annotated[int, Field(ge=1, le=1000)], ...] = Field(
        min_length=1, max_length=100, description="Faces rolled, in the order they are asked for."
    )


class WithdrawAwaitedRoll(Command):
    """GM: withdraw the command that waits for a die (a wrong declaration, a die never rolled)."""

    model_config = example(reason="declared by mistake")
    command_type = "WithdrawAwaitedRoll"
    reason: str = Field(default="withdrawn by the GM", max_length=500)


# The words rulesets write in a die's purpose, as a Japanese table says them (the seeds'
# terms: 命中, 回避, 気絶, 重体, 再起不能…); a word not listed stays as written.
PURPOSE_JA = {
    "roll": "ダイス",
    "hit": "命中",
    "evasion": "回避",
    "faint": "気絶",
    "critical": "重体",
    "incapacitated": "再起不能",
    "recovery": "回復",
    "resistance": "抵抗",
    "GM": "GM",
    "PCs'": "PC側",
    "representative": "代表",
}


def purpose_ja(purpose: str) -> str:
    """A die's purpose ("GD-REACT-1 hit ace") with its words in Japanese ("GD-REACT-1 命中 ace")."""
    return " ".join(PURPOSE_JA.get(word, word) for word in purpose.split(" "))


def awaited_die(
    sides: int, purpose: str, combatant: str | None, controller: str | None
) -> AwaitedDie:
    """Describe the die: `purpose` starts with its rule ID ("GD-INJ-1 faint")."""
    rule_id, _, rest = purpose.partition(" ")
    notation = f"1D{sides}"
    words = [word for word in rest.split() if word != combatant] or ["roll"]
    what = " ".join(words)
    what_ja = "".join(PURPOSE_JA.get(word, word) for word in words)
    who = f" for {combatant}" if combatant else ""
    whose = f"{combatant}の" if combatant else ""
    return AwaitedDie(
        notation=notation,
        sides=sides,
        purpose=purpose,
        rule_id=rule_id,
        combatant=combatant,
        for_member=controller or "gm",
        text_en=f"{notation} {what}{who}, {rule_id}",
        text_ja=f"{whose}{what_ja}（{notation}、{rule_id}）",
    )
