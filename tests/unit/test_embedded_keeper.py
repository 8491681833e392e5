"""The keeper's account of the embedded server, round by round, on a server that is told
when to die and whether it starts again (the real thing: tests/integration/test_embedded_pg.py)."""

from __future__ import annotations

from infra.postgres.common import EmbeddedPostgresError
from infra.postgres.keeper import Keeper


class Server:
    def __init__(self) -> None:
        self.running = True
        self.starts_fail = False
        self.revived = 0

    def is_running(self) -> bool:
        return self.running

    def revive(self) -> None:
        if self.starts_fail:
            raise EmbeddedPostgresError("pg_ctl exit 1: could not bind the socket")
        self.running = True
        self.revived += 1


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def keeper(server: Server, clock: Clock, reconnects: list[int]) -> Keeper:
    return Keeper(
        server,
        every_s=0.5,
        give_up_s=10.0,
        max_backoff_s=4.0,
        on_revived=lambda: reconnects.append(1),
        clock=clock,
    )


def test_a_running_server_is_left_alone() -> None:
    server, clock, reconnects = Server(), Clock(), []
    kept = keeper(server, clock, reconnects)
    kept.check()
    assert (kept.state.status, server.revived, reconnects) == ("running", 0, [])


def test_a_dead_server_is_started_again_and_the_pools_told() -> None:
    server, clock, reconnects = Server(), Clock(), []
    kept = keeper(server, clock, reconnects)
    server.running = False
    assert kept.current().status == "recovering"  # honest before the thread even looked
    kept.check()
    assert (kept.state.status, server.revived, reconnects) == ("running", 1, [1])


def test_a_server_that_does_not_start_is_recovering_then_failing_and_still_tried() -> None:
    server, clock, reconnects = Server(), Clock(), []
    kept = keeper(server, clock, reconnects)
    server.running, server.starts_fail = False, True
    tries = []
    while clock.now < 12:
        kept.check()
        tries.append((clock.now, kept.state.status))
        clock.now += 0.5
    statuses = [status for _, status in tries]
    assert statuses[0] == "recovering"
    assert "could not bind the socket" in kept.state.detail
    assert statuses[-1] == "failing"
    assert all(s == "recovering" for t, s in tries if t < 10)
    server.starts_fail = False
    while kept.state.status != "running":  # backed off: at most max_backoff_s to the next try
        kept.check()
        clock.now += 0.5
        assert clock.now < 17
    assert (server.revived, reconnects) == (1, [1])


def test_failed_starts_back_off() -> None:
    server, clock, reconnects = Server(), Clock(), []
    kept = keeper(server, clock, reconnects)
    server.running, server.starts_fail = False, True
    attempts = 0
    original = server.revive

    def counted() -> None:
        nonlocal attempts
        attempts += 1
        original()

    server.revive = counted  # type: ignore[method-assign]
    while clock.now < 20:
        kept.check()
        clock.now += 0.1
    assert 5 <= attempts <= 9  # 1, 2, 4, then every 4 s: not 200 tries in 20 s
