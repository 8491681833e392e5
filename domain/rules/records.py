"""Facts every ruleset records — dice, rulings, the end of a fight — and the `Dice` they come from.

No outcome from an unrecorded die (docs/architecture.md, "Dice you can verify"): `Dice.draw`
rolls one die and holds its `EncounterDiceRolled`; `Dice.ruling` releases the dice drawn so
far, then the ruling that cites them by roll sequence, so a die always precedes the ruling it
decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.dice import DiceEntryError, RollResult, enter_by_hand, roll
from domain.events import DomainEvent, registry
from domain.rules.outcome import Decision, Scalar, Value


class EncounterDiceRolled(DomainEvent):
    """One roll of the encounter's dice (server or entered by hand), faces included; `by` is
    who issued the command, `entered_by` who typed in a hand die's face (issue 33 §3)."""

    event_type = "EncounterDiceRolled"
    version = 2
    result: RollResult
    entered_by: str | None = Field(
        default=None,
        description="Who entered this hand die's face; None for a server die, and for a hand "
        "die recorded before v2 (who entered it was not recorded then).",
    )


class RulingRecorded(DomainEvent):
    """A ruling: the rules applied, their inputs and outcome, the dice used, the options read."""

    event_type = "RulingRecorded"
    rule_ids: tuple[str, ...]
    inputs: dict[str, Value]
    outcome: dict[str, Value]
    roll_seqs: tuple[int, ...] = ()
    options: dict[str, Scalar] = Field(default_factory=dict)
    summary_en: str
    summary_ja: str


class EncounterEnded(DomainEvent):
    """The fight is over (GD-END and its kin); the rule that ended it is in the ruling before."""

    event_type = "EncounterEnded"
    rule_id: str
    reason: str


class CommandRefusedAfterDice(DomainEvent):
    """A command refused after it drew server dice (issue 33 §1): those dice may have decided
    the refusal, so they are recorded just before this fact (their sequences used up, each
    verifiable after the reveal) and it cites them. Nothing else the command decided is kept.
    It quotes no value a die produced: the rule that refused and a fixed sentence say it all
    (the command, recorded before it, replays to the same refusal for whoever may see why)."""

    event_type = "CommandRefusedAfterDice"
    command_type: str
    rule_id: str | None = Field(
        description="The rule that refused the command; None for a refusal no game rule makes "
        "(the command does not fit the state, its issuer may not, a die entry is wrong)."
    )
    roll_seqs: tuple[int, ...]


REFUSED_AFTER_DICE = (
    "{command} was refused after its dice were drawn; the dice and the refusal are on the "
    "record, verifiable once the seed is revealed",
    "{command}はダイスを振った後に却下された。ダイスと却下は記録され、シード公開後に検証できる",
)


def refusal_line(command_type: str, rule_id: str | None) -> tuple[str, str]:
    """The refusal in words, English and Japanese: the rule and a fixed sentence, no number a
    die gave (issue 33 §1: a refusal never quotes a computed value)."""
    en, ja = (text.format(command=command_type) for text in REFUSED_AFTER_DICE)
    if rule_id is None:
        return en, ja
    return f"{rule_id}: {en}", f"{rule_id}：{ja}"


registry.register(EncounterDiceRolled, RulingRecorded, EncounterEnded, CommandRefusedAfterDice)


@registry.upcaster("EncounterDiceRolled", 1)
def _enterer_unrecorded(data: dict[str, object]) -> dict[str, object]:
    """A v1 die: who entered a hand face was not recorded."""
    return data | {"entered_by": None}


# Facts that no ruleset's own state holds (the Encounter only counts them): most events of a
# command are these, so each ruleset's evolve returns at once for them instead of trying
# them against every one of its cases.
COUNTED_ONLY: frozenset[type[DomainEvent]] = frozenset(
    {EncounterDiceRolled, RulingRecorded, CommandRefusedAfterDice}
)


