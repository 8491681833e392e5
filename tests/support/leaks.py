"""Looking for a hidden number in what a reader was shown.

A plain substring test misfires: an encounter's public commitment, ids and timestamps are
random hex and digits, and now and then one of them holds a hidden HP's digits by chance.
CI saw it once (`"321" in str(payload)` on an EncounterOpened's commitment); looping that API
test here, one fight in 52 did it. A number shown to a reader stands on its own, between
characters that are not letters or digits: `321`, `HP 321`, `"hp": 321`, `321/400`.
"""

from __future__ import annotations

import json
import re
from typing import Any


def shows_number(shown: Any, number: int) -> bool:
    """Whether `number` appears as a number of its own in `shown` (text, or JSON values)."""
    text = shown if isinstance(shown, str) else json.dumps(shown, ensure_ascii=False)
    return re.search(rf"(?<![0-9A-Za-z]){number}(?![0-9A-Za-z])", text) is not None
