"""Disputes, what-if replays and time travel by turn/phase/step (issue 6)."""

from __future__ import annotations

from typing import Annotated, Any, cast
from uuid import UUID

from fastapi import APIRouter, Depends, Query
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field, JsonValue

from api.deps import RuntimeDep
from api.encounter_views import EncounterPublic, describe, lens_for, reader_of
from api.routes.encounters import actor, load_for
from api.security import GM_ONLY, READERS, WRITERS, PrincipalDep
from api.writes import idempotency_key
from domain.encounter.aggregate import command_class
from domain.encounter.commands import COMMANDS
from domain.encounter.replay import (
    Amendment,
    AmendmentInvalid,
    AmendmentOutOfRange,
    ReplayResult,
    Unapplied,
)
from domain.encounter.state import Encounter
from domain.visibility.encounter import Policy
from domain.visibility.replay import check_may_replay
from infra.services import AuditEntry, DisputeAnswer, Idempotency, seen_through

router = APIRouter(prefix="/v1/encounters", tags=["audit"])
KeyDep = Annotated[Idempotency, Depends(idempotency_key)]


class DisputeCreate(BaseModel):
    ruling_version: int = Field(ge=1, description="The version of the RulingRecorded event.")
    reason: str = Field(
        min_length=1,
        max_length=2000,
        examples=["the text says below −1 (GD-INJ-1): −1 is not below −1"],
    )


class DisputeSettle(BaseModel):
    note: str = Field(default="", max_length=2000)


class AmendmentIn(BaseModel):
    command: int = Field(ge=0, description="Index of the recorded command to change (0-based).")
    payload: dict[str, JsonValue] = Field(
        examples=[{"defender": "brute", "percent": 80, "grade": "large", "reason": "unaware"}]
    )


class WhatIf(BaseModel):
    options: dict[str, JsonValue] = Field(default_factory=dict, examples=[{"faint_rule": "text"}])
    amendment: AmendmentIn | None = None


class DisputeAmend(WhatIf):
    note: str = Field(default="", max_length=2000)


class DisputePublic(BaseModel):
    dispute_id: str
    ruling_version: int
    reason: str
    filed_by: str
    status: str


class Divergence(BaseModel):
    command: int
    version: int
    command_type: str
    original: list[dict[str, Any]]
    replayed: list[dict[str, Any]]
    refused: str | None = None
    refused_ja: str | None = Field(default=None, description="`refused` in Japanese.")


class UnappliedOut(BaseModel):
    """A recorded command the replay skipped: the other reading refuses it, or the replay
    awaited a declaration the record lacks there (domain/encounter/replay.py)."""

    command: int = Field(description="Index among the recorded commands (0-based).")
    version: int = Field(description="The version of its CommandIssued event.")
    command_type: str
    combatant: str | None
    reason: str = Field(description="refused | needs_declaration")
    rule_id: str | None = Field(description="The rule the refusal cites (RULES.md).")
    message: str
    message_ja: str | None = Field(description="`message` in Japanese.")
    awaiting: list[str] = Field(
        description="needs_declaration: what the replay awaited that the record did not "
        "hold at this point, as Command(combatant)."
    )


class ReplayOut(BaseModel):
    complete: bool
    options: dict[str, Any]
    divergence: Divergence | None
    unapplied: list[UnappliedOut] = Field(
        description="Every recorded command the replay could not apply, in order; each was "
        "skipped and the replay went on with the next."
    )
    differences: dict[str, dict[str, dict[str, Any]]] = Field(
        description="Per combatant, each field that differs: {original, replay}."
    )
    extra_dice: list[dict[str, Any]] = Field(
        description="Dice the original never rolled, derived from the revealed seed."
    )
    missing: str | None = Field(description="The die the replay lacks before the reveal.")


