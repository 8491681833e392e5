"""Member roles: the opener is GM, only a GM manages members and house rules, a member may
leave, and a campaign never loses its last GM."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.campaign import campaign_commands as cc
from domain.campaign import character_commands as ch
from domain.campaign.campaign import (
    CampaignOpened,
    MemberAdded,
    MemberRemoved,
    MemberRoleChanged,
    Role,
    RulesetId,
)
from domain.campaign.errors import (
    InvalidOptions,
    LastGameMaster,
    NotPermitted,
    UnknownMember,
    WrongState,
)
from domain.rules.glorious_drive.options import GloriousDriveOptions
from tests.unit.campaign.table import AT, GM, PLAYER, Table, stats


def given_members(table: Table, members: dict[str, Role]) -> UUID:
    campaign = table.open_campaign()
    for member, role in members.items():
        command = cc.AddMember(member_id=member, role=role)
        table.append(campaign, cc.add_member(table.campaign(campaign), command, at=AT, by=GM))
    return campaign


def test_the_opener_becomes_the_first_gm_and_the_options_are_stored_in_full() -> None:
    table = Table()
    campaign = table.open_campaign(piloting_rounding="ceil")

    opened = table.streams[campaign][0]
    assert isinstance(opened, CampaignOpened)
    assert table.campaign(campaign).members == {GM: "gm"}
    assert table.campaign(campaign).gd_options() == GloriousDriveOptions(piloting_rounding="ceil")
    assert opened.options == GloriousDriveOptions(piloting_rounding="ceil").model_dump(mode="json")


def test_glorious_drive_options_are_validated_against_its_options_model() -> None:
    table = Table()
    with pytest.raises(InvalidOptions, match="piloting_rounding"):
        table.open_campaign(piloting_rounding="banker")
    with pytest.raises(InvalidOptions, match="no_such_option"):
        table.open_campaign(no_such_option=True)


@pytest.mark.parametrize("ruleset", ["wizardry_round", "armor_knights"])
def test_the_other_rulesets_keep_a_plain_dict_of_options(ruleset: RulesetId) -> None:
    table = Table()
    stream = table.fresh_id()
    command = cc.OpenCampaign(name="x", ruleset=ruleset, options={"tp_pool": "party_sum"})

    table.append(stream, cc.open_campaign(table.campaign(stream), command, at=AT, by=GM))

    assert table.campaign(stream).options == {"tp_pool": "party_sum"}
    with pytest.raises(WrongState, match="not glorious_drive"):
        table.campaign(stream).gd_options()


def test_a_gm_changes_house_rules_and_a_player_may_not() -> None:
    table = Table()
    campaign = given_members(table, {PLAYER: "player"})
    command = cc.ChangeOptions(options={"hps_rounding": "round"})

    table.append(campaign, cc.change_options(table.campaign(campaign), command, at=AT, by=GM))

    assert table.campaign(campaign).gd_options().hps_rounding == "round"
    with pytest.raises(NotPermitted, match="only a GM may change house rules"):
        cc.change_options(table.campaign(campaign), command, at=AT, by=PLAYER)


def test_a_gm_adds_players_and_viewers_and_a_player_may_not_add_anyone() -> None:
    table = Table()
    campaign = given_members(table, {PLAYER: "player", "viewer-1": "viewer"})

    assert table.campaign(campaign).members == {GM: "gm", PLAYER: "player", "viewer-1": "viewer"}
    assert [type(e) for e in table.streams[campaign][1:]] == [MemberAdded, MemberAdded]
    with pytest.raises(NotPermitted, match="only a GM may add members"):
        cc.add_member(
            table.campaign(campaign), cc.AddMember(member_id="x", role="player"), at=AT, by=PLAYER
        )
    with pytest.raises(WrongState, match="a member already"):
        cc.add_member(
            table.campaign(campaign), cc.AddMember(member_id=PLAYER, role="gm"), at=AT, by=GM
        )


def test_the_last_gm_can_neither_be_demoted_nor_removed() -> None:
    table = Table()
    state = table.campaign(given_members(table, {PLAYER: "player"}))

    with pytest.raises(LastGameMaster, match="only GM"):
        cc.change_role(state, cc.ChangeMemberRole(member_id=GM, role="player"), at=AT, by=GM)
    with pytest.raises(LastGameMaster, match="make another member GM first"):
        cc.remove_member(state, cc.RemoveMember(member_id=GM), at=AT, by=GM)


def test_with_a_second_gm_the_first_may_step_down_and_leave() -> None:
    table = Table()
    campaign = given_members(table, {PLAYER: "player"})
    promote = cc.ChangeMemberRole(member_id=PLAYER, role="gm")
    promoted = cc.change_role(table.campaign(campaign), promote, at=AT, by=GM)
    table.append(campaign, promoted)

    left = cc.remove_member(table.campaign(campaign), cc.RemoveMember(member_id=GM), at=AT, by=GM)
    table.append(campaign, left)

    assert promoted == [MemberRoleChanged(member_id=PLAYER, role="gm", at=AT, by=GM)]
    assert left == [MemberRemoved(member_id=GM, at=AT, by=GM)]
    assert table.campaign(campaign).members == {PLAYER: "gm"}


def test_a_player_may_leave_but_not_remove_someone_else() -> None:
    table = Table()
    campaign = given_members(table, {PLAYER: "player", "player-2": "player"})
    state = table.campaign(campaign)

    assert cc.remove_member(state, cc.RemoveMember(member_id=PLAYER), at=AT, by=PLAYER)
    with pytest.raises(NotPermitted, match="only a GM may remove other members"):
        cc.remove_member(state, cc.RemoveMember(member_id="player-2"), at=AT, by=PLAYER)


def test_changing_a_role_to_the_one_held_records_nothing_and_strangers_are_unknown() -> None:
    table = Table()
    state = table.campaign(given_members(table, {PLAYER: "player"}))

    assert (
        cc.change_role(state, cc.ChangeMemberRole(member_id=PLAYER, role="player"), at=AT, by=GM)
        == []
    )
    with pytest.raises(UnknownMember, match="'nobody' is not a member"):
        cc.change_role(state, cc.ChangeMemberRole(member_id="nobody", role="gm"), at=AT, by=GM)


def test_a_character_belongs_to_a_gm_or_player_and_a_player_registers_only_their_own() -> None:
    table = Table()
    state = table.campaign(given_members(table, {PLAYER: "player", "viewer-1": "viewer"}))
    blank = table.character(table.fresh_id())

    def register(owner: str, by: str) -> object:
        command = ch.RegisterCharacter(owner=owner, name="Aoi", level=1, base_stats=stats())
        return ch.register_character(blank, state, command, at=AT, by=by)

    assert register(PLAYER, PLAYER)
    assert register(PLAYER, GM)
    with pytest.raises(UnknownMember, match="not a GM or player"):
        register("viewer-1", GM)
    with pytest.raises(NotPermitted, match="only register characters they own"):
        register(GM, PLAYER)
