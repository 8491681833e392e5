"""A table's client that keeps going through faults: retries with the same Idempotency-Key.

Every POST carries a fresh key; when the outcome is unknown (connection refused or cut, a
timeout, a 5xx) the very same request (key, body, If-Match) is sent again, to the next API
process, until it is answered. Each answer is written to the ledger of acknowledged commands
that the checks compare with the database afterwards.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

RETRYABLE_STATUS = frozenset({500, 502, 503, 504})
# A retry that reaches a server while the first attempt is still committing can be decided
# on the version that attempt just wrote and be refused as stale; the same key sent once more
# then finds the first answer. Counted, and only accepted after an unknown outcome.
STALE_STATUS = frozenset({409, 412})
_GIVE_UP_S = 60.0
# An impatient first attempt stops waiting for the answer at once: the server still decides
# and commits the command, and the retry must then be answered from the idempotency record.
_IMPATIENT = httpx.Timeout(2.0, read=0.001)


@dataclass(frozen=True)
class Ack:
    """A command the service acknowledged, as the client saw it."""

    key: str
    path: str
    body: dict[str, Any]
    status: int
    answer: dict[str, Any]
    attempts: int
    answered_from: datetime  # when the attempt that got the answer was sent


@dataclass
class Acks:
    """Every acknowledged command, by Idempotency-Key, and what happened on the way."""

    acks: dict[str, Ack] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, ack: Ack) -> None:
        with self.lock:
            assert ack.key not in self.acks, f"key {ack.key} acknowledged twice by the client"
            self.acks[ack.key] = ack
            self.counts["acknowledged"] += 1

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1

    @property
    def acknowledged(self) -> int:
        return self.counts["acknowledged"]


class Refused(AssertionError):
    """The service refused a command a well-behaved client sent: the scenario is broken."""


class TableClient:
    """One player's connection to the API processes (one per worker thread)."""

    def __init__(self, servers: list[str], acks: Acks, *, first: int = 0) -> None:
        self.servers = servers
        self.acks = acks
        self._next = itertools.cycle(range(first, first + len(servers)))
        self._http = httpx.Client(timeout=httpx.Timeout(20.0, connect=2.0))

    def close(self) -> None:
        self._http.close()

    def post(
        self,
        path: str,
        body: dict[str, Any],
        *,
        token: str | None = None,
        version: int | None = None,
        key: str | None = None,
        impatient: bool = False,
    ) -> Ack:
        """Send until answered; the same key, body and If-Match on every attempt."""
        key = key or str(uuid.uuid4())
        headers = {"Idempotency-Key": key}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if version is not None:
            headers["If-Match"] = f'"{version}"'
        deadline = time.monotonic() + _GIVE_UP_S
        unknown = False  # an earlier attempt may have been applied
        stale = 0
        for attempt in itertools.count(1):
            self.acks.count("sent")
            base = self.servers[next(self._next) % len(self.servers)]
            sent_at = datetime.now(UTC)
            try:
                timeout = _IMPATIENT if impatient and attempt == 1 else self._http.timeout
                answer = self._http.post(base + path, json=body, headers=headers, timeout=timeout)
            except httpx.TransportError as error:
                unknown = unknown or not isinstance(error, httpx.ConnectError)
                why = "timeout" if isinstance(error, httpx.TimeoutException) else "connection"
                self._retry(why, deadline, path)
                continue
            if answer.status_code in RETRYABLE_STATUS:
                unknown = True
                self._retry(f"http {answer.status_code}", deadline, path)
                continue
            if answer.status_code in STALE_STATUS and unknown and stale < 3:
                stale += 1
                self._retry(f"stale after unknown outcome ({answer.status_code})", deadline, path)
                continue
            if answer.status_code >= 400:
                raise Refused(f"POST {path} {body} → {answer.status_code}: {answer.text}")
            ack = Ack(key, path, body, answer.status_code, answer.json(), attempt, sent_at)
            self.acks.record(ack)
            return ack
        raise AssertionError("unreachable")  # pragma: no cover

    def _retry(self, why: str, deadline: float, path: str) -> None:
        self.acks.count("retried")
        self.acks.count(why)
        if time.monotonic() > deadline:
            raise AssertionError(f"POST {path}: no answer for {_GIVE_UP_S:.0f} s ({why})")
        time.sleep(0.05)
