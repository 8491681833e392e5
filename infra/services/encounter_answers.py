"""What an encounter command answers, typed and declared once (issue #16 item 2).

`command_answer` builds it from the state the command reached and the events it appended; the
executor keeps it as JSON beside those events for a retry (restored by
`CommandAnswer.model_validate`), and the API serves it as its response model, redacting the
rulings and facts for a reader who may not see everything (api/routes/encounters.py). The
class names are the OpenAPI schema names (tests/api/test_openapi*.py pins them).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from domain.dice.results import RollResult
from domain.encounter import aggregate as encounter
from domain.events import DomainEvent
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from domain.rules.ruleset import LegalCommand
from infra.services.visibility import payload_of
from projections.render import render


class Awaited(BaseModel):
    # Frozen: one answer's list is shared by every answer at the same point (`_awaited`).
    model_config = ConfigDict(frozen=True)

    command: str
    issuer: str = Field(description="'gm', or 'controller' of the combatant.")
    combatant: str | None = None


class AwaitedDiePublic(BaseModel):
    """The hand die the encounter waits for (issue 19): any reader sees it; the member it is
    for (or the GM) enters it with `EnterDie`."""

    notation: str = Field(examples=["1D6"])
    sides: int
    purpose: str = Field(description="What the rules draw it for, rule ID first.")
    rule_id: str
    combatant: str | None
    for_member: str = Field(description="Who enters it: a member id, or 'gm'.")
    text_en: str = Field(examples=["1D6 faint for brute, GD-INJ-1"])
    text_ja: str
    command: str = Field(description="The command waiting for it.")
    faces_entered: int = Field(description="Faces entered for that command so far.")


class LogLine(BaseModel):
    en: str
    ja: str


class EventLog(BaseModel):
    """Where an event stands in its shard's Merkle tree: what to ask an inclusion proof of."""

    shard: int
    position: int
    leaf_index: int
    chain_hash: str = Field(description="The event's chain link (hex): its leaf in the tree.")


class EventPublic(BaseModel):
    type: str
    version: int = Field(description="The encounter's version after this event (the cursor).")
    position: int | None = Field(description="Position in the chained log.")
    at: datetime
    by: str
    payload: dict[str, JsonValue]
    line: LogLine | None = Field(
        default=None,
        description="The event in words, in English and Japanese, as the encounter log reads "
        "it (what the reader may not see withheld, as in the payload). Null only in an answer "
        "stored before lines were given, replayed to a retry.",
    )
    log: EventLog | None = Field(
        default=None,
        description="The event's leaf in its shard's tree (docs/witnesses.md); absent while "
        "the tree disagrees with the log.",
    )


class EncounterRoll(BaseModel):
    roll_seq: int
    expression: str
    purpose: str
    source: str
    client_seed: str | None
    total: int
    success: bool | None
    text: str


class Ruling(BaseModel):
    rule_ids: list[str]
    summary_en: str
    summary_ja: str
    roll_seqs: list[int]
    inputs: dict[str, JsonValue]
    outcome: dict[str, JsonValue]


class AwaitingNext(BaseModel):
    """What the encounter awaits after this command: the commands legal now, and the hand
    die awaited (if any), so a client needs no second read."""

    commands: list[Awaited] = Field(default_factory=list)
    die: AwaitedDiePublic | None = None


class CommandAnswer(BaseModel):
    id: str
    version: int = Field(description="The encounter's version now (also the ETag).")
    commitment: str
    events: list[str] = Field(description="Types of the events appended, in order.")
    rolls: list[EncounterRoll]
    rulings: list[Ruling]
    facts: list[EventPublic] = Field(
        default_factory=list,
        description="The events appended, as the caller may see them (redacted as /events).",
    )
    awaiting: AwaitingNext = Field(default_factory=AwaitingNext)


class DisputeAnswer(BaseModel):
    """A dispute filed, upheld or amended: the encounter's version now, and for an amendment
    the corrections it appended (the replay's differences)."""

    id: str
    version: int
    dispute_id: str
    corrections: dict[str, Any] | None = None


# What a ruling answers of its event (the options it read and the event's own `at`/`by` are
# in its fact).
_RULING_FIELDS: set[str] = set(Ruling.model_fields)


