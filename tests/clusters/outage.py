"""The load of tests/fault/load.py, with every 5xx answer written down by path, so the test
can say afterwards on which shard each 503 was seen (the stream in the path says it).

Every 503 must carry Retry-After (the contract: a client is told when to try again); what
an answer without one looked like is kept too, and fails the test.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from tests.fault import load
from tests.fault.client import Acks, TableClient
from tests.fault.load import Campaign, Plan, Played

_STREAM = re.compile(r"/v1/(?:encounters|campaigns|roll-logs)/([0-9a-f-]{36})")


@dataclass
class Answers:
    """Every 5xx the clients saw: (stream in the path, status) → how many; and when."""

    seen: Counter[tuple[str, int]] = field(default_factory=Counter)
    without_retry_after: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a few 503 details, as shown
    first_seen: dict[tuple[str, int], str] = field(default_factory=dict)  # what each said first
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hook(self, response: httpx.Response) -> None:
        if response.status_code < 500:
            return
        response.read()
        found = _STREAM.search(response.request.url.path)
        stream = found.group(1) if found else response.request.url.path
        with self.lock:
            self.seen[stream, response.status_code] += 1
            self.first_seen.setdefault(
                (stream, response.status_code),
                f"{response.request.method} {response.request.url.path}: {response.text[:300]}",
            )
            if response.status_code == 503:
                if "retry-after" not in response.headers:
                    self.without_retry_after.append(f"{response.request.url.path}: {response.text}")
                if len(self.problems) < 3:
                    self.problems.append(response.text[:300])

    def by_shard(self, shard_of: Callable[[str], int], status: int = 503) -> Counter[int]:
        """How many answers of `status` each shard's campaigns got."""
        counted: Counter[int] = Counter()
        for (stream, code), n in self.seen.items():
            if code == status:
                counted[shard_of(stream)] += n
        return counted

    def said_on(self, shard: int, shard_of: Callable[[str], int], status: int = 503) -> list[str]:
        """What the first answer of `status` said, for each stream of `shard` that got one."""
        return [
            text
            for (stream, code), text in self.first_seen.items()
            if code == status and shard_of(stream) == shard
        ]


class WatchedClient(TableClient):
    def __init__(self, servers: list[str], acks: Acks, answers: Answers, *, first: int = 0):
        super().__init__(servers, acks, first=first)
        self._http.close()
        self._http = httpx.Client(
            timeout=httpx.Timeout(20.0, connect=2.0), event_hooks={"response": [answers.hook]}
        )


@dataclass(frozen=True)
class WatchedSession(load.Session):
    answers: Answers = field(default_factory=Answers)

    def client(self, index: int) -> TableClient:
        return WatchedClient(self.servers, self.acks, self.answers, first=index)


class Tables(threading.Thread):
    """Every table of the plan playing at once on a thread of its own (tests/fault/load.py's
    `play`, with the watched clients), while the test stops and starts a cluster."""

    def __init__(self, session: WatchedSession, campaigns: list[Campaign]) -> None:
        super().__init__(name="tables")
        self.session = session
        self.campaigns = campaigns
        self.error: BaseException | None = None

    def run(self) -> None:
        session, plan = self.session, self.session.plan
        jobs: list[Any] = []
        for index, campaign in enumerate(self.campaigns):
            jobs.append((load._roller, campaign, index))
            for n in range(plan.encounters_per_campaign):
                jobs.append((load._encounter, campaign, index * plan.encounters_per_campaign + n))
        try:
            with ThreadPoolExecutor(len(jobs), thread_name_prefix="table") as pool:
                futures = [pool.submit(job, session, c, n) for job, c, n in jobs]
                for future in futures:
                    future.result()
        except BaseException as error:  # raised again by result(), on the main thread
            self.error = error
            session.stop.set()
        finally:
            session.stop.set()

    def result(self) -> Played:
        self.join()
        if self.error is not None:
            raise self.error
        return self.session.played


def session(servers: list[str], acks: Acks, plan: Plan) -> WatchedSession:
    return WatchedSession(servers, acks, plan, Played(), threading.Event())


def acknowledged_between(played: Played, streams: set[str], begin: datetime, end: datetime) -> int:
    """Commands on `streams` whose answer was asked for (and got) inside [begin, end]."""
    return sum(
        1
        for stream, acks in played.streams.items()
        if stream in streams
        for ack in acks
        if begin <= ack.answered_from <= end
    )


def now() -> datetime:
    return datetime.now(UTC)
