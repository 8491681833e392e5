"""What-if replay: re-run an encounter's recorded commands under other options, or with one
command amended, without touching the stored encounter (docs/architecture.md "Rulings"; issue 6).

The result names the first command whose outcome differs, every recorded command the replay
could not apply (`unapplied`), and, per combatant, every field of the final state that
differs (HP, injury, statuses, position, ammunition, order).

A replay never invents a declaration. A recorded command the other reading refuses (a rule
forbids it now: GD-SQ-3 blocks the shot) or that does not fit the procedure the replay has
reached (the other reading opened a reaction window, kept a character in the fight, gave
another side the first phase: the replay awaits a declaration the record lacks) is skipped,
reported with the rule the engine cited and what the replay awaited instead, and the replay
goes on with the next recorded command from the state it has reached. The table then sees
every consequence at once, not only the first: the commands that still fit are applied, the
others are listed. Only a missing die (the seed is not revealed) stops a replay, since no
later outcome could be computed honestly without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast
from uuid import UUID

from pydantic import JsonValue, ValidationError

from domain.encounter.aggregate import KIND, legal_commands, parse_command
from domain.encounter.awaited import RollAwaited
from domain.encounter.events import EncounterOpened
from domain.encounter.record import CommandIssued, issue, split_by_command
from domain.encounter.replay_dice import ExtraDice, MissingDie, ReplayDice
from domain.encounter.rulesets import ruleset_for
from domain.encounter.state import Encounter
from domain.errors import CommandRefused
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.records import CommandRefusedAfterDice, EncounterDiceRolled, refusal_line
from domain.rules.ruleset import CommandContext

SKIPPED = frozenset({"RevealSeed"})  # revealing the seed changes no outcome


@dataclass(frozen=True)
class Amendment:
    """Replace the payload of the `command`-th recorded command (0-based)."""

    command: int
    payload: JsonObject


class AmendmentOutOfRange(ValueError):
    """The amendment names no recorded command a replay re-runs."""


class AmendmentInvalid(ValueError):
    """The amended payload does not read as the command it replaces (pydantic's errors)."""

    def __init__(self, command_type: str, errors: list[JsonObject]) -> None:
        super().__init__(f"the amended payload is not a valid {command_type}")
        self.command_type = command_type
        self.errors = errors


@dataclass
class Divergence:
    command: int  # index among the recorded commands
    version: int  # the original CommandIssued's version in the stream
    command_type: str
    original: list[JsonObject]
    replayed: list[JsonObject]
    refused: str | None = None
    refused_ja: str | None = None  # the same refusal in Japanese


# Why a recorded command was not applied: a rule refuses it under the other reading, or the
# replay awaits a declaration (a reaction, another combatant's action) the record lacks here.
UnappliedReason = Literal["refused", "needs_declaration"]


@dataclass(frozen=True)
class Unapplied:
    """A recorded command the replay skipped, and why (the module's docstring has the rule)."""

    command: int  # index among the recorded commands
    version: int  # its CommandIssued's version in the stream
    command_type: str
    combatant: str | None
    reason: UnappliedReason
    rule_id: str | None  # the rule the refusal cites (None: no game rule, e.g. the fight ended)
    message: str
    # needs_declaration: what the replay awaited that the record did not at this point,
    # as `Command(combatant)`; the commands the record would need to hold.
    awaiting: tuple[str, ...] = ()
    message_ja: str | None = None  # `message` in Japanese, as the refusal declared it


@dataclass
class ReplayResult:
    complete: bool
    options: JsonObject
    divergence: Divergence | None
    differences: dict[str, dict[str, dict[str, JsonValue]]]
    extra_dice: list[dict[str, int | str]] = field(default_factory=list)
    missing: str | None = None
    state: Encounter | None = None
    unapplied: list[Unapplied] = field(default_factory=list)


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
    groups = split_by_command(events)
    if amendment is not None:
        check_amendment(groups, amendment)
    state = _reopened(stream_id, events, options or {})
    recorded = _Recorded(_before_commands(stream_id, events))  # the fight as recorded
    extra = ExtraDice.for_encounter(stream_id, seed)
    divergence: Divergence | None = None
    unapplied: list[Unapplied] = []
    versions = {id(e): v for v, e in enumerate(events, start=1)}
    for index, (command, effects) in enumerate(groups):
        if command.command_type in SKIPPED:
            continue
        payload = amendment.payload if amendment and amendment.command == index else None
        if payload is not None:
            _check_payload(state, command, payload)
        if _waited(effects):
            # A command that waited for a hand die decided nothing yet: its wait is kept as
            # recorded (with an amended payload), and the entry that resolves it re-runs it.
            state = _fold(state, [command, *_amended_wait(command, effects, payload)])
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
                unapplied=unapplied,
            )
        except (RuleViolation, CommandRefused) as refused:
            version = versions[id(command)]
            skipped = _unapplied(
                command,
                payload,
                index=index,
                version=version,
                replayed=state,
                recorded=recorded.before(groups, index),
                refused=refused,
            )
            unapplied.append(skipped)
            divergence = divergence or Divergence(
                index,
                version,
                command.command_type,
                _outcomes(effects),
                [],
                refused=str(refused),
                refused_ja=_message_ja(refused),
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
        refusal = new[-1]
        if isinstance(refusal, CommandRefusedAfterDice):
            # Refused after its dice (issue 33 §1): not applied, and kept as the live engine
            # keeps it, its dice on the replay's record (so later commands number theirs on).
            version = versions[id(command)]
            unapplied.append(
                _refused_after_dice(state, command, payload, (index, version), refusal)
            )
        state = _fold(state, new)
    return ReplayResult(
        True,
        state.options,
        divergence,
        differences(original, state),
        extra.drawn,
        state=state,
        unapplied=unapplied,
    )


def check_amendment(
    groups: Sequence[tuple[CommandIssued, list[DomainEvent]]], amendment: Amendment
) -> None:
    """Refuse an amendment of a command the record does not hold (or a replay skips)."""
    commands = [c for c, _ in groups]
    if not 0 <= amendment.command < len(commands):
        raise AmendmentOutOfRange(
            f"there is no recorded command #{amendment.command}: this encounter recorded "
            f"{len(commands)} (#0 to #{len(commands) - 1}); pick one of them"
        )
    found = commands[amendment.command]
    if found.command_type in SKIPPED:
        raise AmendmentOutOfRange(
            f"recorded command #{amendment.command} is {found.command_type}, which changes no "
            "outcome and is not replayed; pick another"
        )


def _check_payload(state: Encounter, command: CommandIssued, payload: JsonObject) -> None:
    try:
        parse_command(state, command.command_type, payload)
    except ValidationError as invalid:
        errors = [
            {"loc": [str(p) for p in e["loc"]], "msg": e["msg"], "type": e["type"]}
            for e in invalid.errors(include_url=False)
        ]
        raise AmendmentInvalid(command.command_type, cast(list[JsonObject], errors)) from None


def _fold(state: Encounter, events: Sequence[DomainEvent]) -> Encounter:
    for event in events:
        state = KIND.evolve(state, event)
    return state


@dataclass
class _Recorded:
    """The recorded fight, folded only as far as a refusal needs it (most replays refuse
    nothing, and then pay nothing for it)."""

    state: Encounter
    reached: int = 0  # the groups folded so far

    def before(
        self, groups: Sequence[tuple[CommandIssued, list[DomainEvent]]], index: int
    ) -> Encounter:
        for command, effects in groups[self.reached : index]:
            self.state = _fold(self.state, [command, *effects])
        self.reached = index
        return self.state


def _before_commands(stream_id: UUID, events: Sequence[DomainEvent]) -> Encounter:
    """The recorded encounter before its first recorded command (its opening)."""
    first = next((i for i, e in enumerate(events) if isinstance(e, CommandIssued)), len(events))
    return KIND.rebuild(stream_id, events[:first]) if first else KIND.initial(stream_id)


def _unapplied(
    command: CommandIssued,
    payload: JsonObject | None,
    *,
    index: int,
    version: int,
    replayed: Encounter,
    recorded: Encounter,
    refused: RuleViolation | CommandRefused,
) -> Unapplied:
    """Why the replay could not apply a recorded command: the rule that refuses it, or the
    declarations the replay awaits here that the record (awaiting others) does not hold."""
    combatant = _combatant(replayed, command, payload)
    awaited = _awaited(replayed)
    before = set(_awaited(recorded))
    lacking = [a for a in dict.fromkeys(awaited) if a not in before]  # the procedure's order
    fits = (command.command_type, combatant) in awaited
    rule_id = refused.rule_id if isinstance(refused, RuleViolation) else None
    if lacking and not fits:
        return Unapplied(
            index,
            version,
            command.command_type,
            combatant,
            "needs_declaration",
            rule_id,
            str(refused),
            tuple(f"{c}({who})" if who else c for c, who in lacking),
            _message_ja(refused),
        )
    return Unapplied(
        index,
        version,
        command.command_type,
        combatant,
        "refused",
        rule_id,
        str(refused),
        message_ja=_message_ja(refused),
    )


def _refused_after_dice(
    state: Encounter,
    command: CommandIssued,
    payload: JsonObject | None,
    at: tuple[int, int],
    refusal: CommandRefusedAfterDice,
) -> Unapplied:
    """A command the replay refused after drawing its dice: the rule, and the fixed sentence
    that quotes no die (what-if's extra dice keep the invariant the live dice keep)."""
    message, message_ja = refusal_line(refusal.command_type, refusal.rule_id)
    combatant = _combatant(state, command, payload)
    index, version = at  # among the recorded commands, and in the stream
    return Unapplied(
        index,
        version,
        command.command_type,
        combatant,
        "refused",
        refusal.rule_id,
        message,
        message_ja=message_ja,
    )


def _message_ja(refused: RuleViolation | CommandRefused) -> str | None:
    """The refusal's Japanese words, led by its rule ID as `str(refused)` is."""
    return refused.message_ja if isinstance(refused, RuleViolation) else refused.ja


def _awaited(state: Encounter) -> list[tuple[str, str | None]]:
    return [(c.command, c.combatant) for c in legal_commands(state)]


def _combatant(state: Encounter, command: CommandIssued, payload: JsonObject | None) -> str | None:
    """Whom the recorded command is for (None: the GM's, or it no longer reads)."""
    try:
        read = parse_command(state, command.command_type, _payload(command, payload))
    except (ValueError, CommandRefused):
        return None
    return read.combatant


def _payload(command: CommandIssued, amended: JsonObject | None) -> JsonObject:
    return amended if amended is not None else command.payload


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
    return issue(state, command.command_type, _payload(command, payload), ctx, dice=dice)


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