def _out(result: ReplayResult, policy: Policy) -> ReplayOut:
    """The replay as the reader may see it: the divergent command's outcomes are one block
    (withheld whole if they name a hidden combatant), differences per combatant."""
    divergence = None
    if result.divergence is not None:
        found = result.divergence
        both: JsonValue = {"original": list(found.original), "replayed": list(found.replayed)}
        about = bool(policy.named_in(both)) or None  # one command's outcomes: one block
        outcomes = policy.record(both, about_hidden=about)
        assert isinstance(outcomes, dict)
        # Both languages withheld alike: about a hidden combatant if either text names one.
        words = bool(policy.named_in([found.refused or "", found.refused_ja or ""])) or about
        refused = {
            "refused": _text(policy, found.refused, words),
            "refused_ja": _text(policy, found.refused_ja, words),
        }
        divergence = Divergence.model_validate(vars(found) | outcomes | refused)
    differences = policy.record(cast(JsonValue, result.differences))
    return ReplayOut(
        complete=result.complete,
        options=result.options,
        divergence=divergence,
        unapplied=[_unapplied(u, policy) for u in result.unapplied],
        differences=cast(dict[str, dict[str, dict[str, Any]]], differences),
        extra_dice=result.extra_dice,
        missing=_text(policy, result.missing),
    )


def _unapplied(skipped: Unapplied, policy: Policy) -> UnappliedOut:
    """One skipped command as the reader may see it: who it was for and what was awaited
    stay (the table sees who acts), numbers in its message about a hidden combatant do not."""
    about = bool(
        policy.named_in(
            [skipped.combatant, skipped.message, skipped.message_ja or "", *skipped.awaiting]
        )
    )
    return UnappliedOut(
        command=skipped.command,
        version=skipped.version,
        command_type=skipped.command_type,
        combatant=skipped.combatant,
        reason=skipped.reason,
        rule_id=skipped.rule_id,
        message=policy.text(skipped.message, about_hidden=about),
        message_ja=_text(policy, skipped.message_ja, about),
        awaiting=list(skipped.awaiting),
    )


def _text(policy: Policy, text: str | None, about: bool | None = None) -> str | None:
    return None if text is None else policy.text(text, about_hidden=about)


def _amendment(body: WhatIf) -> Amendment | None:
    return Amendment(body.amendment.command, body.amendment.payload) if body.amendment else None


@router.post(
    "/{encounter_id}/replay",
    response_model=ReplayOut,
    operation_id="replayEncounter",
    summary="Replay an encounter under other rules (stores nothing)",
)
def what_if(
    encounter_id: UUID, body: WhatIf, runtime: RuntimeDep, who: PrincipalDep, key: KeyDep
) -> ReplayOut:
    """Re-run the encounter under other options or one amended command; nothing is stored.
    Refused (403) to a reader from whom a combatant of the fight is hidden (docs/visibility.md)."""
    state, _ = load_for(runtime, who, encounter_id, READERS)
    check_may_replay(reader_of(who), state.combatants)
    result = _replayed(runtime, encounter_id, body)
    # Withheld: whoever is hidden in the fight as recorded, and in the fight as replayed
    # (an amended join can hide a combatant, or try to unhide one: the original still rules).
    replayed = result.state.combatants if result.state is not None else ()
    policy = Policy.for_reader(reader_of(who), (*state.combatants, *replayed))
    return _out(result, policy)


def _replayed(runtime: RuntimeDep, encounter_id: UUID, body: WhatIf) -> ReplayResult:
    """The replay, with a bad amendment answered as the field it is (422), not a 500."""
    try:
        return runtime.disputes.what_if(
            encounter_id, options=body.options, amendment=_amendment(body)
        )
    except AmendmentOutOfRange as wrong:
        raise _invalid(("body", "amendment", "command"), str(wrong), "out_of_range") from None
    except AmendmentInvalid as wrong:
        raise RequestValidationError(
            [
                {
                    "loc": ("body", "amendment", "payload", *e["loc"]),
                    "msg": f"{e['msg']} (the payload of a {wrong.command_type})",
                    "type": e["type"],
                }
                for e in wrong.errors
            ]
        ) from None


def _invalid(loc: tuple[str, ...], msg: str, kind: str) -> RequestValidationError:
    return RequestValidationError([{"loc": loc, "msg": msg, "type": kind}])


class OptionsOut(BaseModel):
    """What a what-if can change in this encounter: the ruleset's options (each an
    Interpretation of RULES.md, its rule ID leading its description) with the values in
    force, and the schema of each command's payload, to amend a recorded one."""

    ruleset_id: str
    ruleset_version: str
    values: dict[str, JsonValue] = Field(description="The options in force in this encounter.")
    defaults: dict[str, JsonValue] = Field(description="The ruleset's own calls (no house rule).")
    option_schema: dict[str, Any] = Field(
        description="JSON Schema of the options: each one's alternatives, default and "
        "description (rule ID first)."
    )
    command_schemas: dict[str, dict[str, Any]] = Field(
        description="JSON Schema of each command's payload, by command type."
    )


