"""One decision in progress: the events so far, and the state they lead to.

Deciding a command often needs the state its own first events leave (the move interrupted
before the attack is declared), so each event is applied as soon as it is decided; the
state reached is handed back with the events (`Decided`), so no one evolves them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.events import DomainEvent
from domain.rules.armor_knights.evolve import evolve
from domain.rules.armor_knights.state import AkState
from domain.rules.outcome import Decision
from domain.rules.records import Dice
from domain.rules.ruleset import CommandContext

Said = tuple[str, str]  # (summary_en, summary_ja)


@dataclass
class Run:
    """The state, the dice and the events of one command being decided."""

    state: AkState
    dice: Dice
    ctx: CommandContext
    events: list[DomainEvent] = field(default_factory=list)

    def emit(self, cls: type[DomainEvent], said: Said, **fields: object) -> None:
        """Decide a fact (stamped with who and when, told in English and Japanese); apply it."""
        en, ja = said
        told = {**fields, "summary_en": en, "summary_ja": ja}
        self._add(cls.stamped(told, at=self.ctx.at, by=self.ctx.by))

    def emit_plain(self, cls: type[DomainEvent], **fields: object) -> None:
        """A shared fact without summaries of its own (EncounterEnded: its ruling says why)."""
        self._add(cls.stamped(fields, at=self.ctx.at, by=self.ctx.by))

    def rule(self, decision: Decision) -> None:
        """Record the dice drawn so far, then the ruling that used them."""
        for event in self.dice.ruling(decision):
            self._add(event)

    def draw(self, sides: int, purpose: str) -> int:
        return self.dice.draw(sides, purpose)

    def _add(self, event: DomainEvent) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)
