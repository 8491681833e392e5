"""Tables a GM keeps (issue 36 §3): given a campaign, when the GM saves a dice table and edits
it, then members roll it by name, each roll names the table and version it came from and
verifies after the reveal, and a sheet site reads every version."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, open_campaign
from tests.integration.test_cli import assert_one_clear_line, run
from tests.support.databases import shard_count

pytestmark = pytest.mark.postgres

DRINKS = (
    "飲み物表\n1D6\n1:水\n2:緑茶\n3:麦茶\n4:コーラ\n5:オレンジジュース\n6:選ばれし者の知的飲料\n"
)
DRINKS_2 = DRINKS.replace("コーラ", "ラムネ")


def test_members_roll_a_kept_table_by_name_and_the_record_names_its_version(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    tables = f"/v1/campaigns/{campaign.id}/tables"
    first = campaign.post(tables, json={"name": "飲み物", "text": DRINKS})
    assert first.status_code == 200, first.text
    assert (first.json()["version"], first.json()["dice"], first.json()["rows"]) == (1, "1D6", 6)
    rolls = f"/v1/campaigns/{campaign.id}/rolls"
    opened = campaign.post(rolls, aoi, json={"name": "卓", "table": "飲み物"})
    assert opened.status_code == 201, opened.text
    assert opened.json()["roll"]["table"] == "表「飲み物」v1"
    log_id = opened.json()["roll_log"]["id"]
    assert campaign.post(tables, json={"name": "飲み物", "text": DRINKS_2}).json()["version"] == 2
    again = campaign.post(rolls, aoi, json={"roll_log_id": log_id, "table": "飲み物"})
    assert again.status_code == 200, again.text
    log = client.get(f"/v1/roll-logs/{log_id}", headers=auth(aoi)).json()
    assert [e["table"] for e in log["entries"]] == ["表「飲み物」v1", "表「飲み物」v2"]
    assert [e["comment"] for e in log["entries"]] == ["", ""]  # a table's text has no comment
    assert [e["command"] for e in log["entries"]] == [DRINKS, DRINKS_2]
    assert all(e["text"].startswith("飲み物表(") for e in log["entries"])
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(aoi)).json()
    assert audit["all_verified"] is True


def test_a_sheet_site_reads_every_table_and_every_version(client: TestClient) -> None:
    campaign = open_campaign(client)
    tables = f"/v1/campaigns/{campaign.id}/tables"
    for name, text in (("飲み物", DRINKS), ("飲み物", DRINKS_2), ("天気", "天気\n1D2\n1:晴\n2:雨")):
        assert campaign.post(tables, json={"name": name, "text": text}).status_code == 200
    site = campaign.site_token()
    listed = client.get(tables, headers=auth(site)).json()["tables"]
    assert [(t["name"], t["version"], t["title"]) for t in listed] == [
        ("天気", 1, "天気"),
        ("飲み物", 2, "飲み物表"),
    ]
    one = client.get(f"{tables}/飲み物", headers=auth(site)).json()
    assert [(v["version"], v["text"], v["saved_by"]) for v in one["versions"]] == [
        (1, DRINKS, "gm"),
        (2, DRINKS_2, "gm"),
    ]
    assert client.get(f"{tables}/無い表", headers=auth(site)).status_code == 404


def test_only_the_gm_saves_and_a_broken_table_or_name_is_refused(client: TestClient) -> None:
    campaign = open_campaign(client)
    tables = f"/v1/campaigns/{campaign.id}/tables"
    aoi = campaign.token_for("aoi")
    assert campaign.post(tables, aoi, json={"name": "表", "text": DRINKS}).status_code == 403
    broken = campaign.post(tables, json={"name": "表", "text": "表\n1D6\n1:a\n"})
    assert broken.status_code == 422
    assert "1–6" in broken.json()["detail"]
    for name in ("a/b", " 表", "改\n行"):
        assert campaign.post(tables, json={"name": name, "text": DRINKS}).status_code == 422
    unknown = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", aoi, json={"name": "卓", "table": "無い表"}
    )
    assert unknown.status_code == 404
    assert "無い表" in unknown.json()["detail"]
    both = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", aoi, json={"expression": "1D6", "table": "表"}
    )
    assert both.status_code == 422


def test_senki_dice_roll_table_rolls_a_kept_table_by_name(
    client: TestClient, app_url: str, owner_url: str
) -> None:
    campaign = open_campaign(client)
    tables = f"/v1/campaigns/{campaign.id}/tables"
    assert campaign.post(tables, json={"name": "飲み物", "text": DRINKS}).status_code == 200
    env = {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": "ef" * 32,
        "SENKI_SHARDS": str(shard_count()),  # the log the tests made: CI's has three
    }
    rolled = run("dice", "roll", "--table", "飲み物", "--campaign", campaign.id, **env)
    assert rolled.returncode == 0, rolled.stderr
    assert "#0 表「飲み物」v1: 飲み物表(" in rolled.stdout
    log = rolled.stdout.split("new roll log ")[1].split()[0]
    assert run("dice", "reveal", log, **env).returncode == 0
    verified = run("dice", "verify", log, **env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    unknown = run("dice", "roll", "--table", "無い表", "--campaign", campaign.id, **env)
    assert unknown.returncode != 0
    assert_one_clear_line(unknown, "無い表")
    assert run("dice", "roll", "--table", "飲み物", **env).returncode == 2  # no --campaign


def test_a_secret_roll_of_a_kept_table_withholds_which_table_until_the_reveal(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    aoi, mio = campaign.token_for("aoi"), campaign.token_for("mio", "viewer")
    tables = f"/v1/campaigns/{campaign.id}/tables"
    assert campaign.post(tables, json={"name": "罠", "text": DRINKS}).status_code == 200
    rolled = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls",
        aoi,
        json={"name": "卓", "table": "罠", "secret": True},
    )
    log_id = rolled.json()["roll_log"]["id"]
    seen = client.get(f"/v1/roll-logs/{log_id}", headers=auth(mio)).json()["entries"][0]
    assert (seen["withheld"], seen["table"], seen["command"]) == (True, None, "")
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    seen = client.get(f"/v1/roll-logs/{log_id}", headers=auth(mio)).json()["entries"][0]
    assert (seen["table"], seen["command"]) == ("表「罠」v1", DRINKS)
