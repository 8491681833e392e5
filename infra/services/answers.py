"""What the services answer: typed, frozen shapes declared once (issue #16 item 2).

A command's answer is built here from the state it reached, kept as JSON beside its events
for a retry (infra/services/executor.py), and served by api/ as its response model as it is:
no route rebuilds a model from a dict. The class names are the OpenAPI schema names
(tests/api/test_openapi*.py pins them), and a docstring here is a schema's description.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue

from domain.campaign.campaign import Campaign
from domain.campaign.character import Character
from domain.campaign.derived import character_stats
from domain.campaign.model import Ratio
from domain.campaign.scenario import Scenario
from domain.campaign.unit import Unit
from domain.rules.glorious_drive.stats import STAT_KEYS

SlotKind = Literal["weapon", "armour", "skill", "accessory", "general"]
Injury = Literal["none", "faint", "shutdown", "critical", "incapacitated", "dead"]
Ruleset = Literal["glorious_drive", "wizardry_round", "armor_knights"]
Role = Literal["gm", "player", "viewer"]

# The stored answer is PostgreSQL jsonb, which keeps no key order: so that a retry's answer
# (restored from it) is byte for byte the first one, every object in an answer is put in one
# order whichever way it came, stats in GD-STAT's order, house rules by name.
_STAT_RANK = {key: rank for rank, key in enumerate(STAT_KEYS)}


def _stat_rank(key: str) -> tuple[int, str]:
    return _STAT_RANK.get(key, len(_STAT_RANK)), key


def _in_stat_order(stats: dict[str, int]) -> dict[str, int]:
    keys = tuple(stats)
    if keys == STAT_KEYS or len(keys) < 2:  # the usual case (a full block), without a sort
        return stats
    ranked = sorted(keys, key=_stat_rank)
    return stats if ranked == list(keys) else {key: stats[key] for key in ranked}


def _by_name(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {key: _by_name(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_by_name(item) for item in value]
    return value


def _options_by_name(options: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return {key: _by_name(options[key]) for key in sorted(options)}


Stats = Annotated[dict[str, int], AfterValidator(_in_stat_order)]
HouseRules = Annotated[dict[str, JsonValue], AfterValidator(_options_by_name)]


class Answer(BaseModel):
    """Frozen: an answer is handed out as it was built (and stored), never patched on the way."""

    # from_attributes: a leaf (an item, a skill) is read off the domain's own object by
    # pydantic-core, with no dict or Python call in between.
    model_config = ConfigDict(frozen=True, from_attributes=True)


class ItemPublic(Answer):
    """A piece of equipment as recorded: its slot, its cost (GD-COST-1), its stats."""

    name: str
    slot: SlotKind
    cost: int
    stats: Stats


class SkillPublic(Answer):
    """A skill as recorded: its cost while used (GD-COST-3), and its uses per scenario."""

    name: str
    cost: int
    uses: int


class RatioPublic(Answer):
    """An exact ratio (GD-HPS-3) and its value for display."""

    numerator: int
    denominator: int
    value: float


class InjuryPublic(Answer):
    scenario_id: str
    injury: Injury


class CharacterPublic(Answer):
    id: str
    version: int
    campaign_id: str
    owner: str
    name: str
    level: int
    base_stats: Stats
    items: list[ItemPublic]
    skills: list[SkillPublic]
    max_hp: int = Field(description="GD-COST-1: max HP after equipment cost.")
    current_hp: int
    carried_ratio: RatioPublic = Field(description="GD-HPS-3: brought into the next scenario.")
    injuries: list[InjuryPublic]
    lost: bool = Field(description="GD-INJ-4: dead, so in no later scenario.")


class CharacterSheet(CharacterPublic):
    stats: Stats = Field(description="Effective stats: base plus equipment.")


class UnitPublic(Answer):
    id: str
    version: int
    campaign_id: str
    pilot_id: str
    name: str
    kind: Literal["assault_core", "carrier"]
    base_stats: Stats
    items: list[ItemPublic]
    max_hp: int
    current_hp: int


class UnitSheet(UnitPublic):
    stats: Stats = Field(description="GD-STAT-2: boosted by the pilot's piloting.")
    current_hp: int = Field(description="GD-HPS-2: max HP at the pilot's carried ratio.")
    carried_ratio: RatioPublic
    piloting_boost: int = Field(description="The pilot's piloting: +% on the unit's stats.")
    pilot_name: str
    owner: str


class Member(Answer):
    member_id: str
    role: Role


class CampaignPublic(Answer):
    id: str
    version: int
    name: str
    ruleset: Ruleset
    options: HouseRules
    members: list[Member]


class TokenRecorded(CampaignPublic):
    """What is stored for a command that issued a token: its id, never its secret (derived
    again from the master key when the answer is shown: infra/services/campaigns.py)."""

    token_id: str


class CampaignCreated(CampaignPublic):
    token: str = Field(description="The GM's first token. Shown once: keep it safe.")
    token_id: str


class TokenIssued(CampaignPublic):
    token: str = Field(description="Shown once: keep it safe.")
    token_id: str


class Participant(Answer):
    character_id: str
    unit_id: str | None


class Entry(Participant):
    ratio: RatioPublic
    pilot_hp: int
    pilot_max_hp: int
    unit_hp: int | None
    unit_max_hp: int | None


class Outcome(Answer):
    character_id: str
    fought_in: str
    end_hp: int
    max_hp: int
    ratio: RatioPublic
    injury: Injury


class ScenarioPublic(Answer):
    id: str
    version: int
    campaign_id: str
    name: str
    status: Literal["open", "in_progress", "closed"]
    participants: list[Participant]
    entries: list[Entry] = Field(description="GD-HPS-2/3: HP in, recorded at the start.")
    outcomes: list[Outcome] = Field(description="GD-HPS-1/3: HP out, recorded at the close.")


# --- built from the states ---


def ratio(value: Ratio) -> RatioPublic:
    """An exact ratio as the API shows it, with its value for display (unvalidated: both
    numbers are the domain's, checked there)."""
    return RatioPublic.model_construct(
        numerator=value.numerator,
        denominator=value.denominator,
        value=value.numerator / value.denominator,
    )


def _character_fields(state: Character, version: int) -> dict[str, Any]:
    """The fields a character's answer and its sheet share: items and skills as the domain
    objects, read off by attribute when the answer is validated."""
    return {
        "id": str(state.id),
        "version": version,
        "campaign_id": str(state.campaign_id),
        "owner": state.owner,
        "name": state.name,
        "level": state.level,
        "base_stats": dict(state.base_stats),
        "items": state.items,
        "skills": state.skills,
        "max_hp": state.max_hp,
        "current_hp": state.current_hp,
        "carried_ratio": ratio(state.carried_ratio),
        "injuries": [
            InjuryPublic.model_construct(scenario_id=str(i.scenario_id), injury=i.injury)
            for i in state.injuries
        ],
        "lost": state.lost,
    }


def character(state: Character, version: int) -> CharacterPublic:
    """A character as the API shows it."""
    return CharacterPublic(**_character_fields(state, version))


def character_sheet(state: Character, version: int) -> CharacterSheet:
    """The sheet a character-sheet site shows: effective stats (base plus equipment) too."""
    stats = character_stats(state.base_stats, state.items)
    return CharacterSheet(**_character_fields(state, version), stats=dict(stats))


def unit_fields(state: Unit, version: int) -> dict[str, Any]:
    """The fields a unit's answer and its sheet share (items read off by attribute)."""
    return {
        "id": str(state.id),
        "version": version,
        "campaign_id": str(state.campaign_id),
        "pilot_id": str(state.pilot_id),
        "name": state.name,
        "kind": state.kind,
        "base_stats": dict(state.base_stats),
        "items": state.items,
        "max_hp": state.max_hp,
        "current_hp": state.current_hp,
    }


def unit(state: Unit, version: int) -> UnitPublic:
    """A unit as the API shows it."""
    return UnitPublic(**unit_fields(state, version))


def campaign(state: Campaign, version: int) -> CampaignPublic:
    """A campaign as the API shows it (token hashes are never shown)."""
    return CampaignPublic(**_campaign_fields(state, version))


def token_recorded(state: Campaign, version: int, token_id: str) -> TokenRecorded:
    return TokenRecorded(**_campaign_fields(state, version), token_id=token_id)


def _campaign_fields(state: Campaign, version: int) -> dict[str, Any]:
    return {
        "id": str(state.id),
        "version": version,
        "name": state.name,
        "ruleset": state.ruleset,
        "options": state.options,
        "members": [Member(member_id=m, role=r) for m, r in sorted(state.members.items())],
    }


def scenario(state: Scenario, version: int) -> ScenarioPublic:
    """A scenario as the API shows it: participants, HP in at the start and out at the close."""
    return ScenarioPublic(
        id=str(state.id),
        version=version,
        campaign_id=str(state.campaign_id),
        name=state.name,
        status=state.status,
        participants=[
            Participant(character_id=str(p.character_id), unit_id=_id(p.unit_id))
            for p in state.participants
        ],
        entries=[
            Entry(
                character_id=str(e.character_id),
                unit_id=_id(e.unit_id),
                ratio=ratio(e.ratio),
                pilot_hp=e.pilot_hp,
                pilot_max_hp=e.pilot_max_hp,
                unit_hp=e.unit_hp,
                unit_max_hp=e.unit_max_hp,
            )
            for e in state.entries
        ],
        outcomes=[
            Outcome(
                character_id=str(o.character_id),
                fought_in=str(o.fought_in),
                end_hp=o.end_hp,
                max_hp=o.max_hp,
                ratio=ratio(o.ratio),
                injury=o.injury,
            )
            for o in state.outcomes
        ],
    )


def _id(value: object | None) -> str | None:
    return None if value is None else str(value)