class DiceSource(BaseModel):
    """Where the next dice come from: the encounter's seed, or faces the GM typed in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stream_id: UUID
    next_roll_seq: int
    server_seed: bytes | None = None
    client_seed: str | None = None
    hand_faces: tuple[int, ...] | None = None
    # Who entered each of `hand_faces`, in order (None, or missing: not recorded).
    entered_by: tuple[str | None, ...] = ()
    # How many of `hand_faces` came with the command itself (the rest answer awaited dice):
    # they are for its own resolution only, never for a step that then runs by itself.
    own_faces: int = 0
    # Hand dice asked for one at a time (issue 19): when the faces given run out, the draw
    # signals `DieAwaited` instead of refusing, and the Encounter records what it waits for.
    await_hand: bool = False
    why_no_server_dice: str = "give the server seed or enter the faces by hand"


class DieAwaited(Exception):  # a signal, not an error: the decision waits for a die
    """The rules need a die nobody has entered yet: 1D`sides` for `purpose` (a rule ID first).

    Raised by `Dice.draw` in hand mode; the Encounter catches it, records the command as
    pending with the faces entered so far, and asks for this die. Deciding is deterministic,
    so the command is simply decided again once the face is entered."""

    def __init__(
        self,
        sides: int,
        purpose: str,
        entered: tuple[int, ...],
        entered_by: tuple[str | None, ...] = (),
    ) -> None:
        super().__init__(f"1D{sides} for {purpose} is awaited")
        self.sides = sides
        self.purpose = purpose
        self.entered = entered
        self.entered_by = entered_by


# Refuses a hand face its sender may not enter: (the face's index among those entered, the
# die's sides, its purpose). The Encounter knows whose each die is (domain/encounter).
HandGate = Callable[[int, int, str], None]


class Dice:
    """The dice of one decision: each die drawn becomes a recorded roll before any ruling."""

    def __init__(
        self, source: DiceSource, *, by: str, at: datetime, gate: HandGate | None = None
    ) -> None:
        self._source = source
        self._gate = gate
        self._seq = source.next_roll_seq
        self._faces = list(source.hand_faces) if source.hand_faces is not None else None
        if self._faces is None and source.await_hand:
            self._faces = []
        self._held: list[EncounterDiceRolled] = []
        # Every die this decision drew, kept when a ruling releases it: a refusal after a
        # server die records them all (`refused_after_dice`).
        self._drawn: list[EncounterDiceRolled] = []
        self._by = by
        self._at = at
        self._by_itself = False

    def draw(self, sides: int, purpose: str) -> int:
        """Roll 1D`sides` for `purpose` (a rule ID); a `Draw` for the GD calculators."""
        expression = f"1D{sides}"
        hand = self._faces or not self._by_itself or self._source.await_hand
        if self._faces is not None and hand:
            if not self._faces and self._source.await_hand:
                source = self._source
                raise DieAwaited(sides, purpose, source.hand_faces or (), source.entered_by)
            if not self._faces:
                raise DiceEntryError(f"{purpose}: one more die face is needed (a 1D{sides})")
            entered_by = self._entered_by(sides, purpose)
            result = enter_by_hand(
                expression, [self._faces.pop(0)], roll_seq=self._seq, purpose=purpose
            )
        elif self._source.server_seed is not None:
            entered_by = None
            result = roll(
                expression,
                server_seed=self._source.server_seed,
                stream_id=self._source.stream_id,
                roll_seq=self._seq,
                purpose=purpose,
                client_seed=self._source.client_seed,
            )
        else:
            raise DiceEntryError(f"{purpose} needs a 1D{sides}: {self._source.why_no_server_dice}")
        self._record(
            EncounterDiceRolled.stamped(
                {"result": result, "entered_by": entered_by}, at=self._at, by=self._by
            )
        )
        return result.total

    def _record(self, rolled: EncounterDiceRolled) -> None:
        """Hold a die drawn until a ruling releases it, and keep it for a refusal."""
        self._seq += 1
        self._held.append(rolled)
        self._drawn.append(rolled)

    @property
    def drew_server_dice(self) -> bool:
        """Whether a die from the seed was drawn: the answer may then depend on it, so a
        refusal must be recorded with it (entered faces came with the request itself)."""
        return any(e.result.source == "server" for e in self._drawn)

    def refused_after_dice(self, command_type: str, rule_id: str | None) -> list[DomainEvent]:
        """Every die this decision drew, then the refusal that cites them (issue 33 §1)."""
        drawn, self._held = list(self._drawn), []
        refused = CommandRefusedAfterDice.stamped(
            {
                "command_type": command_type,
                "rule_id": rule_id,
                "roll_seqs": tuple(e.result.roll_seq for e in drawn),
            },
            at=self._at,
            by=self._by,
        )
        return [*drawn, refused]

    def _entered_by(self, sides: int, purpose: str) -> str | None:
        """Who entered the next hand face, once the gate lets it go to this die."""
        assert self._faces is not None
        assert self._source.hand_faces is not None
        index = len(self._source.hand_faces) - len(self._faces)
        if self._gate is not None:
            self._gate(index, sides, purpose)
        known = self._source.entered_by
        return known[index] if index < len(known) else None

    def runs_by_itself(self) -> None:
        """The command's own resolution is over; what follows is a step no one chooses (a
        fainted character's cleanup, issue 35 §6). It takes none of the command's faces, which
        must all have been used by now: it uses the encounter's dice (a server die, or a hand
        die awaited)."""
        used = len(self._source.hand_faces or ()) - len(self._faces or ())
        left = self._source.own_faces - used
        if left > 0:
            raise DiceEntryError(
                f"{left} die faces were entered but not needed: a command carries the faces of "
                "its own resolution only"
            )
        self._by_itself = True

    @property
    def last_roll_seq(self) -> int:
        """The roll sequence of the die drawn last (for a ruling that reuses it later)."""
        return self._seq - 1

    def ruling(self, decision: Decision, *, cites: tuple[int, ...] = ()) -> list[DomainEvent]:
        """The dice drawn since the last ruling, then the ruling that cites them.

        `cites` names dice recorded by earlier rulings that this one also uses (the one hit
        roll of an area attack, GD-REACT-6).
        """
        held, self._held = self._held, []
        ruling = RulingRecorded.stamped(
            {
                "rule_ids": decision.rule_ids,
                "inputs": decision.inputs,
                "outcome": decision.outcome,
                "roll_seqs": (*cites, *(e.result.roll_seq for e in held)),
                "options": decision.options,
                "summary_en": decision.summary_en,
                "summary_ja": decision.summary_ja,
            },
            at=self._at,
            by=self._by,
        )
        return [*held, ruling]

    def check_settled(self) -> None:
        """After a decision: every die went to a ruling and every hand-entered face was used."""
        if self._held:
            raise RuntimeError(f"{len(self._held)} dice were drawn but no ruling used them")
        if self._faces:
            raise DiceEntryError(f"{len(self._faces)} die faces were entered but not needed")


def roll_seqs(events: Sequence[DomainEvent]) -> list[int]:
    """The roll sequences recorded in `events`, in order."""
    return [e.result.roll_seq for e in events if isinstance(e, EncounterDiceRolled)]
