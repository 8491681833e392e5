"""What a finished request tells the metrics: which command it was, how it ended, the dice.

Every write reaches the service through a route, and every route's answer passes the metrics
middleware: there the route template (FastAPI's match), the status, the problem type of a
refusal (api/problems.py) and the body are all known, so no route has to count anything
itself. Encounter commands all share one route; their `command` field names them, and
`ruleset_of` (the union that parses the body) names the ruleset.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from api.encounter_commands import ruleset_of
from api.problems import TYPE_BASE
from api.writes import caller_scope

COMMANDS_ROUTE = "/v1/encounters/{encounter_id}/commands"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A POST because it carries a body, but it stores nothing: a what-if, not a command.
NOT_WRITES = frozenset({"/v1/encounters/{encounter_id}/replay"})
# Routes whose answers list the rolls the write recorded: CommandAnswer.rolls, RollAnswer.roll.
DICE_ROUTES = frozenset({COMMANDS_ROUTE, "/v1/campaigns/{campaign_id}/rolls"})
DICE_SOURCES = frozenset({"server", "hand"})

# Problem types (api/problems.py) of a write that lost to another write, and why.
CONFLICTS = {
    "stale-version": "stale_if_match",
    "conflict": "concurrent_append",
    "precondition-required": "if_match_missing",
    "idempotency-key-reused": "idempotency_key_reused",
}
REFUSALS = {"rule-violation": "refused_by_rule", "wrong-state": "refused_by_state"}
NO_RULESET = "none"
UNKNOWN = "unknown"


# What the encounter command route tells the metrics itself, on the request's scope: it has
# read the body and built the answer already, so the middleware need not parse either again
# (it did: the body validated a second time to find its ruleset, the answer parsed for its
# dice). Any other route, and a command refused before the route ran, is read from its bodies.
TOLD = "senki.metrics"


@dataclass(frozen=True)
class Told:
    ruleset: str
    command: str
    replay_key: bytes | None
    dice: tuple[str, ...] | None = None  # the sources of the rolls recorded, once answered


def tell(scope: MutableMapping[str, Any], told: Told) -> None:
    scope[TOLD] = told


@dataclass(frozen=True)
class Finished:
    """One answered request, as far as the metrics need it."""

    method: str
    route: str | None  # the template, e.g. /v1/encounters/{encounter_id}/commands
    name: str | None  # the route's endpoint name, e.g. add_member
    status: int
    request_body: bytes | None  # kept only for encounter commands
    response_body: bytes | None  # kept only for problems and answers that carry dice
    replay_key: bytes | None  # digest of the caller's token and Idempotency-Key
    told: Told | None = None

    @property
    def is_write(self) -> bool:
        return (
            self.method in WRITE_METHODS
            and self.route is not None
            and self.route.startswith("/v1/")
            and self.route not in NOT_WRITES
        )

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300


def replay_key(authorization: bytes | None, idempotency_key: bytes | None) -> bytes | None:
    """A retry is the same token sending the same key (api/writes.py scopes keys so)."""
    if idempotency_key is None:
        return None
    scope = caller_scope(authorization.decode("latin-1") if authorization else None)
    return _digest(scope, idempotency_key)


def replay_key_of(scoped_key: str) -> bytes:
    """`replay_key` from a key api/writes.py has scoped already (`<caller scope>:<key>`)."""
    scope, _, key = scoped_key.partition(":")
    return _digest(scope, key.encode())


def _digest(scope: str, key: bytes) -> bytes:
    return hashlib.sha256(scope.encode() + b"\n" + key).digest()[:16]


def problem_type(finished: Finished) -> str | None:
    """The kind of problem (`stale-version`, ...) an error answer names, if it is one of ours."""
    found = _json(finished.response_body)
    kind = found.get("type") if isinstance(found, dict) else None
    if isinstance(kind, str) and kind.startswith(TYPE_BASE):
        return kind.removeprefix(TYPE_BASE)
    return None


def outcome(finished: Finished, problem: str | None, *, first_answer: bool) -> str:
    if finished.accepted:
        return "accepted" if first_answer else "replayed"
    if problem in CONFLICTS:
        return "conflict"
    if problem in REFUSALS:
        return REFUSALS[problem]
    return "error" if finished.status >= 500 else "rejected"


def command_kind(finished: Finished) -> tuple[str, str]:
    """(ruleset, command): the body's command for encounter commands, else the route's name."""
    if finished.route != COMMANDS_ROUTE:
        return NO_RULESET, finished.name or UNKNOWN
    if finished.told is not None:
        return finished.told.ruleset, finished.told.command
    body = _json(finished.request_body)
    ruleset = ruleset_of(body)
    if ruleset is None:  # no ruleset has such a command: never a client's text as a label
        return UNKNOWN, UNKNOWN
    return ruleset, str(body["command"])


def dice_sources(finished: Finished) -> list[str]:
    """`server` or `hand` for every roll the answer says the write recorded."""
    if finished.route not in DICE_ROUTES or not finished.accepted:
        return []
    if finished.told is not None and finished.told.dice is not None:
        return [source for source in finished.told.dice if source in DICE_SOURCES]
    answer = _json(finished.response_body)
    if not isinstance(answer, dict):
        return []
    rolls = answer.get("rolls")
    found = list(rolls) if isinstance(rolls, list) else []
    if isinstance(answer.get("roll"), dict):
        found.append(answer["roll"])
    sources = (roll.get("source") for roll in found if isinstance(roll, dict))
    return [source for source in sources if source in DICE_SOURCES]


class SeenKeys:
    """The replay keys of recent accepted writes, so a retry answered from the idempotency
    store counts as `replayed` and its dice are not counted twice. Bounded and per process:
    a retry that reaches another replica (or comes after a restart) counts again there."""

    def __init__(self, size: int = 10_000) -> None:
        self._keys: OrderedDict[bytes, None] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def first_time(self, key: bytes | None) -> bool:
        if key is None:
            return True
        with self._lock:
            if key in self._keys:
                self._keys.move_to_end(key)
                return False
            self._keys[key] = None
            if len(self._keys) > self._size:
                self._keys.popitem(last=False)
            return True


def _json(body: bytes | None) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
