"""One decision in progress: the events so far, and the state they lead to.

A WZ command often runs on through automatic phases (an inning's end opens the next; the
end phase opens the next round, its combat start and its fatigue), each of which needs
the state the earlier events leave, so each event is applied as soon as it is decided; the
state reached is handed back with the events (`Decided`), so no one evolves them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.events import DomainEvent
from domain.rules.outcome import Decision
from domain.rules.records import Dice, EncounterDiceRolled, RulingRecorded
from domain.rules.ruleset import CommandContext
from domain.rules.wizardry_round.evolve import evolve
from domain.rules.wizardry_round.state import WzState


@dataclass
class Run:
    """The state, the dice and the events of one command being decided."""

    state: WzState
    dice: Dice
    ctx: CommandContext
    events: list[DomainEvent] = field(default_factory=list)

    def emit(self, cls: type[DomainEvent], **fields: object) -> None:
        """Decide a fact (stamped with who and when) and apply it at once."""
        self._add(cls.stamped(fields, at=self.ctx.at, by=self.ctx.by))

    def rule(self, decision: Decision, *, cites: tuple[int, ...] = ()) -> tuple[int, ...]:
        """Record the dice drawn so far, then the ruling; returns the dice it cites."""
        seqs: tuple[int, ...] = ()
        for event in self.dice.ruling(decision, cites=cites):
            if isinstance(event, RulingRecorded):
                seqs = event.roll_seqs
            self._add(event)
        return seqs

    def draw(self, sides: int, purpose: str) -> int:
        """One die, recorded before the next ruling."""
        return self.dice.draw(sides, purpose)

    def _add(self, event: DomainEvent) -> None:
        self.events.append(event)
        if not isinstance(event, EncounterDiceRolled):
            self.state = evolve(self.state, event)
