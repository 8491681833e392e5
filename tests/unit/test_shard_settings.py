"""Settings for a cluster per shard (issue #18): one service URL per shard, optional owner URLs
of the same length, and SENKI_SHARDS either omitted or equal to the list's length."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from infra.database import Database
from infra.settings import Settings

HOME = "postgresql://senki_app@home:5432/senki"
SHARD_1 = "postgresql://senki_app:secret@shard1:5432/senki"
OWNER = "postgresql://senki_owner:pw@home:5432/senki"


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, database_url=SecretStr(HOME), **values)  # type: ignore[call-arg]


def test_the_shard_count_is_the_url_lists_length_when_shards_is_omitted() -> None:
    given = settings(shard_urls=[HOME, SHARD_1])
    assert given.shard_count() == 2
    assert [u.get_secret_value() for u in given.shard_urls] == [HOME, SHARD_1]


def test_without_shard_urls_every_shard_is_in_the_home_database() -> None:
    given = settings(shards=4)
    assert given.shard_count() == 4
    urls = Database(given).open()
    assert [urls.shard_url(i) for i in range(4)] == [HOME] * 4


def test_shards_that_disagree_with_the_url_list_are_refused() -> None:
    with pytest.raises(ValidationError, match="SENKI_SHARDS is 3 but SENKI_SHARD_URLS names 2"):
        settings(shards=3, shard_urls=[HOME, SHARD_1])


def test_owner_urls_of_another_length_are_refused() -> None:
    with pytest.raises(ValidationError, match="SENKI_SHARD_MIGRATION_URLS has 1 entries"):
        settings(shard_urls=[HOME, SHARD_1], shard_migration_urls=[OWNER])


def test_a_shard_url_that_is_not_postgres_is_refused_naming_its_entry() -> None:
    with pytest.raises(ValidationError, match="entry 1 must be a postgresql:// URL"):
        settings(shard_urls=[HOME, "mysql://shard1/senki"])


def test_shard_urls_need_an_external_home_database() -> None:
    with pytest.raises(ValidationError, match="needs SENKI_DATABASE_URL"):
        Settings(_env_file=None, shard_urls=[SecretStr(SHARD_1)])  # type: ignore[call-arg]


def test_a_shard_on_home_migrates_as_the_home_owner_and_others_as_their_own_url() -> None:
    given = settings(migration_database_url=SecretStr(OWNER), shard_urls=[HOME, SHARD_1])
    urls = Database(given).open()
    assert urls.shard_owners == [OWNER, SHARD_1]
    assert urls.shards == [HOME, SHARD_1]


def test_the_shard_urls_are_shown_with_their_passwords_masked() -> None:
    shown = settings(shard_urls=[HOME, SHARD_1]).masked()
    assert shown["shard_urls"] == [HOME, "postgresql://senki_app:********@shard1:5432/senki"]
    assert "secret" not in str(shown)
