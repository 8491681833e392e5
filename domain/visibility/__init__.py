"""What each reader may see: the one redaction policy every read surface goes through.

See docs/visibility.md for the decisions; `encounter` covers a fight (hidden combatants),
`rolls` a roll log's secret rolls.
"""

from domain.visibility.encounter import Policy, Reader
from domain.visibility.rolls import RollView, roll_view

__all__ = ["Policy", "Reader", "RollView", "roll_view"]
