"""What a reader may see of an encounter in which the GM keeps combatants hidden (pure).

One policy for every read surface (state, events, the live stream, log lines, rulings, the
audit trail, replays and their differences, time travel): see docs/visibility.md.

A hidden combatant is withheld from every reader but the GM and its own controller. What is
withheld: its sheet, and every number that is its own or derived from it (HP, stats, armour,
points, the damage it took, the defence a ruling read off its sheet). What stays: that it is
there and what the table sees it do — its id, name, side, position, injury, statuses, the
order, which weapon it fired, whether a shot hit.

Records are judged by the *command* that produced them: a command and every event it caused
form one block, and a block that names a hidden combatant anywhere (the command's payload,
a ruling's inputs, a fact) is about it as a whole — a GD damage ruling names nobody, but its
command (`TakeHit grunt`) and its fact (`DamageApplied grunt`) do. Inside such a block, a
part owned by a visible combatant (one roll of an initiative ruling, a player's own check
against a hidden monster) keeps its values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import JsonValue

# Keys that say whom a part of a record is about (every ruleset's spelling).
SUBJECT_KEYS = frozenset(
    {
        "id",
        "combatant",
        "combatant_id",
        "unit",
        "unit_id",
        "attacker",
        "defender",
        "defenders",
        "target",
        "targets",
        "instead_of",
        "opponent",
        "winner",
    }
)
# The keys that name whose values a part holds (the rest — a target, a defender — name whom
# it was done to): a part owned by a visible combatant keeps its values.
OWNER_KEYS = frozenset({"id", "combatant", "combatant_id", "unit", "unit_id", "attacker"})
# What the table sees of a hidden combatant: shown as recorded even in a block about it.
SHOWN_KEYS = SUBJECT_KEYS | {
    "type",
    "event_type",
    "command_type",
    "name",
    "side",
    "controller",
    "hidden",
    "position",
    "cell",
    "path",
    "f_steps",
    "m_steps",
    "band",
    "entry_band",
    "axis",
    "injury",
    "statuses",
    "status",
    "reaction",
    "kind",
    "form",
    "weapon",
    "order",
    "turn",
    "round",
    "phase",
    "step",
    "rule_id",
    "rule_ids",
    "roll_seq",
    "roll_seqs",
    "version",
    "dispute_id",
    "ruling_version",
    "subjects",
    # The encounter's dice are public: each die is what makes a ruling checkable, and a die
    # is drawn from the committed seed, not read off a sheet (docs/visibility.md).
    "result",
    "dice",
}
# The numbers among those that count the fight, not a combatant: a lone number under any other
# shown key is withheld (GD's `reaction` names a reaction kind in one event and is the stat
# in the initiative ruling).
COUNTERS = frozenset({"turn", "round", "roll_seq", "version", "ruling_version", "step"})
# Never shown of a hidden combatant, whatever holds it.
SHEET_KEYS = frozenset({"sheet"})
# What the board shows of a hidden combatant's live state (GET /v1/encounters/{id}).
STATE_KEYS = frozenset({"position", "cell", "injury", "statuses", "shot_down", "surrendered"})

WITHHELD_TEXT = "…"
# Rule IDs (GD-DMG-1, WZ-3) and dice (1D100) are kept; any other number in a text about a
# hidden combatant is withheld (its HP, its defence, the damage it took).
_NUMBERS = re.compile(r"[A-Z]{2,}(?:-[A-Z]+)*-\d+|\d*D\d+|\d+")


class Joined(Protocol):
    """A combatant as it joined (domain.rules.ruleset.Entrant has these)."""

    @property
    def combatant_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def controller(self) -> str: ...
    @property
    def hidden(self) -> bool: ...


@dataclass(frozen=True)
class Reader:
    """Who reads: the role of their token and, for a member, who they are."""

    role: str  # gm | player | viewer | site
    member_id: str | None = None

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"

    def controls(self, controller: str) -> bool:
        return self.member_id is not None and self.member_id == controller


@dataclass(frozen=True)
class Policy:
    """What one reader may see of one encounter: the combatants withheld from them."""

    hidden: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()  # their ids and names, as a text would spell them
    _pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def for_reader(cls, reader: Reader, combatants: Iterable[Joined]) -> Policy:
        """The GM sees everything; anyone else not what a hidden combatant is made of,
        unless they control it."""
        if reader.is_gm:
            return cls()
        withheld = [c for c in combatants if c.hidden and not reader.controls(c.controller)]
        return cls.of(withheld)

    @classmethod
    def of(cls, withheld: Iterable[Joined]) -> Policy:
        found = list(withheld)
        names = frozenset(n for c in found for n in (c.combatant_id, c.name) if n)
        pattern = (
            re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
            if names
            else None
        )
        return cls(frozenset(c.combatant_id for c in found), names, pattern)

    def __or__(self, other: Policy) -> Policy:
        """Withhold what either withholds (a replay: the original's and the amended join's)."""
        if not other.hidden:
            return self
        if not self.hidden:
            return other
        merged = Policy(self.hidden | other.hidden, self.names | other.names)
        names = sorted(merged.names, key=len, reverse=True)
        return Policy(merged.hidden, merged.names, re.compile("|".join(map(re.escape, names))))

    @property
    def sees_all(self) -> bool:
        return not self.hidden

    def shows(self, combatant_id: str) -> bool:
        return combatant_id not in self.hidden

    # --- what names a hidden combatant -------------------------------------------------

    def named_in(self, value: object) -> frozenset[str]:
        """The withheld combatants a JSON value names: as a string or in a text. (A value
        keyed by one — `totals: {blue: 9}` — is withheld where it stands, so a key alone
        does not make the whole record about it.)"""
        if self.sees_all:
            return frozenset()
        found: set[str] = set()
        self._collect(value, found)
        return frozenset(found)

    def _collect(self, value: object, found: set[str]) -> None:
        if isinstance(value, str):
            if value in self.hidden:
                found.add(value)
            elif self._pattern is not None and self._pattern.search(value):
                found.update(self.hidden)  # a text naming one: treat it as naming them all
        elif isinstance(value, Mapping):
            for item in value.values():
                self._collect(item, found)
        elif isinstance(value, list | tuple):
            for item in value:
                self._collect(item, found)

    # --- redaction -----------------------------------------------------------------------

    def record(self, value: JsonValue, *, about_hidden: bool | None = None) -> JsonValue:
        """One record as this reader may see it (an event's payload, a ruling, a replayed
        outcome). `about_hidden`: whether its block names a withheld combatant (None: judge
        the record alone)."""
        if self.sees_all:
            return value
        about = bool(self.named_in(value)) if about_hidden is None else about_hidden
        return self._scrub(value, about)

    def text(self, text: str, *, about_hidden: bool | None = None) -> str:
        """A readable line: its numbers withheld when it is about a withheld combatant."""
        if self.sees_all:
            return text
        about = self._names_in_text(text) if about_hidden is None else about_hidden
        return _withhold_numbers(text) if about else text

    def state(self, combatant_id: str, status: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        """A combatant's live state: a withheld one shows only what the board shows."""
        if self.shows(combatant_id):
            return dict(status)
        return {k: v for k, v in status.items() if k in STATE_KEYS}

    def _names_in_text(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None

    def _scrub(self, value: JsonValue, about: bool) -> JsonValue:
        if isinstance(value, dict):
            return self._scrub_object(value, about)
        if isinstance(value, list):
            return [self._scrub(item, about) for item in value]
        if isinstance(value, str):
            return _withhold_numbers(value) if about else value
        if about and _is_number(value):
            return None
        return value

    def _scrub_object(self, value: dict[str, JsonValue], about: bool) -> dict[str, JsonValue]:
        owners, subjects = _owners(value), _subjects(value, SUBJECT_KEYS)
        if owners and not owners & self.hidden:
            about = False  # a visible combatant's own values (its roll, its attack) stay
        elif subjects & self.hidden:
            about = True
        shown: dict[str, JsonValue] = {}
        for key, item in value.items():
            if key in self.hidden:
                shown[key] = self._scrub(item, True)  # a value keyed by a withheld combatant
            elif about and key in SHEET_KEYS:
                shown[key] = None
            elif about and key in SHOWN_KEYS and (key in COUNTERS or not _is_number(item)):
                shown[key] = item
            else:
                shown[key] = self._scrub(item, about)
        return shown


def _is_number(value: JsonValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _owners(value: Mapping[str, JsonValue]) -> frozenset[str]:
    """Whose values a part holds: its own owner keys, or for a ruling those of its inputs
    (a WZ check names its roller in the inputs; the total it rolled is in the outcome)."""
    owners = _subjects(value, OWNER_KEYS)
    inputs = value.get("inputs")
    if not owners and isinstance(inputs, dict):
        owners = _subjects(inputs, OWNER_KEYS)
    return owners


def _subjects(value: Mapping[str, JsonValue], keys: frozenset[str]) -> frozenset[str]:
    found: set[str] = set()
    for key in keys & value.keys():
        item = value[key]
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, list):
            found.update(i for i in item if isinstance(i, str))
    return frozenset(found)


def _withhold_numbers(text: str) -> str:
    return _NUMBERS.sub(lambda m: m.group() if not m.group().isdigit() else WITHHELD_TEXT, text)


@dataclass
class Blocks:
    """Which versions of an encounter's stream belong to a command block naming a hidden
    combatant: fed every event in order (as JSON), it answers per version and per reader.

    `everyone` withholds every hidden combatant (the policy of a reader who controls none),
    so one fold serves every reader. A block is one `CommandIssued` and the events it caused,
    all written in one transaction: a block is whole whenever a reader sees any of it."""

    everyone: Policy
    fed: int = 0  # the last version fed
    _block: list[int] = field(default_factory=list)
    _block_names: set[str] = field(default_factory=set)
    _names: dict[int, frozenset[str]] = field(default_factory=dict)

    def feed(self, version: int, event_type: str, payload: JsonValue) -> None:
        if event_type == "CommandIssued":
            self._block, self._block_names = [], set()
        self._block.append(version)
        self._block_names |= self.everyone.named_in(payload)
        self.fed = version
        if self._block_names:
            names = frozenset(self._block_names)
            for seen in self._block:
                self._names[seen] = names

    def about_hidden(self, version: int, policy: Policy) -> bool:
        """Whether the block of `version` names a combatant `policy` withholds."""
        return bool(self._names.get(version, frozenset()) & policy.hidden)
