"""A roll log: free rolls at the table outside any encounter (a GM's secret roll, a chat roll).

It commits to its server seed when opened (sha256 of the seed) and can reveal the seed when
closed, after which anyone can recompute every die (docs/architecture.md, "Dice you can verify").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.aggregate import AggregateKind
from domain.dice import RollResult, Verification, verify_commitment
from domain.dice.bcdice import TableRoll, from_legacy, roll_by_hand, roll_server
from domain.dice.bcdice import verify as verify_roll
from domain.dice.bcdice.record import RefusedRoll
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


class KeptTable(BaseModel):
    """A campaign's kept dice table, by name and version (domain/campaign/dice_tables.py)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: int

    @property
    def shown(self) -> str:
        """As a roll's purpose names it in the log."""
        return f"表「{self.name}」v{self.version}"


class DiceRolled(DomainEvent):
    """v2: the roll in BCDice's language and shape (v1 held Senki's first notation's record)."""

    event_type = "DiceRolled"
    version = 2
    result: TableRoll
    # Rolled as secret by the request (a GM's hidden roll of any command), beside the command's
    # own BCDice `S` prefix, which its result records as `result.secret`.
    secret: bool = False
    # A kept table rolled by name: which one and which version (its text is `result.command`).
    # A default, so stored rolls read as they were: no kept table.
    table: KeptTable | None = None


class DiceRollRefused(DomainEvent):
    """A server roll refused after its dice were drawn (issue 33): those dice decided the
    refusal, so it uses up its roll sequence and keeps them, verifiable after the reveal."""

    event_type = "DiceRollRefused"
    result: TableRoll  # its text is REFUSED_TEXT then the reason; its rands the dice drawn
    reason: str
    secret: bool = False


class DiceSeedRevealed(DomainEvent):
    event_type = "DiceSeedRevealed"
    server_seed: str  # hex


registry.register(RollLogOpened, DiceRolled, DiceRollRefused, DiceSeedRevealed)


@registry.upcaster("DiceRolled", 1)
def _bcdice_shape(data: dict[str, object]) -> dict[str, object]:
    """A v1 roll in today's shape; it keeps its old record and is verified the old way."""
    old = RollResult.model_validate(data["result"])
    return data | {"result": from_legacy(old).model_dump(mode="json")}


class RollLogClosed(WrongState):
    """The seed is revealed: further dice would be predictable, so no more rolls."""


class RollLog(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: UUID
    name: str = ""
    commitment: str = ""
    campaign_id: UUID | None = None
    rolls: tuple[TableRoll, ...] = ()
    revealed_seed: str | None = None
    secret: bool = False
    secret_rolls: frozenset[int] = frozenset()  # roll sequences rolled as secret
    rolled_by: tuple[str, ...] = ()  # who rolled each roll, by roll sequence
    rolled_at: tuple[datetime, ...] = ()  # and when
    refused: dict[int, str] = Field(default_factory=dict)  # roll sequence → why refused
    # The kept table each such roll rolled, by sequence.
    kept_tables: dict[int, KeptTable] = Field(default_factory=dict)

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
            state = _recorded(state, result, secret=event.secret, by=event.by, at=event.at)
            if event.table is None:
                return state
            kept = state.kept_tables | {result.roll_seq: event.table}
            return state.model_copy(update={"kept_tables": kept})
        case DiceRollRefused(result=result, reason=reason):
            state = _recorded(state, result, secret=event.secret, by=event.by, at=event.at)
            return state.model_copy(update={"refused": state.refused | {result.roll_seq: reason}})
        case DiceSeedRevealed(server_seed=seed):
            return state.model_copy(update={"revealed_seed": seed})
    return state


def _recorded(state: RollLog, result: TableRoll, *, secret: bool, by: str, at: datetime) -> RollLog:
    secret_roll = secret or result.secret
    secret_rolls = state.secret_rolls | ({result.roll_seq} if secret_roll else set())
    return state.model_copy(
        update={
            "rolls": (*state.rolls, result),
            "secret_rolls": secret_rolls,
            "rolled_by": (*state.rolled_by, by),
            "rolled_at": (*state.rolled_at, at),
        }
    )


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
    hand_faces: Sequence[int] | None = None,
    system: str = "DiceBot",
    table: KeptTable | None = None,
) -> list[DomainEvent]:
    """Roll a BCDice command with the log's seed, or record physical dice typed in by hand;
    the roll sequence is the number of rolls so far. A server roll refused after drawing dice
    is recorded as refused (`DiceRollRefused`): what its dice decided is on the record."""
    if state.revealed_seed is not None:
        raise RollLogClosed(
            "this roll log's seed is revealed; open a new log to roll again",
            ja="このダイスログのシードは公開済みです。振るには新しいログを開いてください",
        )
    seq = len(state.rolls)
    if hand_faces is not None:
        result = roll_by_hand(expression, hand_faces, roll_seq=seq, purpose=purpose, system=system)
        return [DiceRolled(result=result, secret=secret, table=table, at=at, by=by)]
    try:
        result = roll_server(
            expression,
            server_seed=server_seed,
            stream_id=state.id,
            roll_seq=seq,
            purpose=purpose,
            client_seed=client_seed,
            system=system,
        )
    except RefusedRoll as refused:
        return [
            DiceRollRefused(result=refused.roll, reason=refused.reason, secret=secret, at=at, by=by)
        ]
    return [DiceRolled(result=result, secret=secret, table=table, at=at, by=by)]


def reveal(state: RollLog, server_seed: bytes, *, at: datetime, by: str) -> list[DomainEvent]:
    if state.revealed_seed is not None:
        return []  # revealing twice changes nothing
    return [DiceSeedRevealed(server_seed=server_seed.hex(), at=at, by=by)]


def audit(state: RollLog) -> list[Verification]:
    """Recompute every roll from the revealed seed (after checking it matches the commitment)."""
    if state.revealed_seed is None:
        raise RollLogClosed(
            "the seed is not revealed yet: reveal it before verifying",
            ja="シードはまだ公開されていません。検証の前に公開してください",
        )
    seed = bytes.fromhex(state.revealed_seed)
    if not verify_commitment(seed, state.commitment):
        raise ValueError("the revealed seed does not match the commitment made at opening")
    return [verify_roll(result, server_seed=seed, stream_id=state.id) for result in state.rolls]
