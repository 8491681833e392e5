"""A running Senki: the services, the ledger and the read models every route and worker
shares, built by the composition root (infra/bootstrap.py)."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any

from psycopg_pool import ConnectionPool

from domain.campaign.campaign import Campaign
from domain.campaign.character import Character
from infra.postgres.database import Database, DatabaseUrls
from infra.projector.background import BackgroundProjector
from infra.projector.reads import ReadModels
from infra.projector.runner import Projector
from infra.services.append_watch import AppendWatch
from infra.services.audit import AuditService
from infra.services.campaigns import CampaignService
from infra.services.characters import CharacterService
from infra.services.dice_tables import DiceTableService
from infra.services.disputes import DisputeService
from infra.services.encounters import EncounterService
from infra.services.executor import Executor
from infra.services.ports import (
    LivenessView,
    LogHeadView,
    ProjectionPositionView,
    ShardDownView,
    ShardReadiness,
    Unavailable,
)
from infra.services.roll_log import RollLogService
from infra.services.scenarios import ScenarioService
from infra.services.units import UnitService
from infra.services.visibility import VisibilityService
from infra.services.watched_states import WatchedStates
from infra.settings import Settings
from infra.store.connect import ShardUnavailable, probe_clusters
from infra.store.ledger import Appended, Ledger, is_unavailable
from infra.store.log_tree import TreeDisagrees
from infra.store.log_trees import log_trees

log = logging.getLogger("senki.bootstrap")


def senki_version() -> str:
    try:
        return package_version("senki")
    except PackageNotFoundError:
        return "0.0.0+unknown"


@dataclass
class Runtime:
    """A running Senki: what every command, route and background worker shares."""

    settings: Settings
    database: Database
    urls: DatabaseUrls
    ledger: Ledger
    dice_key: bytes
    version: str = field(default_factory=senki_version)
    ruleset_versions: dict[str, str] = field(default_factory=dict)

    def _wrote(self, appended: Appended) -> None:
        """Tell whichever watch the runtime holds now (a test may swap it) of our appends.
        Those who take the events from the append itself (`own_appends`) are told before
        the watch wakes anyone, with the watch's ticket for them: None unless nothing else
        was heard appended to those streams since the ticket taken before the append."""
        watch, streams = self.append_watch, appended.streams
        ticket = watch.voided(streams, since=getattr(self._appending, "ticket", None))
        self._appending.ticket = None
        for listener in self.own_appends:
            try:
                listener(appended, ticket)
            except Exception:  # what a listener saves is a read: the write stands regardless
                log.exception("a listener of this process's appends failed")
        watch.tell(streams)

    def _expecting(self, streams: list[uuid.UUID]) -> None:
        # The ticket before the append, on the appending thread: `_wrote` runs on it next.
        self._appending.ticket = self.append_watch.ticket()
        self.append_watch.expecting(streams)

    def _not_expected(self, streams: list[uuid.UUID]) -> None:
        self._appending.ticket = None
        self.append_watch.not_expected(streams)

    def __post_init__(self) -> None:
        self.executor = Executor(self.ledger)
        self.roll_logs = RollLogService(self.executor, self.dice_key, utc_now)
        self.encounters = EncounterService(self.executor, self.dice_key, utc_now)
        self.campaigns = CampaignService(self.executor, self.dice_key, utc_now)
        # Token checks and sheet reads skip the database while no append is heard
        # (infra/services/watched_states.py).
        self.append_watch = AppendWatch(
            self.urls.service, shards=len(self.ledger.shards), shard_urls=self.urls.shards
        )
        self._appending = threading.local()
        # Told of this process's own appends, with a ticket vouching for them (`_wrote`).
        self.own_appends: list[Callable[[Appended, int | None], None]] = []
        self.ledger.appended.append(self._wrote)  # this process's own writes
        self.ledger.appending.append(self._expecting)  # and their NOTIFYs, heard back
        self.ledger.append_failed.append(self._not_expected)
        self.campaigns.access = WatchedStates[Campaign](self.append_watch)
        self.character_states = WatchedStates[Character](self.append_watch)
        self.disputes = DisputeService(self.executor, utc_now)
        self.audit = AuditService(self.ledger, self.executor)
        self.visibility = VisibilityService(self.ledger)
        self.characters = CharacterService(self.executor, utc_now)
        self.units = UnitService(self.executor, utc_now)
        self.scenarios = ScenarioService(self.executor, utc_now)
        self.dice_tables = DiceTableService(self.executor, utc_now)
        self.read_models = ReadModels(self.urls.service)
        self.log_trees = log_trees(self.settings, self.ledger, self.dice_key)
        self.projector: BackgroundProjector | None = None
        # Set when the server begins to shut down: open streams end at once (their clients
        # reconnect elsewhere), so none holds the process past its graceful timeout.
        self.shutting_down = threading.Event()
        self.database.on_revived = self.reconnect

    def start_projector(self) -> None:
        """Project the read models on a thread of this process (`serve`, embedded default)."""
        self.projector = BackgroundProjector(Projector(self.urls.service, self.ledger)).start()

    def check_ready(self) -> list[ShardReadiness] | None:
        """The home database answers (else Unavailable); with a cluster per shard, how each
        shard's cluster answers: a shard that is down leaves the pod ready (degraded)."""
        try:
            if not self.urls.shards:
                self.ledger.head()
                return None
            with self.ledger.placements.datastore.transaction(commit=False) as cursor:
                cursor.execute("SELECT 1")
        except Exception as error:
            if is_unavailable(error):
                raise Unavailable("PostgreSQL does not answer; retry shortly") from error
            raise
        answers = probe_clusters([shard.datastore for shard in self.ledger.shards])
        return [
            ShardReadiness(index, "ok" if answered else "unavailable")
            for index, answered in enumerate(answers)
        ]

    def reconnect(self) -> None:
        """After the embedded server came back: replace every pooled connection that died
        with it now, so the next requests (and /readyz) do not each find a dead one first."""
        pools: dict[int, ConnectionPool[Any]] = {id(self.read_models.pool): self.read_models.pool}
        home = self.ledger.placements.datastore.pool
        pools[id(home)] = home
        for shard in self.ledger.shards:
            pools[id(shard.datastore.pool)] = shard.datastore.pool  # shards may share one
        for pool in pools.values():
            pool.check()

    def liveness(self) -> LivenessView:
        kept = self.database.keeper_state()
        if kept is None or kept.status == "running":
            return LivenessView("ok")
        return LivenessView(kept.status, kept.detail)

    def log_heads(self) -> list[LogHeadView | ShardDownView]:
        """Every shard's chain head; a shard whose own cluster is down is named, not fatal."""
        from infra.projector.admin import shard_heads

        heads = shard_heads(self.ledger)  # home down raises: a whole outage (503), as before
        return [
            ShardDownView(index, str(head))
            if isinstance(head, ShardUnavailable)
            else LogHeadView(
                head.shard, head.position, head.chain_hash, tree_size=self._tree_size(head.shard)
            )
            for index, head in heads.items()
        ]

    def _tree_size(self, shard: int) -> int | None:
        """The tree's size when it can be had at once: the head is read by health checks too."""
        try:
            return self.log_trees.tree(shard).tree_size_if_built()
        except TreeDisagrees:
            return None
        except Exception as error:
            if is_unavailable(error):  # the head itself was read: report it, without the size
                return None
            raise

    def projection_positions(self) -> list[ProjectionPositionView]:
        """What `senki projections status` shows, for the API's /metrics (which caches it)."""
        from infra.projector.admin import status
        from projections.catalog import PROJECTIONS

        try:
            stall_s = self.settings.projection_stall_s
            return status(self.urls.service, self.ledger, PROJECTIONS, stall_s=stall_s)
        except Exception as error:
            if is_unavailable(error):
                raise Unavailable("PostgreSQL does not answer; retry shortly") from error
            raise

    def close(self) -> None:
        self.shutting_down.set()
        self.append_watch.stop()
        if self.projector is not None:
            self.projector.stop()
        self.read_models.close()
        self.ledger.close()
        self.database.close()


def utc_now() -> datetime:
    """The one clock of the process; the domain only ever receives its readings."""
    return datetime.now(UTC)
