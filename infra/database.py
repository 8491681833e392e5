"""Which PostgreSQL Senki uses: the embedded server in the data directory, or an external URL."""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType

from infra.settings import Settings
from infra.store.connect import with_user


@dataclass(frozen=True)
class DatabaseUrls:
    service: str
    """The low-privilege role the service writes with."""
    owner: str
    """The owning role migrations run as."""


class DatabaseUnavailable(RuntimeError):
    """PostgreSQL cannot be reached or started; the message says what to do."""


class Database:
    """Starts (or attaches to) the embedded server when no external URL is configured."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._embedded: object | None = None

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
            return DatabaseUrls(service, migration.get_secret_value() if migration else service)
        from infra.embedded_pg import EmbeddedPostgres, EmbeddedPostgresError

        server = EmbeddedPostgres(self.settings.data_dir.absolute())
        try:
            server.start()
            server.ensure_database(self.settings.database_name)
        except EmbeddedPostgresError as error:
            raise DatabaseUnavailable(str(error)) from error
        self._embedded = server
        owner = server.url_for(self.settings.database_name)
        return DatabaseUrls(with_user(owner, self.settings.app_role), owner)

    def close(self) -> None:
        server, self._embedded = self._embedded, None
        if server is not None:
            server.stop()  # type: ignore[attr-defined]
