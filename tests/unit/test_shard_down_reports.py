"""The operator surfaces while one shard's PostgreSQL cluster is down (issue #18 follow-up,
docs/scaling.md "When one shard's cluster is down"): given a port whose shard 1 does not
answer, `/v1/log/head` answers 200 listing it as unavailable, `/metrics` says
`senki_shard_up{shard="1"} 0` and keeps every other shard's gauges, `projections status`
shows its rows with head and lag unavailable, and `senki verify` names it and never reports
its chain as holding."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import TYPE_CHECKING, ClassVar, cast

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console

from api.app import create_app
from api.metrics.projections import ProjectionCollector
from infra.cli.projections import status_table
from infra.projector.admin import shard_heads
from infra.services.ports import (
    LivenessView,
    LogHeadView,
    ProjectionPositionView,
    ShardDownView,
)
from infra.store.chain import ChainReport
from infra.store.connect import ShardUnavailable
from infra.store.ledger import LogHead
from infra.store.verify import (
    ReceiptResult,
    ShardResult,
    UnreachableShard,
    VerifyResult,
    as_document,
)
from infra.store.verify_snapshots import SnapshotReport
from infra.store.witness import TailEvidence

if TYPE_CHECKING:
    from infra.store.ledger import Ledger

HASH = "ab" * 32
ON_0 = ProjectionPositionView("rulings", 1, "live", 0, position=7, head=10)
ON_1 = ProjectionPositionView("rulings", 1, "live", 1, position=4, head=None)


class ShardOneDown:
    """Home and shard 0 answer; shard 1's cluster does not."""

    version = "test"
    ruleset_versions: ClassVar[dict[str, str]] = {}

    def liveness(self) -> LivenessView:
        return LivenessView("ok")

    def check_ready(self) -> None:
        return None

    def log_heads(self) -> list[LogHeadView | ShardDownView]:
        return [LogHeadView(0, 10, HASH), ShardDownView(1, "shard 1 … is unavailable")]

    def projection_positions(self) -> list[ProjectionPositionView]:
        return [ON_0, ON_1]


def test_the_log_head_lists_a_down_shard_as_unavailable_and_the_others_as_usual() -> None:
    senki = ShardOneDown()
    with TestClient(create_app(lambda: senki, lambda _: None)) as client:
        answer = client.get("/v1/log/head")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "degraded",
        "heads": [
            {"shard": 0, "status": "ok", "position": 10, "chain_hash": HASH},
            {"shard": 1, "status": "unavailable"},
        ],
    }
    assert "…" not in answer.text, "the error's detail (hosts, ports) is not served"


def test_a_scrape_keeps_the_healthy_shards_gauges_and_says_which_shard_is_down() -> None:
    senki = ShardOneDown()
    with TestClient(create_app(lambda: senki, lambda _: None)) as client:
        answer = client.get("/metrics")
    assert answer.status_code == 200
    found = {f.name: f for f in text_string_to_metric_families(answer.text)}

    def by_shard(name: str) -> dict[str, float]:
        return {s.labels["shard"]: s.value for s in found[name].samples}

    assert [s.value for s in found["senki_database_up"].samples] == [1], "home answered"
    assert by_shard("senki_shard_up") == {"0": 1, "1": 0}
    assert by_shard("senki_log_head_position") == {"0": 10}
    assert by_shard("senki_projection_lag_events") == {"0": 3}, "shard 1's lag is unknown"
    assert by_shard("senki_projection_position") == {"0": 7, "1": 4}, "positions are on home"


def test_every_shard_up_exports_one_per_shard() -> None:
    class AllUp(ShardOneDown):
        def log_heads(self) -> list[LogHeadView | ShardDownView]:
            return [LogHeadView(0, 10, HASH), LogHeadView(1, 3, HASH)]

    found = {f.name: f for f in ProjectionCollector(AllUp).collect()}
    assert [(s.labels["shard"], s.value) for s in found["senki_shard_up"].samples] == [
        ("0", 1),
        ("1", 1),
    ]


def test_a_position_without_a_head_has_no_lag() -> None:
    assert ON_0.lag == 3
    assert ON_0.shard_up
    assert ON_1.lag is None
    assert not ON_1.shard_up


