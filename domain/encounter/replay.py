"""What-if replay: re-run an encounter's recorded commands under other options, or with one
command amended, without touching the stored encounter (docs/architecture.md "Rulings"; issue 6).

The result names the first command whose outcome differs and, per combatant, every field of
the final state that differs (HP, injury, statuses, position, ammunition, order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from pydantic import JsonValue

from domain.encounter.aggregate import KIND
from domain.encounter.awaited import RollAwaited
from domain.encounter.events import EncounterOpened
from domain.encounter.record import CommandIssued, issue, split_by_command
from domain.encounter.replay_dice import ExtraDice, MissingDie, ReplayDice
from domain.encounter.rulesets import ruleset_for
from domain.encounter.state import Encounter
from domain.errors import CommandRefused
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.records import EncounterDiceRolled
from domain.rules.ruleset import CommandContext

SKIPPED = frozenset({"RevealSeed"})  # revealing the seed changes no outcome


@dataclass(frozen=True)
class Amendment:
    """Replace the payload of the `command`-th recorded command (0-based)."""

    command: int
    payload: JsonObject


@dataclass
class Divergence:
    command: int  # index among the recorded commands
    version: int  # the original CommandIssued's version in the stream
    command_type: str
    original: list[JsonObject]
    replayed: list[JsonObject]
    refused: str | None = None


@dataclass
class ReplayResult:
    complete: bool
    options: JsonObject
    divergence: Divergence | None
    differences: dict[str, dict[str, dict[str, JsonValue]]]
    extra_dice: list[dict[str, int | str]] = field(default_factory=list)
    missing: str | None = None
    state: Encounter | None = None


def replay(
    stream_id: UUID,
    events: Sequence[DomainEvent],
    *,
    options: JsonObject | None = None,
    amendment: Amendment | None = None,
    seed: bytes | None = None,
    original: Encounter | None = None,
) -> ReplayResult:
    """Re-run the commands in `events` (the whole stored stream, oldest first).

    `original`: the stored encounter's final state, when the caller has it already (a loaded
    aggregate), so it is not rebuilt a second time; it must be the state `events` lead to."""
    if original is None:
        original = KIND.rebuild(stream_id, events)
    state = _reopened(stream_id, events, options or {})
    extra = ExtraDice.for_encounter(stream_id, seed)
    divergence: Divergence | None = None
    versions = {id(e): v for v, e in enumerate(events, start=1)}
    for index, (command, effects) in enumerate(split_by_command(events)):
        if command.command_type in SKIPPED:
            continue
        payload = amendment.payload if amendment and amendment.command == index else None
        if _waited(effects):
            # A command that waited for a hand die decided nothing yet: its wait is kept as
            # recorded (with an amended payload), and the entry that resolves it re-runs it.
            for event in (command, *_amended_wait(command, effects, payload)):
                state = KIND.evolve(state, event)
            continue
        try:
            new = _reissue(state, command, payload, effects, extra)
        except MissingDie as missing:
            return ReplayResult(
                False,
                state.options,
                divergence,
                {},
                extra.drawn,
                f"command {index} ({command.command_type}): {missing}",
            )
        except (RuleViolation, CommandRefused) as refused:
            divergence = divergence or Divergence(
                index,
                versions[id(command)],
                command.command_type,
                _outcomes(effects),
                [],
                refused=str(refused),
            )
            continue
        if divergence is None and _decided(new[1:]) != _decided(effects):
            divergence = Divergence(
                index,
                versions[id(command)],
                command.command_type,
                _outcomes(effects),
                _outcomes(new[1:]),
            )
        for event in new:
            state = KIND.evolve(state, event)
    return ReplayResult(
        True, state.options, divergence, differences(original, state), extra.drawn, state=state
    )


def _reopened(stream_id: UUID, events: Sequence[DomainEvent], overrides: JsonObject) -> Encounter:
    opened = next(e for e in events if isinstance(e, EncounterOpened))
    ruleset = ruleset_for(opened.ruleset_id)
    options = ruleset.options_model.model_validate(opened.options | overrides)
    reopened = opened.model_copy(update={"options": options.model_dump(mode="json")})
    return KIND.evolve(KIND.initial(stream_id), reopened)


def _reissue(
    state: Encounter,
    command: CommandIssued,
    payload: JsonObject | None,
    effects: Sequence[DomainEvent],
    extra: ExtraDice,
) -> list[DomainEvent]:
    originals = [e.result for e in effects if isinstance(e, EncounterDiceRolled)]
    dice = ReplayDice(state.id, state.roll_count, originals, extra, by=command.by, at=command.at)
    ctx = CommandContext(
        at=command.at, by=command.by, is_gm=command.is_gm, client_seed=command.client_seed
    )
    return issue(state, command.command_type, payload or command.payload, ctx, dice=dice)


def _waited(effects: Sequence[DomainEvent]) -> bool:
    """The command's block ends in a wait for a die (issue 19): nothing was decided yet."""
    return bool(effects) and isinstance(effects[-1], RollAwaited)


def _amended_wait(
    command: CommandIssued, effects: Sequence[DomainEvent], payload: JsonObject | None
) -> list[DomainEvent]:
    """The wait as recorded; an amended command waits with its amended payload."""
    if payload is None or command.command_type == "EnterDie":
        return list(effects)
    amended: list[DomainEvent] = []
    for event in effects:
        if isinstance(event, RollAwaited):
            pending = event.pending.model_copy(update={"payload": payload})
            amended.append(event.model_copy(update={"pending": pending}))
        else:
            amended.append(event)
    return amended


def _outcomes(events: Sequence[DomainEvent]) -> list[JsonObject]:
    """What a command decided, without who/when, dice bookkeeping or roll numbering."""
    return [
        {"type": e.event_type} | e.model_dump(mode="json", exclude={"at", "by", "roll_seqs"})
        for e in events
        if not isinstance(e, (EncounterDiceRolled, CommandIssued))
    ]


# How the engine words a decision, not the decision: a ruling citing one more rule ID after a
# digest correction, or a clearer log line, must not read as a divergence of a stored fight.
_WORDING = frozenset({"rule_ids", "summary_en", "summary_ja"})


def _decided(events: Sequence[DomainEvent]) -> list[JsonObject]:
    """The outcomes a replay compares: each without its citations and summaries."""
    return [{k: v for k, v in o.items() if k not in _WORDING} for o in _outcomes(events)]


def combatant_view(state: Encounter) -> dict[str, dict[str, Any]]:
    """Each combatant's fight state (not its static sheet), plus its place in the order."""
    if state.rules is None:
        return {}
    dump = state.rules.model_dump(mode="json")
    order = list(dump.get("order", []))
    return {
        cid: {k: v for k, v in fields.items() if k != "sheet"}
        | {"order": order.index(cid) if cid in order else None}
        for cid, fields in dict(dump.get("combatants", {})).items()
    }


def differences(before: Encounter, after: Encounter) -> dict[str, dict[str, dict[str, JsonValue]]]:
    """Per combatant, each field whose value differs: {field: {original, replay}}."""
    old, new = combatant_view(before), combatant_view(after)
    found: dict[str, dict[str, dict[str, JsonValue]]] = {}
    for cid in sorted(set(old) | set(new)):
        a, b = old.get(cid, {}), new.get(cid, {})
        changed = {
            k: {"original": a.get(k), "replay": b.get(k)}
            for k in sorted(set(a) | set(b))
            if a.get(k) != b.get(k)
        }
        if changed:
            found[cid] = changed
    return found
