"""Which PostgreSQL Senki uses: the embedded server in the data directory, or an external URL."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING

from infra.settings import Settings
from infra.store.connect import with_user

if TYPE_CHECKING:
    from infra.postgres.embedded import EmbeddedPostgres
    from infra.postgres.keeper import Keeper, KeeperState


@dataclass(frozen=True)
class DatabaseUrls:
    service: str
    """The low-privilege role the service writes with."""
    owner: str
    """The owning role migrations run as."""
    shards: list[str] = field(default_factory=list)
    """Shard i's service URL (index = shard); empty: every shard is on the home database."""
    shard_owners: list[str] = field(default_factory=list)
    """Shard i's owner URL for `senki db migrate`, same length as `shards`."""

    def shard_url(self, index: int) -> str:
        """Where shard `index` lives (the home database unless the settings name a cluster)."""
        return self.shards[index] if self.shards else self.service


class DatabaseUnavailable(RuntimeError):
    """PostgreSQL cannot be reached or started; the message says what to do."""


class Database:
    """Starts (or attaches to) the embedded server when no external URL is configured."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._embedded: EmbeddedPostgres | None = None
        self._keeper: Keeper | None = None
        # Called once the embedded server is back after it died (the composition root
        # refreshes its connection pools there).
        self.on_revived: Callable[[], None] = lambda: None

    def __enter__(self) -> DatabaseUrls:
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def open(self) -> DatabaseUrls:
        if not self.settings.embedded:
            assert self.settings.database_url is not None
            service = self.settings.database_url.get_secret_value()
            migration = self.settings.migration_database_url
            owner = migration.get_secret_value() if migration else service
            shards = [url.get_secret_value() for url in self.settings.shard_urls]
            owners = [url.get_secret_value() for url in self.settings.shard_migration_urls]
            # Default owner of a shard: its own URL, or the home owner for a shard on home.
            owners = owners or [owner if url == service else url for url in shards]
            return DatabaseUrls(service, owner, shards, owners)
        from infra.postgres.embedded import EmbeddedPostgres, EmbeddedPostgresError
        from infra.postgres.keeper import Keeper

        server = EmbeddedPostgres(self.settings.data_dir.absolute())
        try:
            server.start()
            server.ensure_database(self.settings.database_name)
        except EmbeddedPostgresError as error:
            raise DatabaseUnavailable(str(error)) from error
        self._embedded = server
        # Ours to keep running: a postmaster that dies is started again (infra/embedded_keeper).
        self._keeper = Keeper(server, on_revived=self._revived).start()
        owner = server.url_for(self.settings.database_name)
        return DatabaseUrls(with_user(owner, self.settings.app_role), owner)

    def _revived(self) -> None:
        self.on_revived()  # looked up now: the composition root sets it after open()

    def keeper_state(self) -> KeeperState | None:
        """How the embedded server is kept (None with an external database: not ours)."""
        return None if self._keeper is None else self._keeper.current()

    def close(self) -> None:
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.stop()  # first: stopping the server on purpose is no death to repair
        server, self._embedded = self._embedded, None
        if server is not None:
            server.stop()
