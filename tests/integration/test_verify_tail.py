"""A cut tail or an emptied log is found by what still points past it (issue 15 §3).

Given a log whose last events (or all of them) a superuser deleted, `senki verify` fails and
names what witnesses the cut — idempotency rows, read models' tracking positions, snapshots —
and, when the superuser removed those too, says plainly that only a kept receipt can prove it;
the receipt then does.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest

from domain.encounter import aggregate as encounter
from infra.projector.runner import Projector
from infra.services.executor import Idempotency, snapshot_topic
from infra.services.runtime import Runtime
from infra.store.verify import ONLY_A_RECEIPT
from tests.integration.test_encounter_service import GM, opened_fight
from tests.support.runtime import start_runtime
from tests.support.tampering import senki_verify, superuser

pytestmark = pytest.mark.postgres


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


def fight_with_keys(runtime: Runtime) -> tuple[uuid.UUID, int]:
    """An encounter whose last command came with an Idempotency-Key, as every API write does."""
    fight = opened_fight(runtime)
    key = Idempotency(f"test:{uuid.uuid4()}", "fingerprint")
    runtime.encounters.command(fight, GM, "RollInitiative", {}, idempotency=key)
    return fight, runtime.ledger.shard_of(fight)


def cut(owner_url: str, shard: int, *, after: int, also: tuple[str, ...] = ()) -> None:
    """Delete every event after position `after` (and every row of the `also` tables)."""
    with superuser(owner_url) as conn:
        conn.execute(f"DELETE FROM senki.events_{shard} WHERE notification_id > %s", (after,))
        for table in also:
            conn.execute(f"DELETE FROM {table}")  # type: ignore[arg-type]


def test_a_cut_tail_is_witnessed_by_an_idempotency_row(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    fight, shard = fight_with_keys(runtime)
    head = runtime.ledger.head(shard=shard).position
    cut(owner_url, shard, after=head - 1)

    verdict = senki_verify(app_url, owner_url)

    assert verdict.code == 1, verdict.output
    assert f"events after position {head - 1} were removed" in verdict.output
    assert "an idempotency row recorded" in verdict.output
    assert f"answered stream {fight} at version" in verdict.output


def test_a_cut_tail_is_witnessed_by_the_read_models_tracking_positions(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    fight = opened_fight(runtime)  # no idempotency keys: only the read models remember
    shard = runtime.ledger.shard_of(fight)
    Projector(app_url, runtime.ledger).run(threading.Event(), until_caught_up=True)
    head = runtime.ledger.head(shard=shard).position
    cut(owner_url, shard, after=head - 2)

    document = senki_verify(app_url, owner_url, "--json").document()

    tail = document["shards"][shard]["tail"]
    assert not document["ok"]
    assert tail["cut"]
    assert f"events after position {head - 2} were removed" in tail["note"]
    assert any(f"has read up to position {head}" in w for w in tail["witnesses"])


def test_a_cut_tail_is_witnessed_by_a_sealed_snapshot_of_a_removed_version(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    fight = opened_fight(runtime)
    runtime.encounters.command(fight, GM, "RollInitiative", {})
    state, version = runtime.encounters.state(fight)
    snapshots = encounter.KIND.snapshot
    assert snapshots is not None
    runtime.ledger.save_snapshot(
        fight, version, snapshot_topic(encounter.KIND), snapshots.dump(state)
    )
    shard = runtime.ledger.shard_of(fight)
    head = runtime.ledger.head(shard=shard).position
    cut(owner_url, shard, after=head - 1, also=(f"senki.idempotency_{shard}",))

    verdict = senki_verify(app_url, owner_url)

    assert verdict.code == 1
    assert f"events after position {head - 1} were removed" in verdict.output
    assert f"sealed at position {head}, but that event is gone" in verdict.output


def test_an_emptied_log_is_witnessed(runtime: Runtime, app_url: str, owner_url: str) -> None:
    _, shard = fight_with_keys(runtime)
    cut(owner_url, shard, after=0)

    verdict = senki_verify(app_url, owner_url)

    assert verdict.code == 1
    assert "the log ends at position 0" in verdict.output
    assert "events after position 0 were removed" in verdict.output


def test_when_nothing_witnesses_the_cut_verify_says_only_a_receipt_can_prove_it(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    _, shard = fight_with_keys(runtime)
    Projector(app_url, runtime.ledger).run(threading.Event(), until_caught_up=True)
    receipt = runtime.ledger.head(shard=shard)
    everything = (
        f"senki.idempotency_{shard}",
        f"senki.snapshots_{shard}",
        "senki.placements",
        "senki_read.tracking",
    )
    cut(owner_url, shard, after=0, also=everything)

    alone = senki_verify(app_url, owner_url)
    kept = senki_verify(
        app_url,
        owner_url,
        "--expect-head",
        f"{receipt.shard}:{receipt.position}:{receipt.chain_hash}",
    )

    assert alone.code == 0, alone.output
    assert "the log is empty" in alone.output
    assert ONLY_A_RECEIPT in alone.output
    assert kept.code == 1
    assert "events after position 0 were removed" in kept.output


def test_an_untouched_log_passes_and_says_what_only_a_receipt_can_prove(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    _, shard = fight_with_keys(runtime)
    Projector(app_url, runtime.ledger).run(threading.Event(), until_caught_up=True)
    head = runtime.ledger.head(shard=shard)

    verdict = senki_verify(
        app_url, owner_url, "--expect-head", f"{shard}:{head.position}:{head.chain_hash}"
    )

    assert verdict.code == 0, verdict.output
    assert f"nothing in the database points past position {head.position}" in verdict.output
    assert ONLY_A_RECEIPT in verdict.output
    assert "witness" not in verdict.output
