"""Access tokens as campaign facts: given a campaign, when a token is issued or revoked, then."""

from __future__ import annotations

import pytest

from domain.campaign import access_commands as ac
from domain.campaign import campaign
from domain.campaign.errors import NotPermitted, UnknownMember, WrongState
from tests.unit.campaign.table import AT, GM, PLAYER, new_id

HASH = "cd" * 32


def given_a_campaign_with_a_player() -> campaign.Campaign:
    events = [
        campaign.CampaignOpened(
            name="c", ruleset="glorious_drive", options={}, gm=GM, at=AT, by=GM
        ),
        *ac.first_token(GM, "00000001", HASH, at=AT),
        campaign.MemberAdded(member_id=PLAYER, role="player", at=AT, by=GM),
    ]
    return campaign.KIND.rebuild(new_id(1), events)


def issue(state: campaign.Campaign, **fields: object) -> list[campaign.DomainEvent]:
    values: dict[str, object] = {
        "kind": "member",
        "member_id": PLAYER,
        "label": "",
        "token_id": "00000002",
        "secret_sha256": HASH,
        "at": AT,
        "by": GM,
    }
    return ac.issue_token(state, **(values | fields))  # type: ignore[arg-type]


def test_the_opener_gets_the_first_token_and_only_its_hash_is_kept() -> None:
    state = given_a_campaign_with_a_player()
    token = state.tokens["00000001"]
    assert (token.member_id, token.kind, token.secret_sha256) == (GM, "member", HASH)


def test_a_gm_issues_a_token_for_a_member() -> None:
    state = given_a_campaign_with_a_player()
    (issued,) = issue(state)
    state = campaign.evolve(state, issued)
    assert state.tokens["00000002"].member_id == PLAYER


def test_a_player_may_not_issue_tokens() -> None:
    with pytest.raises(NotPermitted, match="only a GM"):
        issue(given_a_campaign_with_a_player(), by=PLAYER)


def test_a_token_for_a_stranger_is_refused() -> None:
    with pytest.raises(UnknownMember, match="add them first"):
        issue(given_a_campaign_with_a_player(), member_id="stranger")


def test_a_site_token_belongs_to_no_member() -> None:
    state = given_a_campaign_with_a_player()
    (issued,) = issue(state, kind="site", member_id=None, label="sheet site")
    assert campaign.evolve(state, issued).tokens["00000002"].kind == "site"
    with pytest.raises(WrongState):
        issue(state, kind="site", member_id=PLAYER)


def test_a_member_revokes_their_own_token_and_twice_changes_nothing() -> None:
    state = given_a_campaign_with_a_player()
    state = campaign.evolve(state, issue(state)[0])
    (revoked,) = ac.revoke_token(state, "00000002", at=AT, by=PLAYER)
    state = campaign.evolve(state, revoked)
    assert state.tokens["00000002"].revoked
    assert ac.revoke_token(state, "00000002", at=AT, by=GM) == []


def test_a_player_may_not_revoke_the_gms_token() -> None:
    with pytest.raises(NotPermitted):
        ac.revoke_token(given_a_campaign_with_a_player(), "00000001", at=AT, by=PLAYER)