@router.get(
    "/{encounter_id}/options",
    response_model=OptionsOut,
    operation_id="getEncounterOptions",
    summary="The options a what-if may try, and command schemas",
)
def what_if_options(encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> OptionsOut:
    """The options a replay may try, with their alternatives and the values in force."""
    state, _ = load_for(runtime, who, encounter_id, READERS)
    return options_of(state)


def options_of(state: Encounter) -> OptionsOut:
    ruleset = state.ruleset
    model = ruleset.options_model
    names = [c.command_type for c in (*COMMANDS, *ruleset.commands)]
    return OptionsOut(
        ruleset_id=ruleset.id,
        ruleset_version=ruleset.version,
        values=dict(state.options),
        defaults=model().model_dump(mode="json"),
        option_schema=model.model_json_schema(),
        command_schemas={n: command_class(state, n).model_json_schema() for n in names},
    )


@router.get(
    "/{encounter_id}/at",
    response_model=EncounterPublic,
    operation_id="getEncounterAtPoint",
    summary="Read an encounter as a turn, phase or step began",
)
def at_point(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    turn: Annotated[int, Query(ge=0)],
    phase: Annotated[str | None, Query(max_length=40)] = None,
    step: Annotated[str | None, Query(max_length=40)] = None,
) -> EncounterPublic:
    """The encounter as it stood when a turn (and phase, and step) began."""
    load_for(runtime, who, encounter_id, READERS)
    state, version = runtime.disputes.at_point(encounter_id, turn, phase, step)
    return describe(state, version, who)


@router.get(
    "/{encounter_id}/rulings",
    response_model=list[AuditEntry],
    operation_id="listEncounterRulings",
    summary="Every ruling with its evidence",
)
def audit_trail(encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> list[AuditEntry]:
    """Every ruling in order, with the evidence: rule texts, inputs, each die (recomputed once
    the seed is revealed), options, the command behind it and its disputes (from the log)."""
    load_for(runtime, who, encounter_id, READERS)
    trail = runtime.audit.trail(encounter_id)
    return seen_through(trail, lens_for(runtime, who, encounter_id))


@router.get(
    "/{encounter_id}/disputes",
    response_model=list[DisputePublic],
    operation_id="listDisputes",
    summary="List an encounter's disputes",
)
def list_disputes(
    encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep
) -> list[DisputePublic]:
    """Every dispute of the encounter, open or settled."""
    state, _ = load_for(runtime, who, encounter_id, READERS)
    return [DisputePublic.model_validate(d.model_dump()) for d in state.disputes.values()]


@router.post(
    "/{encounter_id}/disputes",
    status_code=201,
    response_model=DisputeAnswer,
    operation_id="fileDispute",
    summary="Dispute a ruling",
)
def file_dispute(
    encounter_id: UUID, body: DisputeCreate, runtime: RuntimeDep, who: PrincipalDep, key: KeyDep
) -> DisputeAnswer:
    """A player or the GM disputes a ruling, with a reason."""
    load_for(runtime, who, encounter_id, WRITERS)
    return runtime.disputes.file(encounter_id, actor(who), body.ruling_version, body.reason, key)


@router.post(
    "/{encounter_id}/disputes/{dispute_id}/uphold",
    response_model=DisputeAnswer,
    operation_id="upholdRuling",
    summary="Settle a dispute by keeping the ruling",
)
def uphold(
    encounter_id: UUID,
    dispute_id: str,
    body: DisputeSettle,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
) -> DisputeAnswer:
    """The GM keeps the ruling."""
    load_for(runtime, who, encounter_id, GM_ONLY)
    return runtime.disputes.uphold(encounter_id, actor(who), dispute_id, body.note, key)


@router.post(
    "/{encounter_id}/disputes/{dispute_id}/amend",
    response_model=DisputeAnswer,
    operation_id="amendRuling",
    summary="Settle a dispute by appending corrections",
)
def amend(
    encounter_id: UUID,
    dispute_id: str,
    body: DisputeAmend,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
) -> DisputeAnswer:
    """The GM adopts a replay: its differences are appended as corrections; history stays."""
    load_for(runtime, who, encounter_id, GM_ONLY)
    return runtime.disputes.amend(
        encounter_id,
        actor(who),
        dispute_id,
        body.note,
        options=body.options,
        amendment=_amendment(body),
        idempotency=key,
    )
