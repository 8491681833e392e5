"""A running Senki on a test database, as `senki serve` builds it."""

from __future__ import annotations

from pydantic import SecretStr

from infra import bootstrap
from infra.settings import Settings

TEST_DICE_KEY = "5e" * 32


def settings_for(app_url: str, owner_url: str) -> Settings:
    return Settings(
        database_url=SecretStr(app_url),
        migration_database_url=SecretStr(owner_url),
        dice_master_key=SecretStr(TEST_DICE_KEY),
    )


def start_runtime(app_url: str, owner_url: str) -> bootstrap.Runtime:
    return bootstrap.start(settings_for(app_url, owner_url))
