"""What a finished write tells the metrics: which write it was, how it ended, the dice.

Every write but the encounter command is counted as its answer passes the metrics middleware:
there the route template (FastAPI's match), the status and the problem type of a refusal
(api/problems.py) are known. Encounter commands all share one route, which counts them itself
(api/metrics/commands.py): it knows the command it read and the ruleset that decided it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from api.problems import TYPE_BASE
from api.writes import caller_scope

COMMANDS_ROUTE = "/v1/encounters/{encounter_id}/commands"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A POST because it carries a body, but it stores nothing: a what-if, not a command.
NOT_WRITES = frozenset({"/v1/encounters/{encounter_id}/replay"})
# Routes whose answers list the rolls the write recorded (RollAnswer.roll); the command
# route counts its own.
DICE_ROUTES = frozenset({"/v1/campaigns/{campaign_id}/rolls"})
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


@dataclass(frozen=True)
class Finished:
    """One answered request, as far as the metrics need it."""

    method: str
    route: str | None  # the template, e.g. /v1/encounters/{encounter_id}/commands
    name: str | None  # the route's endpoint name, e.g. add_member
    status: int
    response_body: bytes | None  # kept only for problems and answers that carry dice
    replay_key: bytes | None  # digest of the caller's token and Idempotency-Key

    @property
    def is_write(self) -> bool:
        """A write this middleware counts (the command route counts its own)."""
        return (
            self.method in WRITE_METHODS
            and self.route is not None
            and self.route.startswith("/v1/")
            and self.route not in NOT_WRITES
            and self.route != COMMANDS_ROUTE
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
    """(ruleset, command) of a write other than an encounter command: none, the route's name."""
    return NO_RULESET, finished.name or UNKNOWN


def dice_sources(finished: Finished) -> list[str]:
    """`server` or `hand` for every roll the answer says the write recorded."""
    if finished.route not in DICE_ROUTES or not finished.accepted:
        return []
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
