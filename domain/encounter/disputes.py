"""Disputes: a ruling is challenged, then upheld or amended — history is never rewritten.

An amendment appends the replay's differences as `CombatantCorrected` facts linked to the
dispute (HP, injuries, statuses…): the original ruling stays in the log, the correction beside
it, and the encounter's state follows the correction from then on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from domain.encounter.dispute_events import (
    CORRECTABLE,
    CombatantCorrected,
    DisputeAmended,
    DisputeUpheld,
    RulingDisputed,
)
from domain.encounter.replay import Amendment, ReplayResult
from domain.encounter.state import Encounter
from domain.errors import NotPermitted, WrongState
from domain.events import DomainEvent, JsonObject
from domain.rules.records import RulingRecorded


def file_dispute(
    state: Encounter,
    events: Sequence[DomainEvent],
    ruling_version: int,
    reason: str,
    dispute_id: str,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """Any member who can see the ruling may dispute it, with a reason."""
    if not 1 <= ruling_version <= len(events) or not isinstance(
        events[ruling_version - 1], RulingRecorded
    ):
        raise WrongState(
            f"version {ruling_version} of this encounter is not a ruling",
            ja=f"この戦闘のバージョン {ruling_version} は裁定ではありません",
        )
    if any(
        d.ruling_version == ruling_version and d.status == "open" for d in state.disputes.values()
    ):
        raise WrongState(
            f"the ruling at version {ruling_version} is already under dispute",
            ja=f"バージョン {ruling_version} の裁定にはすでに異議が出ています",
        )
    return [
        RulingDisputed(
            dispute_id=dispute_id, ruling_version=ruling_version, reason=reason, at=at, by=by
        )
    ]


def uphold(
    state: Encounter, dispute_id: str, note: str, *, is_gm: bool, at: datetime, by: str
) -> list[DomainEvent]:
    """The GM keeps the ruling as it stands."""
    _open_dispute(state, dispute_id, is_gm)
    return [DisputeUpheld(dispute_id=dispute_id, note=note, at=at, by=by)]


def amend(
    state: Encounter,
    dispute_id: str,
    result: ReplayResult,
    note: str,
    *,
    amendment: Amendment | None,
    options: JsonObject,
    is_gm: bool,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """The GM adopts a replay: its per-combatant differences become corrections."""
    _open_dispute(state, dispute_id, is_gm)
    if not result.complete:
        raise WrongState(
            f"the replay is incomplete ({result.missing}); reveal the seed first",
            ja=f"再計算が完全ではありません（{result.missing}）。先にシードを公開してください",
        )
    adopted = DisputeAmended(
        dispute_id=dispute_id,
        note=note,
        options=options,
        amended_command=amendment.command if amendment else None,
        amended_payload=amendment.payload if amendment else None,
        divergence_version=result.divergence.version if result.divergence else None,
        extra_dice=[dict(d) for d in result.extra_dice],
        at=at,
        by=by,
    )
    corrections: list[DomainEvent] = []
    for combatant, fields in result.differences.items():
        changed = {k: v for k, v in fields.items() if k in CORRECTABLE}
        if changed:
            corrections.append(
                CombatantCorrected(
                    dispute_id=dispute_id,
                    combatant_id=combatant,
                    changes={k: v["replay"] for k, v in changed.items()},
                    previous={k: v["original"] for k, v in changed.items()},
                    at=at,
                    by=by,
                )
            )
    return [adopted, *corrections]


def _open_dispute(state: Encounter, dispute_id: str, is_gm: bool) -> None:
    if not is_gm:
        raise NotPermitted("only the GM settles a dispute", ja="異議を裁定するのはGMだけです")
    dispute = state.disputes.get(dispute_id)
    if dispute is None:
        raise WrongState(
            f"no dispute {dispute_id} in this encounter",
            ja=f"この戦闘に異議 {dispute_id} はありません",
        )
    if dispute.status != "open":
        raise WrongState(
            f"dispute {dispute_id} is already {dispute.status}",
            ja=f"異議 {dispute_id} はすでに {dispute.status} です",
        )
