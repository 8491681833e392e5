"""Encounters: the GM opens one in a campaign; members read it, command it, audit its dice."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import (
    APIRouter,
    Body,
    Depends,
    Header,
    HTTPException,
    Query,
    Response,
    status,
)
from pydantic import BaseModel, Field, JsonValue

from api.deps import RuntimeDep
from api.encounter_commands import EncounterCommand, ruleset_of
from api.encounter_views import (
    EncounterPublic,
    describe,
    lens_since,
    reader_of,
    seen_line,
)
from api.leaves import command_leaves
from api.metrics.commands import COMMANDS_ROUTE, CommandTallyDep, Counted
from api.security import (
    GM_ONLY,
    READERS,
    WRITERS,
    PrincipalDep,
    require,
    voided_on_failure,
)
from api.writes import (
    AggregateWriteDep,
    etag,
    idempotency_key,
    if_match,
    if_match_required,
)
from domain.encounter.aggregate import Encounter
from domain.rules.errors import RuleViolation
from domain.visibility.encounter import Policy
from infra.services import (
    Actor,
    CommandAnswer,
    Idempotency,
    Lens,
    Principal,
    PrincipalRole,
    RefusedAfterDice,
    Ruling,
    Runtime,
    Write,
)

JSON = "application/json"

router = APIRouter(tags=["encounters"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
IfMatchDep = Annotated[int | None, Depends(if_match)]


class EncounterCreate(BaseModel):
    options: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="Options for this fight, over the campaign's house rules.",
        examples=[{"faint_rule": "text"}],
    )
    battle_map: dict[str, JsonValue] = Field(
        default_factory=dict, examples=[{"width": 12, "height": 12}]
    )
    scenario_id: UUID | None = None
    dice: Literal["server", "hand", "per_roll"] = Field(
        default="server",
        description="Whose dice: the server's (commit–reveal), the table's (physical dice, "
        "asked for one at a time), or either, chosen by each command (`dice` in its body).",
    )


class EncounterRollCheck(BaseModel):
    roll_seq: int
    text: str
    verified: bool
    ok: bool
    problems: list[str]
    unverifiable: str | None


class EncounterAudit(BaseModel):
    id: str
    commitment: str
    revealed_seed: str
    all_verified: bool
    checks: list[EncounterRollCheck]


def actor(who: Principal) -> Actor:
    return Actor(who.actor, is_gm=who.role == "gm")


def load_for(
    runtime: Runtime,
    who: Principal,
    encounter_id: UUID,
    roles: tuple[PrincipalRole, ...],
    version: int | None = None,
    *,
    known: bool = False,
) -> tuple[Encounter, int]:
    """The encounter (at `version`), if the caller's token is of its campaign and role;
    `known`: as this process last knew it, without a read (to decide a command on)."""
    if known:
        state, at = runtime.encounters.known(encounter_id)
    else:
        state, at = runtime.encounters.state(encounter_id, version=version)
    if state.campaign_id is None:
        raise HTTPException(403, "this encounter belongs to no campaign; no token reaches it")
    require(who, state.campaign_id, roles)
    return state, at


def _answer(answer: CommandAnswer, response: Response, seen: Lens | None = None) -> CommandAnswer:
    """The answer to a command; `seen`: the caller's view, for the rulings it made (a
    player's hit on a hidden enemy does not answer with its defence and HP)."""
    etag(response, answer.version)
    if seen is None or seen.sees_all:
        return answer
    version = answer.version
    return answer.model_copy(
        update={
            "rulings": [
                Ruling.model_validate(seen.record(version, r.model_dump(mode="json")))
                for r in answer.rulings
            ],
            "facts": [
                fact.model_copy(
                    update={
                        "payload": seen.event(fact.version, fact.type, fact.payload),
                        "line": fact.line and seen_line(seen, fact.version, fact.line),
                    }
                )
                for fact in answer.facts
            ],
        }
    )


@router.post(
    "/v1/campaigns/{campaign_id}/encounters",
    status_code=status.HTTP_201_CREATED,
    response_model=CommandAnswer,
    operation_id="openEncounter",
    summary="Open an encounter (a fight)",
)
def open_encounter(
    campaign_id: UUID,
    body: EncounterCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
) -> CommandAnswer:
    """The GM opens a fight under the campaign's ruleset and house rules; the answer carries
    the commitment to its dice seed."""
    require(who, campaign_id, GM_ONLY)
    campaign, _ = runtime.campaigns.get(campaign_id)
    answer = runtime.encounters.open(
        actor(who),
        ruleset_id=campaign.ruleset,
        options=dict(campaign.options) | body.options,
        battle_map=body.battle_map,
        campaign_id=campaign_id,
        scenario_id=body.scenario_id,
        dice=body.dice,
        idempotency=key,
    )
    response.headers["Location"] = f"/v1/encounters/{answer.id}"
    return _answer(command_leaves(runtime, UUID(answer.id), answer), response)


