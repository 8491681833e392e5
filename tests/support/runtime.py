"""A running Senki on a test database, as `senki serve` builds it."""

from __future__ import annotations

from pydantic import SecretStr

from infra import bootstrap
from infra.settings import Settings
from tests.support.databases import shard_count

TEST_DICE_KEY = "5e" * 32


def settings_for(app_url: str, owner_url: str) -> Settings:
    return Settings(
        database_url=SecretStr(app_url),
        migration_database_url=SecretStr(owner_url),
        dice_master_key=SecretStr(TEST_DICE_KEY),
        shards=shard_count(),
    )


def start_runtime(app_url: str, owner_url: str) -> bootstrap.Runtime:
    return bootstrap.start(settings_for(app_url, owner_url))


def log_heads(runtime: bootstrap.Runtime) -> tuple[int, ...]:
    """The head position of every shard: unchanged means nothing was appended anywhere."""
    return tuple(runtime.ledger.head(shard=s).position for s in range(len(runtime.ledger.shards)))
