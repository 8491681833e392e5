"""The load: many tables playing at once, every command through the retrying client.

Each encounter is played by one thread, command after command on the version it last saw
(If-Match): open, two combatants join, initiative, then a long run of GM status rulings
(always legal until the combat ends), the end of combat and the reveal of the dice seed.
Each campaign also has a dice roller rolling in one roll log without If-Match (the service
decides those again on the fresh state when another write got there first).

Every command carries its Idempotency-Key as its `client_seed`, which the log records with
the command, so the checks can find each acknowledged command's events in the database.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tests.fault.client import Ack, Acks, TableClient
from tests.unit.encounter.table import sheet

STATUSES = ("stun", "poison", "fear", "slow")
EXPRESSIONS = ("2D6>=7", "1D100", "3D6+2", "2D10")


@dataclass(frozen=True)
class Plan:
    campaigns: int = 4
    encounters_per_campaign: int = 6
    rulings_per_encounter: int = 66
    rolls_per_campaign: int = 80
    impatient_every: int = 7  # every n-th command gives up on its first answer at once

    @property
    def commands(self) -> int:
        """Commands the plan sends after the campaigns are open."""
        per_encounter = 1 + 2 + 1 + self.rulings_per_encounter + 2
        per_roller = self.rolls_per_campaign + 1
        return self.campaigns * (self.encounters_per_campaign * per_encounter + per_roller)


@dataclass(frozen=True)
class Campaign:
    id: str
    gm: str


@dataclass
class Played:
    """What the clients were told, stream by stream, in the order they were told it."""

    streams: dict[str, list[Ack]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, stream: str, ack: Ack) -> None:
        with self.lock:
            self.streams.setdefault(stream, []).append(ack)


def open_campaigns(
    servers: list[str], acks: Acks, plan: Plan, shard_of: Callable[[str], int], shards: int
) -> list[Campaign]:
    """Open the plan's campaigns spread over every shard (the service places them by id, so
    some are opened only to be left aside)."""
    want = [plan.campaigns // shards + (s < plan.campaigns % shards) for s in range(shards)]
    found: list[list[Campaign]] = [[] for _ in range(shards)]
    client = TableClient(servers, acks)
    try:
        for n in range(plan.campaigns * 10):
            if all(len(f) >= w for f, w in zip(found, want, strict=True)):
                break
            ack = client.post("/v1/campaigns", {"name": f"戦記 {n}", "gm_member_id": "gm"})
            campaign = Campaign(ack.answer["id"], ack.answer["token"])
            found[shard_of(campaign.id)].append(campaign)
    finally:
        client.close()
    assert all(len(f) >= w for f, w in zip(found, want, strict=True)), f"placed: {found}"
    return [campaign for f, w in zip(found, want, strict=True) for campaign in f[:w]]


@dataclass(frozen=True)
class Session:
    """What every table's thread shares."""

    servers: list[str]
    acks: Acks
    plan: Plan
    played: Played
    stop: threading.Event

    def client(self, index: int) -> TableClient:
        return TableClient(self.servers, self.acks, first=index)


def play(
    servers: list[str],
    acks: Acks,
    plan: Plan,
    campaigns: list[Campaign],
    stop: threading.Event,
) -> Played:
    """Run every table at once until done (or `stop`); raises the first client failure."""
    played = Played()
    session = Session(servers, acks, plan, played, stop)
    jobs: list[tuple[Callable[[Session, Campaign, int], None], Campaign, int]] = []
    for index, campaign in enumerate(campaigns):
        jobs.append((_roller, campaign, index))
        for n in range(plan.encounters_per_campaign):
            jobs.append((_encounter, campaign, index * plan.encounters_per_campaign + n))
    with ThreadPoolExecutor(len(jobs), thread_name_prefix="table") as pool:
        futures = [pool.submit(job, session, campaign, n) for job, campaign, n in jobs]
        try:
            for future in futures:
                future.result()
        except BaseException:
            stop.set()  # the other tables stop at their next command
            raise
    return played


def _encounter(session: Session, campaign: Campaign, index: int) -> None:
    client, played = session.client(index), session.played
    try:
        opened = client.post(
            f"/v1/campaigns/{campaign.id}/encounters",
            {"options": {}, "battle_map": {"width": 12, "height": 12}},
            token=campaign.gm,
        )
        fight = _Fight(client, campaign.gm, opened.answer["id"], opened.answer["version"], played)
        played.add(fight.id, opened)
        fight.command(_join("ace", "pc", sheet(1, 1, reaction=20)))
        fight.command(_join("grunt", "enemy", sheet(4, 1, reaction=2, hp=321)))
        fight.command({"command": "RollInitiative"})
        for n in range(session.plan.rulings_per_encounter):
            if session.stop.is_set():
                return
            fight.command(
                {
                    "command": "InflictStatus",
                    "target": ("ace", "grunt")[n % 2],
                    "status": STATUSES[n % len(STATUSES)],
                    "effect_value": 1 + n % 3,
                },
                impatient=n % session.plan.impatient_every == 0,
            )
        fight.command({"command": "EndCombat", "clause": "GD-END-1", "reason": "fault drill"})
        revealed = client.post(f"/v1/encounters/{fight.id}/reveal", {}, token=campaign.gm)
        played.add(fight.id, revealed)
    finally:
        client.close()


@dataclass
class _Fight:
    client: TableClient
    gm: str
    id: str
    version: int
    played: Played

    def command(self, body: dict[str, Any], *, impatient: bool = False) -> None:
        key = str(uuid.uuid4())
        ack = self.client.post(
            f"/v1/encounters/{self.id}/commands",
            body | {"client_seed": key},
            token=self.gm,
            version=self.version,
            key=key,
            impatient=impatient,
        )
        self.version = ack.answer["version"]
        self.played.add(self.id, ack)


def _join(cid: str, side: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "command": "JoinCombatant",
        "combatant_id": cid,
        "name": cid,
        "side": side,
        "controller": "gm",
        "sheet": body,
    }


def _roller(session: Session, campaign: Campaign, index: int) -> None:
    client, played = session.client(index), session.played
    path = f"/v1/campaigns/{campaign.id}/rolls"
    log_id: str | None = None
    try:
        for n in range(session.plan.rolls_per_campaign):
            if session.stop.is_set():
                return
            key = str(uuid.uuid4())
            body: dict[str, Any] = {"expression": EXPRESSIONS[n % len(EXPRESSIONS)]}
            body |= {"client_seed": key} | ({"roll_log_id": log_id} if log_id else {})
            impatient = n % session.plan.impatient_every == 1
            ack = client.post(path, body, token=campaign.gm, key=key, impatient=impatient)
            log_id = ack.answer["roll_log"]["id"]
            played.add(log_id, ack)
        if log_id is not None:
            played.add(log_id, client.post(f"/v1/roll-logs/{log_id}/reveal", {}, token=campaign.gm))
    finally:
        client.close()


def wait_for_acks(acks: Acks, count: int, stop: threading.Event, timeout: float = 90) -> None:
    """Block until the clients have `count` acknowledgements (or the load has stopped)."""
    deadline = time.monotonic() + timeout
    while acks.acknowledged < count and not stop.is_set():
        if time.monotonic() > deadline:
            raise AssertionError(f"only {acks.acknowledged} of {count} commands acknowledged")
        time.sleep(0.02)
