"""Cached token checks and sheets: given a warm cache, when the campaign or the pilot changes
(here, in this process, or in another one), then the next read sees it.

`elsewhere` is a second Runtime on the same database: another process of the API, with its
own pool and its own append watch. Its writes reach this process only through their NOTIFY.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.routes.sheets import CharacterSheet
from domain.campaign.model import Item
from infra.services import characters
from infra.services.append_watch import AppendWatch
from infra.services.runtime import Runtime
from infra.services.watched_states import WatchedStates
from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.roster import AOI, register_pilot
from tests.support.runtime import start_runtime

pytestmark = pytest.mark.postgres

WAIT_S = 10.0  # generous: only a broken watch ever waits this long
MAX_READS = 20


@pytest.fixture
def elsewhere(app_url: str, owner_url: str) -> Iterator[Runtime]:
    other = start_runtime(app_url, owner_url)
    yield other
    other.close()


@pytest.fixture
def campaign(client: TestClient, runtime: Runtime) -> Campaign:
    campaign = open_campaign(client)
    assert runtime.append_watch.wait_listening(WAIT_S)
    return campaign


def token_id(campaign: Campaign, member_id: str) -> str:
    listed = campaign.client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=auth(campaign.gm))
    tokens = listed.json()
    return str(next(t["token_id"] for t in tokens if t["member_id"] == member_id))


def warm(campaign: Campaign, runtime: Runtime, token: str) -> int:
    """Read the campaign with `token` until a check is served from the cache (the NOTIFYs of
    the set-up's own writes may still come in at first); the ticket it was served under."""
    access = runtime.campaigns.access
    assert access is not None
    for _ in range(MAX_READS):
        ticket, hits = runtime.append_watch.ticket(), access.hits
        read = campaign.client.get(f"/v1/campaigns/{campaign.id}", headers=auth(token))
        assert read.is_success, read.text
        if ticket is not None and access.hits > hits and runtime.append_watch.still(ticket):
            return ticket
    raise AssertionError(f"no token check came from the cache in {MAX_READS} reads")


def test_a_token_check_is_served_from_the_cache_while_nothing_is_appended(
    campaign: Campaign, runtime: Runtime
) -> None:
    player = campaign.token_for("aoi")

    ticket = warm(campaign, runtime, player)

    assert runtime.append_watch.still(ticket)


def test_a_token_revoked_elsewhere_is_refused_once_its_notify_is_heard(
    campaign: Campaign, runtime: Runtime, elsewhere: Runtime
) -> None:
    player = campaign.token_for("aoi")
    ticket = warm(campaign, runtime, player)

    elsewhere.campaigns.revoke_token(uuid.UUID(campaign.id), "gm", token_id(campaign, "aoi"))

    assert runtime.append_watch.wait_past(ticket, WAIT_S)
    read = campaign.client.get(f"/v1/campaigns/{campaign.id}", headers=auth(player))
    assert read.status_code == 401


def test_with_the_listener_stopped_a_revocation_elsewhere_is_refused_at_once(
    campaign: Campaign, runtime: Runtime, elsewhere: Runtime
) -> None:
    player = campaign.token_for("aoi")
    warm(campaign, runtime, player)
    runtime.append_watch.stop()

    elsewhere.campaigns.revoke_token(uuid.UUID(campaign.id), "gm", token_id(campaign, "aoi"))

    read = campaign.client.get(f"/v1/campaigns/{campaign.id}", headers=auth(player))
    assert read.status_code == 401
    assert runtime.append_watch.ticket() is None


@pytest.fixture
def deaf(runtime: Runtime) -> Iterator[AppendWatch]:
    """This process's caches on a watch that listens to no channel: no NOTIFY moves it, only
    this process's own writes do."""
    hearing, deaf = runtime.append_watch, AppendWatch(runtime.urls.service, shards=0)
    runtime.append_watch, runtime.campaigns.access = deaf, WatchedStates(deaf)
    runtime.character_states = WatchedStates(deaf)
    assert deaf.wait_listening(WAIT_S)
    yield deaf
    runtime.append_watch = hearing
    deaf.stop()


def test_a_member_removed_here_is_refused_without_waiting_for_any_notify(
    campaign: Campaign, runtime: Runtime, deaf: AppendWatch
) -> None:
    player = campaign.token_for("aoi")
    ticket = warm(campaign, runtime, player)

    removed = campaign.client.delete(
        f"/v1/campaigns/{campaign.id}/members/aoi", headers=auth(campaign.gm)
    )

    assert removed.status_code == 200
    assert not deaf.still(ticket)
    read = campaign.client.get(f"/v1/campaigns/{campaign.id}", headers=auth(player))
    assert read.status_code == 401


def test_a_sheet_changed_elsewhere_is_read_anew_once_its_notify_is_heard(
    campaign: Campaign, runtime: Runtime, elsewhere: Runtime
) -> None:
    pilot = register_pilot(campaign, owner="gm")
    path = f"/v1/characters/{pilot['id']}/sheet"
    first = campaign.client.get(path, headers=auth(campaign.gm))
    ticket = runtime.append_watch.ticket()
    assert ticket is not None
    assert (
        campaign.client.get(path, headers=auth(campaign.gm)).headers["ETag"]
        == first.headers["ETag"]
    )
    visor = Item(name="バイザー", slot="accessory", cost=10, stats={"evasion": 3})

    elsewhere.characters.equip(uuid.UUID(pilot["id"]), "gm", visor)

    assert runtime.append_watch.wait_past(ticket, WAIT_S)
    stale = {"If-None-Match": first.headers["ETag"]}
    changed = campaign.client.get(path, headers=auth(campaign.gm, **stale))
    assert changed.status_code == 200
    assert changed.json()["stats"]["evasion"] == AOI["evasion"] + 3
    current = {"If-None-Match": changed.headers["ETag"]}
    assert campaign.client.get(path, headers=auth(campaign.gm, **current)).status_code == 304


def test_a_rendered_sheet_is_what_the_response_model_gives(
    campaign: Campaign, runtime: Runtime
) -> None:
    pilot = register_pilot(campaign, owner="gm")
    path = f"/v1/characters/{pilot['id']}/sheet"

    bodies = [campaign.client.get(path, headers=auth(campaign.gm)) for _ in range(2)]

    state, version = runtime.characters.get(uuid.UUID(pilot["id"]))
    expected = CharacterSheet.model_validate(characters.sheet(state, version))
    assert [b.json() for b in bodies] == [expected.model_dump(mode="json")] * 2
    assert {b.headers["ETag"] for b in bodies} == {f'"{version}"'}
    assert bodies[1].headers["content-type"] == "application/json"


def test_a_sheet_changed_here_is_read_anew_without_waiting_for_any_notify(
    campaign: Campaign, runtime: Runtime, deaf: AppendWatch
) -> None:
    pilot = register_pilot(campaign, owner="gm")
    path = f"/v1/characters/{pilot['id']}/sheet"
    for _ in range(2):
        first = campaign.client.get(path, headers=auth(campaign.gm))
    assert runtime.character_states.hits > 0
    visor = {"name": "バイザー", "slot": "accessory", "cost": 10, "stats": {"evasion": 3}}

    assert campaign.post(f"/v1/characters/{pilot['id']}/items", json=visor).is_success

    changed = campaign.client.get(path, headers=auth(campaign.gm))
    assert changed.headers["ETag"] != first.headers["ETag"]
    assert changed.json()["stats"]["evasion"] == AOI["evasion"] + 3
