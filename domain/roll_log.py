"""A roll log: free rolls at the table outside any encounter (a GM's secret roll, a chat roll).

It commits to its server seed when opened (sha256 of the seed) and can reveal the seed when
closed, after which anyone can recompute every die (DESIGN.md, "Dice you can verify").
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.aggregate import AggregateKind
from domain.dice import RollResult, Verification, roll, verify, verify_commitment
from domain.errors import WrongState
from domain.events import DomainEvent, registry


class RollLogOpened(DomainEvent):
    event_type = "RollLogOpened"
    name: str
    commitment: str
    # The campaign whose members may read it; absent for a free-standing log. Added with a
    # default, so the stored v1 shape still reads unchanged.
    campaign_id: UUID | None = None
    # A GM's secret log (GM秘匿): its faces are shown to the GM alone until the seed is
    # revealed (docs/visibility.md). A default, so stored logs read as they were: not secret.
    secret: bool = False


class DiceRolled(DomainEvent):
    event_type = "DiceRolled"
    result: RollResult
    # This roll alone is secret (BCDice's `S` prefix); defaulted like `secret` above.
    secret: bool = False


class DiceSeedRevealed(DomainEvent):
    event_type = "DiceSeedRevealed"
    server_seed: str  # hex


registry.register(RollLogOpened, DiceRolled, DiceSeedRevealed)


class RollLogClosed(WrongState):
    """The seed is revealed: further dice would be predictable, so no more rolls."""


class RollLog(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: UUID
    name: str = ""
    commitment: str = ""
    campaign_id: UUID | None = None
    rolls: tuple[RollResult, ...] = ()
    revealed_seed: str | None = None
    secret: bool = False
    secret_rolls: frozenset[int] = frozenset()  # roll sequences rolled as secret
    rolled_by: tuple[str, ...] = ()  # who rolled each roll, by roll sequence

    def is_secret(self, roll_seq: int) -> bool:
        return self.secret or roll_seq in self.secret_rolls

    @property
    def opened(self) -> bool:
        return bool(self.commitment)


def evolve(state: RollLog, event: DomainEvent) -> RollLog:
    match event:
        case RollLogOpened(name=name, commitment=commitment, campaign_id=campaign_id):
            return state.model_copy(
                update={
                    "name": name,
                    "commitment": commitment,
                    "campaign_id": campaign_id,
                    "secret": event.secret,
                }
            )
        case DiceRolled(result=result):
            secret = state.secret_rolls | ({result.roll_seq} if event.secret else set())
            return state.model_copy(
                update={
                    "rolls": (*state.rolls, result),
                    "secret_rolls": secret,
                    "rolled_by": (*state.rolled_by, event.by),
                }
            )
        case DiceSeedRevealed(server_seed=seed):
            return state.model_copy(update={"revealed_seed": seed})
    return state


KIND = AggregateKind[RollLog]("roll_log", lambda i: RollLog(id=i), evolve, lambda s: s.opened)


def open_log(
    name: str,
    commitment: str,
    *,
    at: datetime,
    by: str,
    campaign_id: UUID | None = None,
    secret: bool = False,
) -> list[DomainEvent]:
    return [
        RollLogOpened(
            name=name, commitment=commitment, campaign_id=campaign_id, secret=secret, at=at, by=by
        )
    ]


def roll_dice(
    state: RollLog,
    expression: str,
    *,
    server_seed: bytes,
    client_seed: str | None,
    purpose: str,
    at: datetime,
    by: str,
    secret: bool = False,
) -> list[DomainEvent]:
    """Roll with the log's seed; the roll sequence is the number of rolls so far."""
    if state.revealed_seed is not None:
        raise RollLogClosed("this roll log's seed is revealed; open a new log to roll again")
    result = roll(
        expression,
        server_seed=server_seed,
        stream_id=state.id,
        roll_seq=len(state.rolls),
        purpose=purpose,
        client_seed=client_seed,
    )
    # A secret roll by the notation (BCDice `S`, once the parser says so) or by the request.
    secret = secret or bool(getattr(result, "secret", False))
    return [DiceRolled(result=result, secret=secret, at=at, by=by)]


def reveal(state: RollLog, server_seed: bytes, *, at: datetime, by: str) -> list[DomainEvent]:
    if state.revealed_seed is not None:
        return []  # revealing twice changes nothing
    return [DiceSeedRevealed(server_seed=server_seed.hex(), at=at, by=by)]


def audit(state: RollLog) -> list[Verification]:
    """Recompute every roll from the revealed seed (after checking it matches the commitment)."""
    if state.revealed_seed is None:
        raise RollLogClosed("the seed is not revealed yet: reveal it before verifying")
    seed = bytes.fromhex(state.revealed_seed)
    if not verify_commitment(seed, state.commitment):
        raise ValueError("the revealed seed does not match the commitment made at opening")
    return [verify(result, server_seed=seed, stream_id=state.id) for result in state.rolls]
