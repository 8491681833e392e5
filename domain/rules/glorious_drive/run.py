"""One decision in progress: the events so far, and the state they lead to.

Deciding a command often needs the state its own first events leave (HP after the guard
cost, the order after a delay), so each event is applied as soon as it is decided; the
state reached is handed back with the events (`Decided`), so no one evolves them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.events import DomainEvent
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.draws import Draw
from domain.rules.glorious_drive.evolve import evolve
from domain.rules.glorious_drive.state import GdState
from domain.rules.outcome import Decision
from domain.rules.records import Dice
from domain.rules.ruleset import CommandContext


@dataclass
class Run:
    """The state, the dice and the events of one command being decided."""

    state: GdState
    dice: Dice
    ctx: CommandContext
    events: list[DomainEvent] = field(default_factory=list)

    def emit(self, cls: type[DomainEvent], **fields: object) -> None:
        """Decide a fact (stamped with who and when) and apply it at once."""
        self._add(cls.stamped(fields, at=self.ctx.at, by=self.ctx.by))

    def rule(self, decision: Decision, *, cites: tuple[int, ...] = ()) -> None:
        """Record the dice drawn so far, then the ruling that used them."""
        for event in self.dice.ruling(decision, cites=cites):
            self._add(event)

    def draw(self, sides: int, purpose: str) -> int:
        """A `Draw` for the calculators: the die is recorded before the next ruling."""
        return self.dice.draw(sides, purpose)

    def draw_for(self, combatant: str) -> Draw:
        """A `Draw` whose dice name `combatant`: whose die it is, when it is not the command's
        own combatant's (a fainted character's cleanup, a defender hit at once)."""
        return lambda sides, purpose: self.dice.draw(sides, f"{purpose} {combatant}")

    def end_main_action(self, combatant: str) -> None:
        """GD-MAIN: the phase of `combatant` ends; after the last one, the turn ends."""
        self.emit(ev.MainActionEnded, combatant=combatant)
        self.close_turn_if_done()

    def close_turn_if_done(self) -> None:
        """GD-TURN-1 phase 3: no one is left to act this turn."""
        if self.state.phase == "main_action" and self.state.acting is None:
            self.emit(ev.TurnEnded, turn=self.state.turn)

    def _add(self, event: DomainEvent) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)
