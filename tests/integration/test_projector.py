"""The projector on real PostgreSQL: exactly once, one at a time, blue/green rebuilds."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import psycopg
import pytest

from domain.catalog import registry
from infra.projector.admin import request_rebuild
from infra.projector.background import BackgroundProjector
from infra.projector.reads import NotBuilt, ReadModels
from infra.projector.registry import Target
from infra.projector.runner import PROJECTED_CHANNEL, Projector, ProjectorOptions
from infra.store.ledger import Ledger, open_ledger
from projections.catalog import PROJECTIONS, by_name
from projections.character_sheets import SHEETS, CharacterSheetsV1
from tests.projections.events import ENCOUNTER, encounter, ended, joined, ruling
from tests.support.databases import shard_count
from tests.support.processes import (
    free_port,
    health,
    in_transaction,
    lock_holder,
    run_cli,
    sessions,
    spawn_projector,
    wait_for,
)
from tests.support.readside import (
    Snapshot,
    live_generation,
    normalise,
    progress,
    project_until_caught_up,
    reference,
    snapshot,
    tracked,
)
from tests.support.story import big_story, campaign_story, churn, write

pytestmark = pytest.mark.postgres


@pytest.fixture
def ledger(app_url: str) -> Iterator[Ledger]:
    # As many shards as the database (the projector processes follow them all); the stories
    # here are unplaced streams, so they are written on shard 0.
    ledger = open_ledger(app_url, registry=registry, shards=shard_count())
    yield ledger
    ledger.close()


def test_a_caught_up_projector_equals_the_read_models_computed_in_memory(
    app_url: str, ledger: Ledger
) -> None:
    story = big_story(3)
    write(ledger, story.log)
    fight = [joined("ace", character_id=str(story.pilots[0])), joined("bolt")]
    write(ledger, encounter(*fight, *(ruling("ace", f"R-{n}") for n in range(10)), ended()))

    project_until_caught_up(app_url, ledger, batch_size=7)

    assert len(snapshot(app_url, PROJECTIONS[0])[SHEETS]) == 15
    for projection in PROJECTIONS:
        assert snapshot(app_url, projection) == reference(ledger, projection), projection.name


def caught_up(url: str, ledger: Ledger) -> Callable[[], bool]:
    head = ledger.head().position
    return lambda: all(tracked(url, p.name) == head for p in PROJECTIONS)


def moved_past(url: str, position: int, name: str = "character_sheets") -> Callable[[], bool]:
    return lambda: progress(url, name) > position


def children(pid: int) -> list[int]:
    """The child processes of `pid` (Linux): a projector's lanes."""
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in found]