def test_projections_status_shows_the_down_shards_rows_as_unavailable() -> None:
    out = io.StringIO()
    Console(file=out, width=120).print(status_table([ON_0, ON_1]))
    lines = [line for line in out.getvalue().splitlines() if "rulings" in line]
    assert len(lines) == 2
    assert "10" in lines[0]
    assert "unavailable" not in lines[0]
    assert lines[1].count("unavailable") == 2, "head and lag of shard 1"


def _intact(shard: int, head: int) -> ShardResult:
    return ShardResult(
        shard,
        ChainReport(checked=head, head_position=head, head_hash=bytes.fromhex(HASH)),
        SnapshotReport(),
        TailEvidence(shard, head),
    )


def test_verify_with_a_shard_unread_is_incomplete_not_fine() -> None:
    result = VerifyResult([_intact(0, 5)], [], unreachable=[UnreachableShard(1, "down")])
    assert not result.ok
    assert not result.tampering
    assert result.exit_code == 3
    document = as_document(result)
    assert document["ok"] is False
    assert document["complete"] is False
    assert document["unavailable"] == [{"shard": 1, "detail": "down"}]
    assert [s["status"] for s in document["shards"]] == ["ok", "unavailable"]
    assert "shard 1" in UnreachableShard(1, "down").line()
    assert "NOT verified" in UnreachableShard(1, "down").line()


def test_verify_with_tampering_on_a_reachable_shard_still_exits_one() -> None:
    cut = _intact(0, 5)
    cut.tail.witnesses.append("a roll log names position 9")
    result = VerifyResult([cut], [], unreachable=[UnreachableShard(1, "down")])
    assert result.tampering
    assert result.exit_code == 1


def test_a_receipt_of_the_down_shard_is_not_counted_as_tampering() -> None:
    skipped = ReceiptResult(f"1:4:{HASH}", False, "not checked")
    result = VerifyResult(
        [_intact(0, 5)], [], receipts=[skipped], unreachable=[UnreachableShard(1, "down")]
    )
    assert not result.tampering
    assert result.exit_code == 3


def test_verify_with_every_shard_read_and_holding_exits_zero() -> None:
    result = VerifyResult([_intact(0, 5), _intact(1, 2)], [])
    assert result.ok
    assert result.exit_code == 0


class _Cursor:
    def execute(self, query: str) -> None:
        pass


class _Store:
    """A cluster's datastore: `down` makes every query fail as a cluster outage does."""

    def __init__(self, shards: tuple[int, ...], *, down: bool = False) -> None:
        self.shards, self.down, self.asked = shards, down, 0

    @contextmanager
    def transaction(self, *, commit: bool) -> Iterator[_Cursor]:
        self.asked += 1
        if self.down:
            raise ShardUnavailable(self.shards, "connection refused")
        yield _Cursor()


class _Ledger:
    """Just what shard_heads reads of a ledger: the home store and each shard's store."""

    def __init__(self, home: _Store, stores: list[_Store]) -> None:
        self.placements = SimpleNamespace(datastore=home)
        self.shards = [SimpleNamespace(datastore=store) for store in stores]

    def head(self, *, shard: int) -> LogHead:
        with self.shards[shard].datastore.transaction(commit=False):
            return LogHead(shard, 10 + shard, HASH)


def test_a_down_shard_cluster_is_set_aside_and_the_others_are_read() -> None:
    home = _Store((0,))
    heads = shard_heads(cast("Ledger", _Ledger(home, [home, _Store((1,), down=True)])))
    assert heads[0] == LogHead(0, 10, HASH)
    assert isinstance(heads[1], ShardUnavailable)
    assert heads[1].shards == (1,)


def test_home_down_is_a_whole_outage_even_for_the_shard_it_holds() -> None:
    home = _Store((0,), down=True)
    with pytest.raises(ShardUnavailable):
        shard_heads(cast("Ledger", _Ledger(home, [home, _Store((1,))])))


def test_home_is_asked_even_when_no_shard_lives_there() -> None:
    home, elsewhere = _Store(()), _Store((0, 1))
    shard_heads(cast("Ledger", _Ledger(home, [elsewhere, elsewhere])))
    assert home.asked == 1
    home.down = True
    with pytest.raises(ShardUnavailable):
        shard_heads(cast("Ledger", _Ledger(home, [elsewhere, elsewhere])))