@router.get(
    "/v1/encounters/{encounter_id}",
    response_model=EncounterPublic,
    responses={304: {"description": "Not modified (If-None-Match)"}},
    operation_id="getEncounter",
    summary="Read an encounter now (or at a version)",
)
def get_encounter(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    response: Response,
    version: Annotated[int | None, Query(ge=1, description="Time travel: as it stood.")] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """The fight now (or at `version`): procedure point, legal commands, combatants."""
    state, at = load_for(runtime, who, encounter_id, READERS, version)
    if version is not None and at != version:
        raise HTTPException(404, f"encounter {encounter_id} has no version {version} (now {at})")
    if if_none_match == f'"{at}"':
        return Response(status_code=304, headers={"ETag": f'"{at}"'})
    etag(response, at)
    return describe(state, at, who)


@router.post(
    COMMANDS_ROUTE,
    response_model=CommandAnswer,
    operation_id="commandEncounter",
    summary="Issue a command in an encounter",
)
def command(
    encounter_id: UUID,
    body: Annotated[EncounterCommand, Body()],
    call: AggregateWriteDep,
    tally: CommandTallyDep,
    response: Response,
) -> Response:
    """Issue a command on the version you read (If-Match); the answer carries the facts it
    produced (as you may see them), the new version (ETag) and what is awaited next. With
    hand dice a command that needs a die waits for it (`awaiting.die`): enter it with the
    `EnterDie` command."""
    key = call.write.idempotency.key if call.write.idempotency else None
    with (
        voided_on_failure(call.runtime),  # a failed write may have appended first
        tally.command(ruleset_of(body), body.command, key) as counted,
    ):
        write = if_match_required(call.write)
        answer = _commanded(encounter_id, body, call.runtime, call.who, write, counted)
        answer = command_leaves(call.runtime, encounter_id, answer)
        lens = lens_since(call.runtime, call.who, encounter_id, answer.version)
        return _sent(_answer(answer, response, lens), response)


def _sent(answer: CommandAnswer, response: Response) -> Response:
    """The answer's JSON, returned as the response itself: a model returned by a sync route
    is validated again on a worker thread, a second thread hop for every command, for an
    answer the service built and `_answer` redacted as a `CommandAnswer` already."""
    headers = {k: v for k, v in response.headers.items() if k != "content-length"}
    return Response(answer.model_dump_json(by_alias=True), media_type=JSON, headers=headers)


def _commanded(
    encounter_id: UUID,
    body: EncounterCommand,
    runtime: Runtime,
    who: Principal,
    write: Write,
    counted: Counted,
) -> CommandAnswer:
    state, at = load_for(runtime, who, encounter_id, WRITERS, known=True)
    counted.ruleset = state.ruleset_id  # the ruleset that decides it, whatever the body's
    try:
        answer = runtime.encounters.command(
            encounter_id,
            actor(who),
            body.command,
            body.domain_command(),  # validated once: the body is the command
            expected_version=write.expected_version,
            client_seed=body.client_seed,
            hand_faces=body.hand_faces,
            hand=None if body.dice is None else body.dice == "hand",
            idempotency=write.idempotency,
            loaded=(state, at),  # no read: authorised and decided on the known state
        )
    except RefusedAfterDice as refused:
        counted.rolled(r.source for r in refused.answer.rolls)  # its dice are on the record
        raise
    except RuleViolation as refused:
        # The rules' message may quote a hidden target's numbers: judged like a log line, by
        # the log's state (the known one may lack a combatant joined in another process).
        state, _ = runtime.encounters.state(encounter_id)
        policy = Policy.for_reader(reader_of(who), state.combatants)
        # Both texts withhold alike: about a withheld combatant if either one names it.
        hidden = bool(policy.named_in([refused.detail, refused.ja or ""]))
        raise RuleViolation(
            refused.rule_id,
            policy.text(refused.detail, about_hidden=hidden),
            ja=None if refused.ja is None else policy.text(refused.ja, about_hidden=hidden),
        ) from None
    counted.rolled(r.source for r in answer.rolls)
    return answer


@router.post(
    "/v1/encounters/{encounter_id}/reveal",
    response_model=CommandAnswer,
    operation_id="revealEncounterSeed",
    summary="Reveal an encounter's dice seed",
)
def reveal(
    encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep, key: KeyDep, response: Response
) -> CommandAnswer:
    """The GM reveals the server seed: from now on anyone can recompute every die."""
    load_for(runtime, who, encounter_id, GM_ONLY)
    answer = runtime.encounters.reveal(encounter_id, actor(who), idempotency=key)
    return _answer(command_leaves(runtime, encounter_id, answer), response)


@router.get(
    "/v1/encounters/{encounter_id}/audit",
    response_model=EncounterAudit,
    operation_id="auditEncounterDice",
    summary="Recompute an encounter's dice after the reveal",
)
def audit(encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> EncounterAudit:
    """After the reveal: every die recomputed from the seed and checked against its record."""
    load_for(runtime, who, encounter_id, READERS)
    state, rolls, checks = runtime.encounters.audit(encounter_id)
    return EncounterAudit(
        id=str(encounter_id),
        commitment=state.commitment,
        revealed_seed=state.revealed_seed or "",
        all_verified=all(c.verified for c in checks),
        checks=[
            EncounterRollCheck(
                roll_seq=c.roll_seq,
                text=r.text,
                verified=c.verified,
                ok=c.ok,
                problems=list(c.problems),
                unverifiable=c.unverifiable,
            )
            for r, c in zip(rolls, checks, strict=True)
        ],
    )