def busy(url: str, name: str) -> Callable[[], bool]:
    """The projector has a batch's transaction open."""
    return lambda: in_transaction(url, f"senki-projector:{name}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(10)


def rebuilt_from_scratch(app_url: str, ledger: Ledger) -> dict[str, Snapshot]:
    """Build a new generation of every projection from position 0 and switch to it."""
    for projection in PROJECTIONS:
        request_rebuild(app_url, projection, shards=len(ledger.shards))
    project_until_caught_up(app_url, ledger)
    return {p.name: snapshot(app_url, p) for p in PROJECTIONS}


@pytest.mark.slow
@pytest.mark.parametrize("lanes", [1, 2])
def test_sigkill_mid_batch_then_restart_equals_a_rebuild_from_scratch(
    app_url: str, owner_url: str, ledger: Ledger, tmp_path: Path, lanes: int
) -> None:
    write(ledger, big_story(30, fights=1).log)
    head = ledger.head().position
    reached = [0]
    slowest = "encounter_log"  # the costliest model: the kill must come before its end
    for kill in range(2):
        projector = spawn_projector(
            app_url, owner_url, "victim", tmp_path, batch_size=25, lanes=lanes
        )
        try:
            wait_for(moved_past(app_url, reached[-1], slowest), every=0.001, alive=[projector])
            wait_for(busy(app_url, "victim"), every=0.001, alive=[projector])
            lanes_now = children(projector.pid)
            assert len(lanes_now) == lanes - 1
            for pid in [projector.pid, *lanes_now]:  # a pod killed: every process at once
                os.kill(pid, signal.SIGKILL)  # the first lane's batch transaction is open
        finally:
            stop(projector)
        reached.append(progress(app_url, slowest))
        assert reached[-1] < head, f"kill {kill} came after the end"
    assert reached == sorted(reached)

    survivor = spawn_projector(app_url, owner_url, "survivor", tmp_path, batch_size=25, lanes=lanes)
    try:
        wait_for(caught_up(app_url, ledger), alive=[survivor])
    finally:
        stop(survivor)
    after_kills = {p.name: snapshot(app_url, p) for p in PROJECTIONS}

    assert after_kills == rebuilt_from_scratch(app_url, ledger)
    assert after_kills["character_sheets"] == reference(ledger, PROJECTIONS[0])


@pytest.mark.slow
def test_two_projectors_one_works_one_waits_and_killing_the_first_hands_over(
    app_url: str, owner_url: str, ledger: Ledger, tmp_path: Path
) -> None:
    story = big_story(4)
    half = len(story.log) // 2
    versions: dict[UUID, int] = {}
    write(ledger, story.log[:half], versions)
    ports = {n: free_port() for n in ("a", "b")}
    both = {
        n: spawn_projector(app_url, owner_url, n, tmp_path, health_port=ports[n]) for n in ports
    }
    try:
        wait_for(lambda: lock_holder(app_url) is not None, alive=list(both.values()))
        wait_for(caught_up(app_url, ledger), alive=list(both.values()))
        wait_for(lambda: len(sessions(app_url, "senki-projector:")) >= 3, alive=list(both.values()))
        holder = lock_holder(app_url)
        assert holder in {"senki-projector:a-lock", "senki-projector:b-lock"}
        first = holder.removeprefix("senki-projector:").removesuffix("-lock")
        second = "b" if first == "a" else "a"
        # Both are connected; only the lock holder has opened its working connection.
        assert sessions(app_url, "senki-projector:") == sorted(
            [f"senki-projector:{first}", "senki-projector:a-lock", "senki-projector:b-lock"]
        )

        wait_for(lambda: health(ports[second]) == "standby")
        assert health(ports[first]) == "active"

        os.kill(both[first].pid, signal.SIGKILL)
        both[first].wait(10)
        write(ledger, story.log[half:], versions)

        wait_for(lambda: lock_holder(app_url) == f"senki-projector:{second}-lock")
        wait_for(caught_up(app_url, ledger), alive=[both[second]])
        assert both[second].poll() is None
        assert health(ports[second]) == "active"
    finally:
        for process in both.values():
            stop(process)
    for projection in PROJECTIONS:
        assert snapshot(app_url, projection) == reference(ledger, projection), projection.name


@pytest.mark.slow
def test_lanes_split_the_models_over_processes_and_end_with_the_lock_holder(
    app_url: str, owner_url: str, ledger: Ledger, tmp_path: Path
) -> None:
    story = big_story(4, fights=1)
    half = len(story.log) // 2
    versions: dict[UUID, int] = {}
    write(ledger, story.log[:half], versions)
    ports = {n: free_port() for n in ("a", "b")}
    a = spawn_projector(app_url, owner_url, "a", tmp_path, health_port=ports["a"], lanes=2)
    b: subprocess.Popen[bytes] | None = None
    try:
        wait_for(caught_up(app_url, ledger), alive=[a])
        lane = ["senki-projector:a-lane1", "senki-projector:a-lane1-lock"]
        wait_for(lambda: sessions(app_url, "senki-projector:a-lane1") == lane, alive=[a])
        # A lane that dies is started again by its projector.
        [lane_pid] = children(a.pid)
        os.kill(lane_pid, signal.SIGTERM)
        wait_for(lambda: lane_pid not in children(a.pid), alive=[a])  # it left (and was reaped)
        wait_for(lambda: len(children(a.pid)) == 1, alive=[a])  # … and the projector restarts it
        wait_for(lambda: sessions(app_url, "senki-projector:a-lane1") == lane, alive=[a])
        b = spawn_projector(app_url, owner_url, "b", tmp_path, health_port=ports["b"], lanes=2)
        wait_for(lambda: health(ports["b"]) == "standby", alive=[a, b])
        assert sessions(app_url, "senki-projector:b-lane") == []  # a standby starts no lanes

        os.kill(a.pid, signal.SIGKILL)
        a.wait(10)
        # The kernel tells the orphaned lane its parent died; it stops, ending its sessions.
        wait_for(lambda: sessions(app_url, "senki-projector:a-lane1") == [], alive=[b])
        write(ledger, story.log[half:], versions)

        wait_for(lambda: lock_holder(app_url) == "senki-projector:b-lock", alive=[b])
        wait_for(caught_up(app_url, ledger), alive=[b])
        assert len(sessions(app_url, "senki-projector:b-lane1")) == 2
    finally:
        stop(a)
        if b is not None:
            stop(b)
    for projection in PROJECTIONS:
        assert snapshot(app_url, projection) == reference(ledger, projection), projection.name


@pytest.mark.slow
def test_a_stuck_lane_does_not_keep_its_dead_projectors_lock(
    app_url: str, owner_url: str, ledger: Ledger, tmp_path: Path
) -> None:
    """A lane is a fork of its projector: it must not hold the projector's own sessions
    (and so its lock) or its health port open after the projector died."""
    write(ledger, big_story(2).log)
    port = free_port()
    a = spawn_projector(app_url, owner_url, "a", tmp_path, health_port=port, lanes=2)
    lane_pid = 0
    try:
        wait_for(caught_up(app_url, ledger), alive=[a])
        wait_for(lambda: len(sessions(app_url, "senki-projector:a-lane1")) == 2, alive=[a])
        [lane_pid] = children(a.pid)
        os.kill(lane_pid, signal.SIGSTOP)  # it cannot act on the kernel's SIGTERM
        os.kill(a.pid, signal.SIGKILL)
        a.wait(10)
        own = ["senki-projector:a", "senki-projector:a-lock"]
        wait_for(lambda: not set(own) & set(sessions(app_url, "senki-projector:a")))
        assert lock_holder(app_url) is None
        assert health(port) == ""
        with socket.socket() as probe:  # the port is free for the next projector
            probe.bind(("127.0.0.1", port))
        assert len(sessions(app_url, "senki-projector:a-lane1")) == 2  # the lane still lives
        os.kill(lane_pid, signal.SIGCONT)  # the pending SIGTERM now ends it
        wait_for(lambda: sessions(app_url, "senki-projector:a-lane1") == [])
    finally:
        stop(a)
        if lane_pid and Path(f"/proc/{lane_pid}").exists():
            os.kill(lane_pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("lanes", [1, 2])
def test_a_rebuild_while_commands_keep_arriving_ends_equal_to_the_live_view(
    app_url: str, owner_url: str, ledger: Ledger, tmp_path: Path, lanes: int
) -> None:
    story = big_story(100)
    third = len(story.log) // 10
    versions: dict[UUID, int] = {}
    write(ledger, story.log[:third], versions)
    projector = spawn_projector(app_url, owner_url, "live", tmp_path, batch_size=50, lanes=lanes)
    done, rebuilt = threading.Event(), threading.Event()
    counts: list[int] = []

    def keep_writing() -> None:
        for start in range(third, len(story.log), 5):
            if rebuilt.is_set():
                break
            write(ledger, story.log[start : start + 5], versions)
            time.sleep(0.01)
        done.set()

    def watch_reads() -> None:  # a half-built view would show fewer sheets than before
        while not done.is_set():
            generation = live_generation(app_url, "character_sheets")
            if generation is None:
                continue
            try:
                counts.append(len(snapshot(app_url, PROJECTIONS[0], generation)[SHEETS]))
            except psycopg.errors.UndefinedTable:  # retired just after it was looked up
                continue

    try:
        wait_for(caught_up(app_url, ledger), alive=[projector])
        old = live_generation(app_url, "character_sheets")
        writer = threading.Thread(target=keep_writing)
        watcher = threading.Thread(target=watch_reads)
        writer.start()
        watcher.start()
        result = run_cli(app_url, owner_url, "projections", "rebuild", "character_sheets")
        assert result.returncode == 0, result.stdout + result.stderr
        assert not done.is_set(), "the rebuild should finish while writes still arrive"
        rebuilt.set()
        writer.join()
        watcher.join()
        wait_for(caught_up(app_url, ledger))
        assert live_generation(app_url, "character_sheets") != old
    finally:
        stop(projector)

    assert counts == sorted(counts)
    assert snapshot(app_url, PROJECTIONS[0]) == reference(ledger, PROJECTIONS[0])


def test_reads_use_the_live_generation_and_say_which_position_they_reflect(
    app_url: str, ledger: Ledger
) -> None:
    story = campaign_story()
    write(ledger, story.log)
    write(ledger, encounter(joined("ace", character_id=str(story.pilots[0])), ruling("ace", "R-1")))
    reads = ReadModels(app_url)
    try:
        with pytest.raises(NotBuilt):
            reads.sheet(story.pilots[0])

        project_until_caught_up(app_url, ledger)
        head = ledger.head().position
        sheet = reads.sheet(story.pilots[0])
        request_rebuild(app_url, PROJECTIONS[0], shards=len(ledger.shards))
        project_until_caught_up(app_url, ledger)
        again = reads.sheet(story.pilots[0])
        found = reads.rulings(subject=str(story.pilots[0]), rule_id="R-1", disputed=False)
        log = reads.encounter_log(ENCOUNTER)
    finally:
        reads.close()

    assert sheet.positions == {0: head} | dict.fromkeys(range(1, len(ledger.shards)), 0)
    assert [r["name"] for r in sheet.rows] == ["Aoi 0"]
    assert normalise(again.rows[0]) == normalise(sheet.rows[0])
    assert [r["summary_en"] for r in found.rows] == ["ace hits"]
    assert [r["version"] for r in log.rows] == [1, 2, 3]


def test_status_shows_each_projection_position_and_lag(
    app_url: str, owner_url: str, ledger: Ledger
) -> None:
    story = campaign_story()
    versions: dict[UUID, int] = {}
    write(ledger, story.log, versions)
    project_until_caught_up(app_url, ledger)
    written = len(story.log)
    campaign_story(story)
    write(ledger, story.log[written:], versions)

    result = run_cli(app_url, owner_url, "projections", "status")

    assert result.returncode == 0, result.stderr
    for projection in PROJECTIONS:
        assert projection.name in result.stdout
    lag = len(story.log) - written  # the second story is not projected yet
    assert f"│ {len(story.log):<4} │ {lag:<3} │" in result.stdout
    assert "not running" in result.stdout


def test_rebuild_from_the_cli_builds_it_there_when_no_projector_runs(
    app_url: str, owner_url: str, ledger: Ledger
) -> None:
    write(ledger, campaign_story().log)
    project_until_caught_up(app_url, ledger)
    before = snapshot(app_url, PROJECTIONS[3])

    result = run_cli(app_url, owner_url, "projections", "rebuild", "rulings")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "reads now use generation 2" in result.stdout
    assert live_generation(app_url, "rulings") == 2
    assert snapshot(app_url, PROJECTIONS[3]) == before


class SheetsV2(CharacterSheetsV1):
    """The next version of a read model, as a deployment would bring it."""

    version = 2


def test_a_new_version_is_built_beside_the_old_one_which_serves_until_it_is_ready(
    app_url: str, ledger: Ledger
) -> None:
    write(ledger, campaign_story().log)
    project_until_caught_up(app_url, ledger)
    reads = ReadModels(app_url)
    seen: list[int] = []

    def during_build(target: Target, shard: int, position: int) -> None:
        seen.append(live_generation(app_url, "character_sheets") or 0)
        assert reads.units_of(campaign_story().pilots[0]).rows  # the old generation still serves

    projector = Projector(app_url, ledger, [SheetsV2()], ProjectorOptions(batch_size=3))
    projector.on_batch = during_build
    try:
        projector.run(threading.Event(), until_caught_up=True)
    finally:
        reads.close()

    assert set(seen[:-1]) == {1}
    assert live_generation(app_url, "character_sheets") == 2
    assert snapshot(app_url, SheetsV2()) == reference(ledger, SheetsV2())


def test_the_in_process_projector_follows_new_events_until_stopped(
    app_url: str, ledger: Ledger
) -> None:
    story = campaign_story()
    background = BackgroundProjector(Projector(app_url, ledger)).start()
    try:
        write(ledger, story.log)
        wait_for(caught_up(app_url, ledger))
    finally:
        background.stop()

    assert background.projector.state == "stopped"
    assert snapshot(app_url, PROJECTIONS[0]) == reference(ledger, PROJECTIONS[0])


@pytest.mark.parametrize(
    "names",
    [
        pytest.param([p.name for p in PROJECTIONS], id="rows-written"),
        pytest.param(["encounter_log", "campaign_timeline"], id="nothing-to-write"),
    ],
)
def test_each_batch_announces_what_it_made_visible_once_it_is_committed(
    app_url: str, ledger: Ledger, names: list[str]
) -> None:
    """senki_projected says "<shard>:<position>:<models>" (live models only) at the commit:
    a reader that waits for a position knows the rows are there when the notice comes. A
    batch with nothing to write (the sheet changes below mean nothing to the log and the
    timeline) still moves its models and says so."""
    models = [by_name(name) for name in names]
    story = campaign_story()
    versions: dict[UUID, int] = {}
    write(ledger, story.log, versions)
    Projector(app_url, ledger, models).run(threading.Event(), until_caught_up=True)
    pilot, before = story.pilots[0], len(story.log)
    with psycopg.connect(app_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {PROJECTED_CHANNEL}")
        background = BackgroundProjector(Projector(app_url, ledger, models)).start()
        try:
            churn(story, pilot, 1)  # the charm on, then off: one append of two events
            write(ledger, story.log[before:], versions)
            [notice] = listener.notifies(timeout=10, stop_after=1)
            seen = {name: tracked(app_url, name) for name in names}
        finally:
            background.stop()
    shard, position, announced = notice.payload.split(":")
    head = ledger.head().position
    assert (int(shard), int(position)) == (0, head)
    assert announced.split(",") == sorted(names)
    assert seen == dict.fromkeys(names, head)  # committed before the notice arrived


def test_a_projector_of_the_previous_release_can_still_advance_its_tracking(
    app_url: str, ledger: Ledger
) -> None:
    """During a rolling update the old projector calls the schema-3 advance (no notice)."""
    write(ledger, campaign_story().log)
    project_until_caught_up(app_url, ledger)
    name = PROJECTIONS[0].name
    head = tracked(app_url, name)
    with psycopg.connect(app_url, autocommit=True) as conn:
        generation = live_generation(app_url, name)
        conn.execute(
            "SELECT senki_read.advance_tracking(%s::text[], %s::int[], 0, %s, %s)",
            ([name], [generation], head, head + 1),
        )
    assert tracked(app_url, name) == head + 1
