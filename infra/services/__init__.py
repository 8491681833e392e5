"""The application services: the one door `api/` comes in by (docs/architecture.md).

api/ imports from this package only; what it may use is re-exported below, so the services,
the store and the projector can be rearranged without touching a route.
"""

# --- the door: what api/ may use (generated from its imports) ---
from infra.projector.reads import NotBuilt, Reflected
from infra.services.answers import (
    CampaignCreated,
    CampaignPublic,
    CharacterPublic,
    CharacterSheet,
    Entry,
    Injury,
    InjuryPublic,
    ItemPublic,
    Member,
    Outcome,
    Participant,
    RatioPublic,
    Role,
    Ruleset,
    ScenarioPublic,
    SkillPublic,
    SlotKind,
    TokenIssued,
    UnitPublic,
    UnitSheet,
)
from infra.services.append_watch import AppendWatch
from infra.services.audit import AuditEntry, seen_through
from infra.services.campaigns import InvalidToken, Principal, PrincipalRole, read_token
from infra.services.campaigns import describe as describe_campaigns
from infra.services.characters import describe as describe_characters
from infra.services.characters import sheet as sheet_of_character
from infra.services.dice_tables import DiceTablePublic
from infra.services.dice_tables import public as dice_table_public
from infra.services.encounter_answers import (
    Awaited,
    AwaitedDiePublic,
    AwaitingNext,
    CommandAnswer,
    DisputeAnswer,
    EncounterRoll,
    EventLog,
    EventPublic,
    LogLine,
    Ruling,
    awaited_die_of,
    line_of,
)
from infra.services.encounters import Actor, RefusedAfterDice
from infra.services.executor import (
    Idempotency,
    IdempotencyKeyReused,
    StaleVersion,
    Write,
)
from infra.services.ports import (
    LogHeadView,
    ProjectionPositionView,
    SenkiPort,
    ShardDownView,
    Unavailable,
)
from infra.services.roll_answers import RandPublic, RollAnswer, RollLogPublic, RollPublic
from infra.services.runtime import Runtime
from infra.services.scenarios import describe as describe_scenarios
from infra.services.units import describe as describe_units
from infra.services.visibility import Lens, payload_of
from infra.settings import Settings
from infra.store.connect import ShardUnavailable
from infra.store.ledger import Appended, ConcurrencyConflict, StreamMoved, is_unavailable
from infra.store.log_tree import Inclusion, LogEntry, NoSuchLeaf, ShardTree, TreeDisagrees
from infra.store.mapper import Recorded
from infra.store.merkle import ProofError
from infra.store.snapshot_seal import RefusedSnapshotsCollector
from infra.store.stream_page import read_page

__all__ = [
    "Actor",
    "AppendWatch",
    "Appended",
    "AuditEntry",
    "Awaited",
    "AwaitedDiePublic",
    "AwaitingNext",
    "CampaignCreated",
    "CampaignPublic",
    "CharacterPublic",
    "CharacterSheet",
    "CommandAnswer",
    "ConcurrencyConflict",
    "DiceTablePublic",
    "DisputeAnswer",
    "EncounterRoll",
    "Entry",
    "EventLog",
    "EventPublic",
    "Idempotency",
    "IdempotencyKeyReused",
    "Inclusion",
    "Injury",
    "InjuryPublic",
    "InvalidToken",
    "ItemPublic",
    "Lens",
    "LogEntry",
    "LogHeadView",
    "LogLine",
    "Member",
    "NoSuchLeaf",
    "NotBuilt",
    "Outcome",
    "Participant",
    "Principal",
    "PrincipalRole",
    "ProjectionPositionView",
    "ProofError",
    "RandPublic",
    "RatioPublic",
    "Recorded",
    "Reflected",
    "RefusedAfterDice",
    "RefusedSnapshotsCollector",
    "Role",
    "RollAnswer",
    "RollLogPublic",
    "RollPublic",
    "Ruleset",
    "Ruling",
    "Runtime",
    "ScenarioPublic",
    "SenkiPort",
    "Settings",
    "ShardDownView",
    "ShardTree",
    "ShardUnavailable",
    "SkillPublic",
    "SlotKind",
    "StaleVersion",
    "StreamMoved",
    "TokenIssued",
    "TreeDisagrees",
    "Unavailable",
    "UnitPublic",
    "UnitSheet",
    "Write",
    "awaited_die_of",
    "describe_campaigns",
    "describe_characters",
    "describe_scenarios",
    "describe_units",
    "dice_table_public",
    "is_unavailable",
    "line_of",
    "payload_of",
    "read_page",
    "read_token",
    "seen_through",
    "sheet_of_character",
]
# --- end of the door ---
