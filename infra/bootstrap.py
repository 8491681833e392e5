"""The composition root: the one place that wires settings, PostgreSQL, the ledger and the API."""

from __future__ import annotations

import logging

from domain.catalog import registry
from infra import log_redaction
from infra.dice_key import load_dice_key
from infra.postgres.database import Database, DatabaseUnavailable, DatabaseUrls
from infra.services.runtime import Runtime
from infra.settings import Settings
from infra.store.ledger import is_unavailable, open_ledger
from infra.store.migrate import SCHEMA_VERSION, migrate, schema_version
from infra.store.snapshot_seal import derive_snapshot_key

log = logging.getLogger("senki.bootstrap")


class NotMigrated(RuntimeError):
    """The external database has no (or an older) Senki schema."""


def start(settings: Settings | None = None) -> Runtime:
    """Start or attach to PostgreSQL, migrate on the embedded default, open the ledger."""
    settings = settings or Settings()
    log_redaction.install()  # before anything can log a request or a token
    dice_key = load_dice_key(settings)  # a missing key is a setup error: say so before connecting
    database = Database(settings)
    urls = database.open()
    try:
        if settings.embedded:
            migrate(urls.owner, app_role=settings.app_role, shards=settings.shard_count())
        else:
            _require_schema(urls.service)
            _require_shard_schemas(urls)
        ledger = open_ledger(
            urls.service,
            registry=registry,
            shards=settings.shard_count(),
            pool_size=settings.pool_size,
            snapshot_key=derive_snapshot_key(dice_key),  # never stored in the database
            shard_urls=urls.shards,
        )
        try:
            ledger.placements.check()  # shards can grow, never shrink: say so before serving
        except Exception:
            ledger.close()
            raise
        return Runtime(settings, database, urls, ledger, dice_key)
    except Exception as error:
        database.close()
        if settings.embedded or isinstance(error, DatabaseUnavailable) or not is_unavailable(error):
            raise
        # The external server went away past the schema check (a restart or failover while
        # this process starts): the same refusal as one that never answered, so that a
        # projector waits for it (infra/cli/projections.py) instead of exiting.
        raise DatabaseUnavailable(
            f"cannot reach PostgreSQL at the configured URL: {_first_line(error)}"
        ) from error


def _require_schema(url: str) -> None:
    try:
        found = schema_version(url)
    except Exception as error:
        if is_unavailable(error):
            raise DatabaseUnavailable(
                f"cannot reach PostgreSQL at the configured URL: {_first_line(error)}"
            ) from error
        raise
    if found is None or found < SCHEMA_VERSION:
        raise NotMigrated(
            f"the database schema is at {found or 'nothing'}, this Senki needs {SCHEMA_VERSION}: "
            "run `senki db migrate` (as the owning role) first"
        )


def _require_shard_schemas(urls: DatabaseUrls) -> None:
    """Each shard cluster must be migrated too; one that is down does not stop the start (its
    campaigns answer 503 until it is back: failure confined to its shard, docs/scaling.md)."""
    for url in dict.fromkeys(u for u in urls.shards if u != urls.service):
        shards = [i for i, u in enumerate(urls.shards) if u == url]
        try:
            found = schema_version(url)
        except Exception as error:
            if not is_unavailable(error):
                raise
            log.warning("shard %s: cluster unreachable at start (%s)", shards, _first_line(error))
            continue
        if found is None or found < SCHEMA_VERSION:
            raise NotMigrated(
                f"shard {', '.join(map(str, shards))}: its cluster's schema is at "
                f"{found or 'nothing'}, this Senki needs {SCHEMA_VERSION}: run `senki db migrate` "
                "(with SENKI_SHARD_MIGRATION_URLS naming its owner role) first"
            )


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