def awaited_die_of(state: encounter.Encounter) -> AwaitedDiePublic | None:
    """The awaited die, as every reader sees it: its notation, purpose and rule ID are what
    the table sees asked for (no sheet number); the faces entered so far are only counted,
    as the pending command's payload is not shown (it may aim at a hidden combatant)."""
    if state.awaiting is None:
        return None
    die, pending = state.awaiting.die, state.awaiting.pending
    return AwaitedDiePublic.model_construct(
        **die.model_dump(),
        command=pending.command_type,
        faces_entered=len(pending.faces),
    )


# The answer is built by `model_construct`, not validated: every value comes from a domain
# model that was validated when it was made, or from its JSON dump, and validating it again
# (each payload value through JsonValue's tagged union) was a sixth of a command's CPU.
# tests/unit/test_encounter_answers.py checks that each answer a fight gives validates as is.


def command_answer(
    state: encounter.Encounter, version: int, appended: Sequence[DomainEvent]
) -> CommandAnswer:
    """The answer to a command whose `appended` events brought the encounter to `state` at
    `version`: the facts (each with its version; the route redacts them as every read does),
    the rolls and rulings among them, and what is awaited next (issue 19)."""
    first = version - len(appended) + 1
    return CommandAnswer.model_construct(
        id=str(state.id),
        version=version,
        commitment=state.commitment,
        events=[e.event_type for e in appended],
        rolls=[_roll(e.result) for e in appended if isinstance(e, EncounterDiceRolled)],
        rulings=[_ruling(e) for e in appended if isinstance(e, RulingRecorded)],
        facts=[_fact(e, first + i) for i, e in enumerate(appended)],
        awaiting=AwaitingNext.model_construct(
            # The procedure's `awaiting`, without building the rest of its point: the same
            # list, asked of the same state by the next command's legality check (cached).
            commands=list(_awaited(_named(encounter.legal_commands(state)))),
            die=awaited_die_of(state),
        ),
    )


def _named(commands: Sequence[LegalCommand]) -> tuple[tuple[str, str, str | None], ...]:
    """The awaited commands as plain tuples: the cache's key (hashing the frozen models
    themselves goes through pydantic's hash in Python, once per command)."""
    return tuple((c.command, c.issuer, c.combatant) for c in commands)


@functools.lru_cache(maxsize=4096)
def _awaited(commands: tuple[tuple[str, str, str | None], ...]) -> tuple[Awaited, ...]:
    """The commands awaited at a procedure point, as answered: a fight keeps coming back to
    the same few points (whose move it is), and each costs a model per command to build."""
    return tuple(
        Awaited.model_construct(command=command, issuer=issuer, combatant=combatant)
        for command, issuer, combatant in commands
    )


def _ruling(event: RulingRecorded) -> Ruling:
    dumped = event.model_dump(mode="json", include=_RULING_FIELDS)
    return Ruling.model_construct(**dumped)


def _roll(result: RollResult) -> EncounterRoll:
    return EncounterRoll.model_construct(
        roll_seq=result.roll_seq,
        expression=result.expression,
        purpose=result.purpose,
        source=result.source,
        client_seed=result.client_seed,
        total=result.total,
        success=result.success,
        text=result.text,
    )


def line_of(event: DomainEvent) -> LogLine:
    """The event in the encounter log's words: its ruleset's line, or one built from it."""
    en, ja = render(event)
    return LogLine(en=en, ja=ja)


def _fact(event: DomainEvent, version: int) -> EventPublic:
    return EventPublic.model_construct(
        type=event.event_type,
        version=version,
        position=None,
        at=event.at,
        by=event.by,
        payload=payload_of(event),
        line=line_of(event),  # withheld for a reader as the payload is, by the route
        log=None,  # its leaf: given by the route once the append has placed it (`placed`)
    )


def placed(answer: CommandAnswer, positions: Sequence[int]) -> CommandAnswer:
    """The answer with each fact's log position, as the append returned them (in order).
    The answer stored for a retry was written with the events, before they had positions:
    a retry's facts have none (the route reads them back)."""
    if len(positions) != len(answer.facts):
        return answer
    facts = [
        fact.model_copy(update={"position": position})
        for fact, position in zip(answer.facts, positions, strict=True)
    ]
    return answer.model_copy(update={"facts": facts})
