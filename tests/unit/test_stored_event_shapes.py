"""Stored JSON shapes never change in place: each event type has a golden file that must load.

To add a shape: write the event's JSON to tests/golden/events/<topic>.json (the test prints
it when missing); a rule system's facts have theirs in domain/rules/<id>/golden/events. To
change a shape: bump the class version, add an upcaster, keep the old file — it must still
load through the upcaster.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain import rules
from domain.campaign.dice_tables import DiceTableSaved
from domain.catalog import registry
from domain.dice import commitment
from domain.dice.bcdice import Rand, TableRoll, roll_server, verify
from domain.dice.bcdice.faces import too_many_dice
from domain.dice.bcdice.record import REFUSED_TEXT
from domain.dice.bcdice.user_table import SYSTEM_ID as TABLE_SYSTEM
from domain.events import DomainEvent, EventRegistry, UnknownEventType
from domain.roll_log import DiceRolled, DiceRollRefused, DiceSeedRevealed, KeptTable, RollLogOpened
from domain.roll_logs import RollLogListed, table_log_of
from tests.support.golden import assert_loads_to

GOLDEN = Path(__file__).parent.parent / "golden" / "events"
AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SEED = bytes(32)
STREAM = uuid.UUID("00000000-0000-4000-8000-00000000000a")


def _refused() -> DiceRollRefused:
    """The shape only: a real refusal after drawing has thousands of dice (a reroll chain)."""
    reason = too_many_dice().args[0]
    dice = (Rand(sides=10000, value=9711), Rand(sides=10000, value=4802))
    roll = TableRoll(
        roll_seq=1,
        command="1U10000[2]",
        purpose="table roll",
        source="server",
        client_seed="aoi",
        text=REFUSED_TEXT + reason,
        total=None,
        success=False,
        failure=False,
        critical=False,
        fumble=False,
        secret=False,
        rands=dice,
    )
    return DiceRollRefused(result=roll, reason=reason, at=AT, by="aoi")


SAMPLES: list[DomainEvent] = [
    RollLogOpened(name="table", commitment=commitment(SEED), at=AT, by="gm"),
    DiceRolled(
        result=roll_server(
            "2D6+3>=10 攻撃",
            server_seed=SEED,
            stream_id=STREAM,
            roll_seq=0,
            purpose="GD-CHK-1",
            client_seed="p1",
        ),
        at=AT,
        by="member-1",
    ),
    _refused(),
    DiceSeedRevealed(server_seed=SEED.hex(), at=AT, by="gm"),
    DiceTableSaved(
        campaign_id=STREAM,
        name="飲み物表",
        table_version=2,
        text="飲み物表\n1D6\n1:水\n2:緑茶\n3:麦茶\n4:コーラ\n5:オレンジジュース\n6:選ばれし者の知的飲料\n",
        at=AT,
        by="gm",
    ),
    RollLogListed(
        campaign_id=STREAM,
        log_id=table_log_of(STREAM, 1),
        name="table rolls",
        kind="table",
        generation=1,
        at=AT,
        by="aoi",
    ),
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_event_still_loads_to_the_same_event(event: DomainEvent) -> None:
    path = GOLDEN / f"{registry.topic(event)}.json"
    assert_loads_to(path, event)


def test_a_v1_table_roll_reads_as_v2_and_still_verifies_from_the_seed() -> None:
    stored = json.loads((GOLDEN / "DiceRolled.v1.json").read_text(encoding="utf-8"))
    event = registry.decode("DiceRolled.v1", stored)
    assert isinstance(event, DiceRolled)
    assert event.result.text == "(2D6+3>=10) ＞ 6[5,1]+3 ＞ 9 ＞ 失敗"
    assert (event.result.failure, event.result.command) == (True, "2D6+3>=10 攻撃")
    # The v1 golden was rolled with SEED on STREAM: its dice are recomputed the old way.
    check = verify(event.result, server_seed=SEED, stream_id=STREAM)
    assert check.verified, check.problems


def test_a_kept_tables_roll_names_it_loads_and_verifies_from_the_seed() -> None:
    """A roll of a GM's kept table (DiceRolled v2 with `table`): its name and version, and its
    text as the command, which verification rolls again."""
    text = "飲み物表\n1D6\n1:水\n2:緑茶\n3:麦茶\n4:コーラ\n5:オレンジジュース\n6:知的飲料\n"
    rolled = roll_server(
        text, server_seed=SEED, stream_id=STREAM, roll_seq=1, purpose="表", system=TABLE_SYSTEM
    )
    event = DiceRolled(result=rolled, table=KeptTable(name="飲み物表", version=2), at=AT, by="aoi")
    path = GOLDEN / "DiceRolled.v2.kept-table.json"
    if not path.exists():
        pytest.fail(f"create {path} with:\n{event.model_dump_json()}")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode("DiceRolled.v2", stored) == event
    assert verify(event.result, server_seed=SEED, stream_id=STREAM).verified


def test_every_registered_event_type_has_a_golden_file() -> None:
    # A rule system's goldens live in its own folder (domain/rules/<id>/golden/events).
    systems = Path(rules.__file__).parent.glob("*/golden/events/*.json")
    topics = {path.stem for path in (*GOLDEN.glob("*.json"), *systems)}
    versions = {t.rpartition(".v")[0] for t in topics}
    assert set(registry.known_types()) <= versions


def test_an_old_shape_is_upcast_when_read() -> None:
    local = EventRegistry()

    class Marked(DomainEvent):
        event_type = "test.Marked"
        version = 2
        marks: int
        reason: str

    local.register(Marked)

    @local.upcaster("test.Marked", 1)
    def add_reason(data: dict[str, object]) -> dict[str, object]:
        return data | {"reason": "unknown (recorded before v2)"}

    event = local.decode("test.Marked.v1", {"at": AT.isoformat(), "by": "gm", "marks": 3})
    assert event == Marked(marks=3, reason="unknown (recorded before v2)", at=AT, by="gm")


def test_a_newer_shape_than_this_build_is_refused_with_a_clear_error() -> None:
    with pytest.raises(UnknownEventType, match="upgrade Senki"):
        registry.decode("RollLogOpened.v9", {})
