"""High Roll's lines in the encounter log, in English and Japanese."""

from __future__ import annotations

from domain.events import DomainEvent
from domain.rules.log import LogLines, field
from domain.rules.ruleset import LogLine

LOG = LogLines("hr.")


@LOG.renders("hr.Rolled")
def _rolled(event: DomainEvent) -> LogLine:
    who, total = field(event, "combatant"), field(event, "total")
    return f"{who} rolled {total} (HR-1)", f"{who}が{total}を出した（HR-1）"
