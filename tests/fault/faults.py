"""The faults, each struck when the clients have had a given share of their answers, so they
land in the middle of the load however fast or slow the machine is."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx

from tests.fault.client import Acks
from tests.fault.deployment import Deployment
from tests.fault.load import Campaign, Plan, Played, open_campaigns, play, wait_for_acks
from tests.support.processes import wait_for


@dataclass
class Struck:
    """What was done, and how long the installation took to get over it."""

    killed_api: str = ""
    killed_projector: str = ""
    standby: str = ""
    takeover_s: float = 0.0
    restarts: dict[str, float] = field(default_factory=dict)  # mode → seconds unavailable
    acks_at: dict[str, int] = field(default_factory=dict)  # fault → acknowledgements before it
    receipts: list[str] = field(default_factory=list)  # SHARD:POSITION:HASH before a restart


class Load(threading.Thread):
    """The clients, on a thread of their own while the main thread strikes."""

    def __init__(self, servers: list[str], acks: Acks, plan: Plan, tables: list[Campaign]):
        super().__init__(name="load")
        self.args = (servers, acks, plan, tables)
        self.stop = threading.Event()
        self.played: Played | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.played = play(*self.args, self.stop)
        except BaseException as error:  # raised again by result(), on the main thread
            self.error = error
        finally:
            self.stop.set()

    def result(self) -> Played:
        self.join()
        if self.error is not None:
            raise self.error
        assert self.played is not None
        return self.played


def play_through_faults(deployment: Deployment, acks: Acks, plan: Plan) -> tuple[Played, Struck]:
    """Open the campaigns, then play every table while the faults strike one by one."""
    servers = deployment.servers
    tables = open_campaigns(servers, acks, plan, deployment.shard_of, deployment.shards)
    load = Load(servers, acks, plan, tables)
    load.start()
    try:
        struck = strike(deployment, acks, plan.commands, load.stop)
    except BaseException:
        load.stop.set()  # the tables stop at their next command
        raise
    finally:
        played = load.result()  # a client's failure is raised too: it may explain the fault's
    return played, struck


def strike(deployment: Deployment, acks: Acks, total: int, stop: threading.Event) -> Struck:
    struck = Struck()
    wait_for_acks(acks, total // 10, stop)
    struck.acks_at["sigkill api"] = acks.acknowledged
    kill_an_api_process(deployment, struck)

    wait_for_acks(acks, total * 3 // 10, stop)
    struck.acks_at["sigkill projector"] = acks.acknowledged
    kill_the_active_projector(deployment, struck)

    for share, mode in ((5, "fast"), (7, "immediate")):
        wait_for_acks(acks, total * share // 10, stop)
        struck.acks_at[f"restart {mode}"] = acks.acknowledged
        struck.receipts += receipts(deployment.servers[0])
        struck.restarts[mode] = deployment.server.restart(mode)  # type: ignore[arg-type]
    return struck


def kill_an_api_process(deployment: Deployment, struck: Struck) -> None:
    """SIGKILL one `senki serve` with requests in flight; a supervisor starts it again."""
    victim = deployment.apis[1]
    deployment.sigkill(victim)
    struck.killed_api = victim.name
    time.sleep(1.0)  # its clients meanwhile find the other two
    deployment.restart(victim)
    deployment.wait_api(victim)


def kill_the_active_projector(deployment: Deployment, struck: Struck) -> None:
    """SIGKILL the projector holding the lock; the standby must take over."""
    active = deployment.active_projector()
    assert active in deployment.projectors, f"no projector holds the lock ({active})"
    standby = next(name for name in deployment.projectors if name != active)
    wait_for(lambda: deployment.projector_state(standby) == "standby", timeout=30)
    deployment.sigkill(deployment.projectors[active])
    killed_at = time.monotonic()
    wait_for(lambda: deployment.active_projector() == standby, timeout=30)
    wait_for(lambda: deployment.projector_state(standby) == "active", timeout=30)
    struck.takeover_s = time.monotonic() - killed_at
    struck.killed_projector, struck.standby = active, standby
    deployment.restart(deployment.projectors[active])  # back, as the new standby


def receipts(server: str) -> list[str]:
    """The chain head of every shard, as a table keeps it (`senki verify --expect-head`)."""
    for _ in range(50):  # the first use of a pooled connection after a restart may fail
        answer = httpx.get(f"{server}/v1/log/head", timeout=10)
        if answer.status_code == 200:
            heads = answer.json()["heads"]
            return [
                f"{h['shard']}:{h['position']}:{h['chain_hash']}" for h in heads if h["position"]
            ]
        time.sleep(0.1)
    raise AssertionError(f"no log head from {server}: {answer.status_code} {answer.text}")
