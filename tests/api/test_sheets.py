"""Sheets over HTTP: given a pilot and a core, when a site reads or a tool imports, then values."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.services.runtime import Runtime
from infra.settings import Settings
from tests.api.conftest import Campaign, auth, key, open_campaign
from tests.api.roster import AOI, ok, register_core, register_pilot, start_scenario
from tests.support.runtime import log_heads

pytestmark = pytest.mark.postgres

VALUES = ("name", "level", "stats", "max_hp", "current_hp", "carried_ratio", "items", "lost")


@pytest.fixture
def campaign(client: TestClient) -> Campaign:
    campaign = open_campaign(client)
    campaign.token_for("aoi")
    return campaign


def read(campaign: Campaign, path: str, token: str | None = None, **headers: str) -> Any:
    return campaign.client.get(path, headers=auth(token or campaign.gm, **headers))


def sheet_values(sheet: dict[str, Any]) -> dict[str, Any]:
    return {name: sheet[name] for name in VALUES}


def test_a_character_sheet_shows_effective_stats_and_hp(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    visor = {"name": "バイザー", "slot": "accessory", "cost": 10, "stats": {"evasion": 3}}
    campaign.post(f"/v1/characters/{pilot['id']}/items", json=visor)

    sheet = ok(read(campaign, f"/v1/characters/{pilot['id']}/sheet", campaign.site_token()))

    assert sheet["stats"]["evasion"] == AOI["evasion"] + 3
    assert sheet["base_stats"] == AOI
    assert (sheet["current_hp"], sheet["max_hp"], sheet["lost"]) == (80, 80, False)
    assert sheet["carried_ratio"] == {"numerator": 1, "denominator": 1, "value": 1.0}
    assert [i["name"] for i in sheet["items"]] == ["バイザー"]


def test_a_sheet_is_304_until_it_changes(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    path = f"/v1/characters/{pilot['id']}/sheet"
    site = campaign.site_token()
    tag = read(campaign, path, site).headers["ETag"]

    assert read(campaign, path, site, **{"If-None-Match": tag}).status_code == 304
    campaign.post(f"/v1/characters/{pilot['id']}/skills", json={"name": "a", "cost": 0, "uses": 1})
    changed = read(campaign, path, site, **{"If-None-Match": tag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != tag


def test_a_site_token_reads_sheets_but_may_not_write(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    site = campaign.site_token()

    assert read(campaign, f"/v1/characters/{pilot['id']}/sheet", site).status_code == 200
    imported = campaign.post(
        f"/v1/campaigns/{campaign.id}/characters/import",
        site,
        json={"data": {"status": [{"label": "生命", "value": 80, "max": 80}]}},
    )
    assert imported.status_code == 403
    registered = campaign.post(
        f"/v1/campaigns/{campaign.id}/characters", site, json={"name": "x", "base_stats": AOI}
    )
    assert registered.status_code == 403


def test_a_unit_sheet_shows_the_piloting_boost_and_the_pilots_ratio(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    core = register_core(campaign, pilot["id"])
    path = f"/v1/units/{core['id']}/sheet"
    before = read(campaign, path)

    closed = start_scenario(campaign, {pilot["id"]: core["id"]})
    results = [{"character_id": pilot["id"], "end_hp": 100}]
    ok(campaign.post(f"/v1/scenarios/{closed}/close", json={"results": results}))

    sheet = ok(read(campaign, path, **{"If-None-Match": before.headers["ETag"]}))
    assert sheet["piloting_boost"] == 150
    assert sheet["stats"]["phys_atk"] == 50  # 20 × 2.5 (GD-STAT-2)
    assert (sheet["current_hp"], sheet["max_hp"]) == (100, 400)  # EX-HPS-1
    assert sheet["carried_ratio"]["value"] == 0.25
    tag = read(campaign, path).headers["ETag"]
    assert read(campaign, path, **{"If-None-Match": tag}).status_code == 304


def test_ccfolia_export_is_a_character_piece_with_japanese_labels(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)

    exported = read(campaign, f"/v1/characters/{pilot['id']}/sheet?format=ccfolia")

    piece = ok(exported)
    assert piece["kind"] == "character"
    data = piece["data"]
    assert data["name"] == "蒼井ソラ"
    assert data["status"] == [{"label": "生命", "value": 80, "max": 80}]
    assert {"label": "回避", "value": "12"} in data["params"]
    assert data["initiative"] == 9
    assert data["externalUrl"].endswith(f"/table/characters/{pilot['id']}")  # the human page
    assert "1D100+{回避} 回避" in data["commands"]
    assert "PL: aoi" in data["memo"]
    json_tag = read(campaign, f"/v1/characters/{pilot['id']}/sheet").headers["ETag"]
    assert exported.headers["ETag"] != json_tag


def test_a_unit_exports_to_ccfolia_with_its_boosted_stats(campaign: Campaign) -> None:
    core = register_core(campaign, register_pilot(campaign)["id"])
    data = ok(read(campaign, f"/v1/units/{core['id']}/sheet?format=ccfolia"))["data"]
    assert data["name"] == "紅"
    assert data["status"] == [{"label": "生命", "value": 400, "max": 400}]
    assert {"label": "物理攻撃", "value": "50"} in data["params"]
    assert data["externalUrl"].endswith(f"/table/units/{core['id']}")
    page = campaign.client.get(data["externalUrl"])
    assert (page.status_code, page.headers["content-type"][:9]) == (200, "text/html")


def test_ccfolia_round_trip_gives_the_same_sheet_values(campaign: Campaign) -> None:
    pilot = register_pilot(campaign, level=3)
    boots = {"name": "ブースター", "slot": "general", "cost": 20, "stats": {"move": 2}}
    campaign.post(f"/v1/characters/{pilot['id']}/items", json=boots)
    original = ok(read(campaign, f"/v1/characters/{pilot['id']}/sheet"))
    exported = ok(read(campaign, f"/v1/characters/{pilot['id']}/sheet?format=ccfolia"))

    imported = campaign.post(
        f"/v1/campaigns/{campaign.id}/characters/import?owner=aoi", json=exported
    )

    copy = ok(imported, 201)
    assert copy["ignored"] == []
    copied = ok(read(campaign, f"/v1/characters/{copy['id']}/sheet"))
    # The equipment comes over inside the stats: a piece carries numbers, not items.
    assert sheet_values(copied) == sheet_values(original) | {"items": []}


def test_import_is_lenient_with_numeric_strings_and_unknown_labels(campaign: Campaign) -> None:
    aoi = campaign.token_for("aoi")
    clipboard = {
        "kind": "character",
        "data": {
            "name": "転校生",
            "status": [
                {"label": "生命", "value": "60", "max": "７０"},
                {"label": "MP", "value": 5},
            ],
            "params": [{"label": "回避", "value": 11}, {"label": "SAN", "value": "50"}],
            "iconUrl": None,
        },
    }

    imported = ok(
        campaign.post(f"/v1/campaigns/{campaign.id}/characters/import", aoi, json=clipboard), 201
    )

    assert (imported["owner"], imported["name"], imported["max_hp"]) == ("aoi", "転校生", 70)
    assert imported["base_stats"]["evasion"] == 11
    assert imported["base_stats"]["capacity"] == 0
    assert imported["ignored"] == ["MP", "SAN"]
    assert "full HP" in imported["notes"][0]
    assert "capacity" not in imported["defaulted"]
    assert "装備力" in imported["defaulted"]
    assert "回避" not in imported["defaulted"]
    assert "set to 0, not in the piece: 物理攻撃" in imported["notes"][1]


def test_an_import_maps_the_labels_other_tools_use(campaign: Campaign) -> None:
    clipboard = {
        "data": {
            "status": [{"label": "ＨＰ", "value": 45, "max": 50}],
            "params": [{"label": "回避力", "value": 9}, {"label": "行動値", "value": "7"}],
        }
    }
    imported = ok(
        campaign.post(f"/v1/campaigns/{campaign.id}/characters/import", json=clipboard), 201
    )
    assert (imported["max_hp"], imported["base_stats"]["evasion"]) == (50, 9)
    assert imported["base_stats"]["reaction"] == 7
    assert imported["ignored"] == []


def test_broken_json_says_the_line_and_column_where_it_broke(campaign: Campaign) -> None:
    broken = '{"kind": "character",\n "data": {"name": "a",\n  "status": []\n  "params": []}}'
    refused = campaign.client.post(
        f"/v1/campaigns/{campaign.id}/characters/import",
        headers=auth(campaign.gm) | key() | {"Content-Type": "application/json"},
        content=broken.encode(),
    )
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["errors"] == [
        {
            "field": "body",
            "message": "broken JSON at line 4, column 3 (character 62): Expecting ',' delimiter",
        }
    ]


def test_an_unusable_import_is_a_422_naming_each_problem(campaign: Campaign) -> None:
    clipboard = {"data": {"params": [{"label": "回避", "value": "たくさん"}]}}

    refused = campaign.post(f"/v1/campaigns/{campaign.id}/characters/import", json=clipboard)

    assert refused.status_code == 422
    problem = refused.json()
    assert "回避" in problem["detail"]
    assert "生命" in problem["detail"]
    assert {e["field"] for e in problem["errors"]} == {"body.data.params[0] 回避", "body.生命"}


def test_a_retried_import_registers_one_character(campaign: Campaign, runtime: Runtime) -> None:
    clipboard = {"data": {"status": [{"label": "生命", "value": 80, "max": 80}]}}
    headers = auth(campaign.gm) | key()
    path = f"/v1/campaigns/{campaign.id}/characters/import?owner=aoi"

    first = ok(campaign.client.post(path, headers=headers, json=clipboard), 201)
    head = log_heads(runtime)
    again = ok(campaign.client.post(path, headers=headers, json=clipboard), 201)

    assert again["id"] == first["id"]
    assert log_heads(runtime) == head


def test_cors_is_off_by_default_and_on_for_the_configured_origins(runtime: Runtime) -> None:
    origin = "https://sheets.example"
    preflight = {"Origin": origin, "Access-Control-Request-Method": "GET"}
    with TestClient(create_app(lambda: runtime, lambda _: None)) as plain:
        answer = plain.options("/v1/characters/x/sheet", headers=preflight)
        assert "access-control-allow-origin" not in answer.headers
    app = create_app(lambda: runtime, lambda _: None, cors_origins=[origin])
    with TestClient(app) as cors:
        answer = cors.options("/v1/characters/x/sheet", headers=preflight)
        assert answer.headers["access-control-allow-origin"] == origin


def test_cors_origins_come_from_a_json_list_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SENKI_CORS_ORIGINS", '["https://a.example", "https://b.example"]')
    assert Settings(_env_file=None).cors_origins == ["https://a.example", "https://b.example"]  # type: ignore[call-arg]
