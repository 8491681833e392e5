"""No one floods the server for anyone else (issue 33 §2): live streams, whole-fight reads,
anonymous clients and slow connections are each bounded per client and per process.

Every loop here is bounded in count and time, and every server listens on loopback only.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

import api.live_reads
from api.app import create_app
from api.routes import encounter_stream
from infra.cli.http_server import configured
from infra.services.append_watch import AppendWatch
from infra.services.runtime import Runtime
from tests.api.conftest import auth, key
from tests.api.fight import Fight, open_fight
from tests.support.processes import free_port
from tests.support.served import on_a_thread

pytestmark = pytest.mark.postgres

OPERATOR = "operator-secret-0123456789"


def set_up(runtime: Runtime, **settings: Any) -> None:
    """The settings the next app started on `runtime` reads."""
    runtime.settings = runtime.settings.model_copy(update=settings)


@contextmanager
def served(runtime: Runtime, **settings: Any) -> Iterator[str]:
    """Senki served by uvicorn on a loopback port as `senki serve` configures it."""
    set_up(runtime, host="127.0.0.1", port=free_port(), **settings)
    config = configured(create_app(lambda: runtime, lambda _: None), runtime.settings)
    with on_a_thread(config):
        yield f"http://127.0.0.1:{runtime.settings.port}"


@contextmanager
def app_with(runtime: Runtime, **settings: Any) -> Iterator[TestClient]:
    set_up(runtime, **settings)
    with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
        yield client


def is_problem(answer: httpx.Response, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = answer.json()
    assert body["status"] == status
    assert body["detail"]
    return body


def too_many(answer: httpx.Response) -> dict[str, Any]:
    body = is_problem(answer, 429)
    assert int(answer.headers["Retry-After"]) >= 1
    return body


def within(seconds: float, done: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if done():
            return True
        time.sleep(0.05)
    return done()


# 1. Live streams -----------------------------------------------------------------------------


@contextmanager
def streams_of(runtime: Runtime, fight: Fight, **settings: Any) -> Iterator[_Streams]:
    with served(runtime, **settings) as base, ExitStack() as held:
        http = held.enter_context(httpx.Client(base_url=base, timeout=10))
        yield _Streams(held, http, f"/v1/encounters/{fight.id}/stream")


class _Streams:
    """Live streams opened on a served app, held open until the block ends."""

    def __init__(self, held: ExitStack, http: httpx.Client, path: str) -> None:
        self.held, self.http, self.path = held, http, path

    def open(self, token: str) -> httpx.Response:
        return self.held.enter_context(self.http.stream("GET", self.path, headers=auth(token)))

    def status(self, token: str) -> int:
        with self.http.stream("GET", self.path, headers=auth(token), params={"limit": 1}) as got:
            return got.status_code


def test_one_viewer_token_cannot_open_a_thousand_live_streams(
    client: TestClient, runtime: Runtime
) -> None:
    fight = open_fight(client)
    with streams_of(runtime, fight, streams_per_token=4) as streams:
        opened = [streams.open(fight.token("mio")) for _ in range(4)]
        assert [s.status_code for s in opened] == [200] * 4
        refused = streams.open(fight.token("mio"))
        refused.read()
        assert "close one" in too_many(refused)["detail"]
        # Another member of the table still gets the live feed.
        assert streams.status(fight.token("aoi")) == 200
        # A stream the viewer closes gives its slot back.
        opened[0].close()
        assert within(5, lambda: streams.status(fight.token("mio")) == 200)


def test_the_server_holds_no_more_live_streams_than_its_cap(
    client: TestClient, runtime: Runtime
) -> None:
    fight = open_fight(client)
    with streams_of(runtime, fight, streams_per_process=3) as streams:
        for member in ("aoi", "kai", "mio"):
            assert streams.open(fight.token(member)).status_code == 200
        refused = streams.open(fight.token("gm"))
        refused.read()
        assert "this server holds 3 live streams" in too_many(refused)["detail"]


def test_an_idle_live_stream_does_not_poll_the_database(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = open_fight(client)
    at = fight.version()
    reads: list[float] = []
    real_read = encounter_stream.read_page

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(time.monotonic())
        return real_read(*args, **kwargs)

    # Both places a stream reads events from: its own first page, and the wakes' shared reads.
    monkeypatch.setattr(encounter_stream, "read_page", counted)
    monkeypatch.setattr(api.live_reads, "read_page", counted)
    waits: list[float] = []
    real_quiet = encounter_stream._quiet

    def sleeps(*args: Any) -> float:
        waits.append(time.monotonic())
        return real_quiet(*args)

    monkeypatch.setattr(encounter_stream, "_quiet", sleeps)
    assert runtime.append_watch.wait_listening(10)
    time.sleep(0.5)  # the NOTIFYs of opening the fight have come back: it stands still
    received: list[str] = []

    def listen() -> None:
        got = client.get(
            f"/v1/encounters/{fight.id}/stream",
            headers=auth(fight.token("mio")),
            params={"after": at, "limit": 2},
        )
        received.append(got.text)

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    time.sleep(0.5)
    runtime.append_watch.bump()  # a write failed somewhere: every stream wakes to look, once
    time.sleep(2.0)  # idle: polling every 0.3 s read 8 times by now
    idle_reads, idle_waits = len(reads), len(waits)
    assert fight.command({"command": "RollInitiative"}).status_code == 200
    listener.join(timeout=10)
    assert received
    assert received[0].count("\nevent: ") == 2  # the append still arrives
    assert len(reads) > idle_reads, "the counter sees the read a wake makes"
    assert idle_reads <= 3, f"{idle_reads} reads of an idle fight in 2.5 s"
    assert idle_waits <= 4, f"the stream woke {idle_waits} times in 2.5 s with nothing new"


def test_a_thousand_connections_do_not_deafen_the_append_watch(runtime: Runtime) -> None:
    """With over 1,024 descriptors open (a thousand streams' sockets), the watch's own
    connection gets one select() cannot watch: it failed on every reconnect, and every
    stream fell back to polling, every cache to the database."""
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        watch = AppendWatch(
            runtime.urls.service, shards=len(runtime.ledger.shards), shard_urls=runtime.urls.shards
        )
        try:
            assert watch.wait_listening(10)
            time.sleep(1.5)  # a few heartbeats
            assert watch.ticket() is not None
        finally:
            watch.stop()
    finally:
        for fd in held:
            os.close(fd)


# 2. Whole-fight reads ------------------------------------------------------------------------


def test_a_viewer_cannot_run_more_replays_at_once_than_its_cap(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = open_fight(client)
    release = threading.Event()
    inside: list[int] = []
    real_points = runtime.disputes.events

    def slow(encounter_id: Any) -> Any:
        inside.append(1)
        release.wait(10)
        return real_points(encounter_id)

    monkeypatch.setattr(runtime.disputes, "events", slow)
    path = f"/v1/encounters/{fight.id}/points"
    with served(runtime, heavy_reads_per_token=2, heavy_reads_per_process=3) as base:
        answers: list[httpx.Response] = []

        def ask(token: str) -> None:
            answers.append(httpx.get(base + path, headers=auth(token), timeout=15))

        workers = [threading.Thread(target=ask, args=(fight.token("mio"),)) for _ in range(2)]
        for worker in workers:
            worker.start()
        assert within(5, lambda: len(inside) == 2)
        refused = httpx.get(base + path, headers=auth(fight.token("mio")), timeout=3)
        assert "this token already has 2" in too_many(refused)["detail"]
        workers.append(threading.Thread(target=ask, args=(fight.token("aoi"),)))
        workers[-1].start()
        assert within(5, lambda: len(inside) == 3)
        refused = httpx.get(base + path, headers=auth(fight.token("kai")), timeout=3)
        assert "this server is computing 3" in too_many(refused)["detail"]
        release.set()
        for worker in workers:
            worker.join(timeout=15)
        assert [a.status_code for a in answers] == [200, 200, 200]


def test_a_replay_asked_again_is_not_computed_again_until_the_fight_moves_on(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = open_fight(client)
    computed: list[str] = []
    real_what_if = runtime.disputes.what_if

    def counted(*args: Any, **kwargs: Any) -> Any:
        computed.append("replay")
        return real_what_if(*args, **kwargs)

    monkeypatch.setattr(runtime.disputes, "what_if", counted)
    assert runtime.append_watch.wait_listening(10)
    time.sleep(0.5)  # the NOTIFYs of opening the fight have come back: it stands still

    def replay(by: str, options: dict[str, Any]) -> httpx.Response:
        return client.post(
            f"/v1/encounters/{fight.id}/replay",
            headers=auth(fight.token(by)) | key(),
            json={"options": options},
        )

    # The grunt is hidden from everyone but the GM, so only the GM may replay (issue 33 §4).
    first = replay("gm", {"faint_rule": "example"})
    assert first.status_code == 200, first.text
    assert replay("gm", {"faint_rule": "example"}).json() == first.json()
    assert len(computed) == 1  # the same reader, fight and question: the answer kept
    assert replay("mio", {"faint_rule": "example"}).status_code == 403
    assert len(computed) == 1  # a reader refused is never answered from the GM's kept answer
    assert replay("gm", {"faint_rule": "text"}).status_code == 200
    assert len(computed) == 2  # another question: computed
    assert fight.command({"command": "RollInitiative"}).status_code == 200
    assert replay("gm", {"faint_rule": "example"}).status_code == 200
    assert len(computed) == 3  # the fight moved on: computed anew


# 3. Anonymous clients ------------------------------------------------------------------------


def campaign_opened(client: TestClient, **headers: str) -> httpx.Response:
    return client.post(
        "/v1/campaigns",
        headers=key() | headers,
        json={"name": "蒼穹", "gm_member_id": "gm"},
    )


def test_anyone_cannot_open_campaigns_on_a_server_listening_beyond_loopback(
    runtime: Runtime,
) -> None:
    with app_with(runtime, host="0.0.0.0") as exposed:
        refused = is_problem(campaign_opened(exposed), 403)
        assert "SENKI_OPERATOR_TOKEN" in refused["detail"]
    with app_with(runtime, host="0.0.0.0", operator_token=SecretStr(OPERATOR)) as operated:
        is_problem(campaign_opened(operated), 401)
        is_problem(campaign_opened(operated, **auth("senki.not.the.operator")), 401)
        assert campaign_opened(operated, **auth(OPERATOR)).status_code == 201
    with app_with(runtime, host="127.0.0.1", operator_token=None) as embedded:  # as today
        assert campaign_opened(embedded).status_code == 201


def test_anonymous_requests_are_rate_limited_per_address_beyond_loopback(
    runtime: Runtime,
) -> None:
    with app_with(
        runtime, host="0.0.0.0", operator_token=SecretStr(OPERATOR), anonymous_burst=5
    ) as app:
        opened = campaign_opened(app, **auth(OPERATOR))
        token = opened.json()["token"]
        answers = [app.get("/v1/version").status_code for _ in range(8)]
        assert answers[:5] == [200] * 5
        assert 429 in answers[5:]
        assert "wait" in too_many(app.get("/v1/version"))["detail"]
        # A campaign's token is not anonymous: its requests are not held back.
        mine = app.get(f"/v1/campaigns/{opened.json()['id']}", headers=auth(token))
        assert mine.status_code == 200


def test_a_made_up_token_is_no_way_around_the_anonymous_limit(runtime: Runtime) -> None:
    with app_with(
        runtime, host="0.0.0.0", operator_token=SecretStr(OPERATOR), anonymous_burst=5
    ) as app:
        opened = campaign_opened(app, **auth(OPERATOR))
        made_up = auth("senki.made.up")
        answers = [app.get("/v1/me", headers=made_up).status_code for _ in range(8)]
        assert answers[:5] == [401] * 5
        assert 429 in answers[5:]  # before: 401 every time, as fast as one could ask
        # A route that reads no token is charged whatever the request carries.
        proofs = [app.get("/v1/log/key", headers=made_up).status_code for _ in range(8)]
        assert 429 in proofs[5:]
        # The address that tried made-up tokens waits as a whole, real tokens too, until its
        # bucket refills (an anonymous flood alone holds back no real token: the test above).
        mine = app.get(f"/v1/campaigns/{opened.json()['id']}", headers=auth(opened.json()["token"]))
        assert mine.status_code == 429


def test_metrics_are_not_served_to_anonymous_clients_on_an_exposed_api_port(
    runtime: Runtime,
) -> None:
    with app_with(runtime, host="0.0.0.0", operator_token=SecretStr(OPERATOR)) as app:
        refused = is_problem(app.get("/metrics"), 401)
        assert "SENKI_METRICS_PORT" in refused["detail"]
        scraped = app.get("/metrics", headers=auth(OPERATOR))
        assert scraped.status_code == 200
        assert "senki_http_request_duration_seconds" in scraped.text


# 4. Slow and idle connections ----------------------------------------------------------------


def test_an_idle_connection_is_closed(runtime: Runtime) -> None:
    with served(runtime, keep_alive_s=1) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: senki\r\n\r\n")
            answer = _until_closed(conn, seconds=3)  # uvicorn's default keeps it 5 s
        assert answer.startswith(b"HTTP/1.1 200")


def test_a_body_sent_a_byte_at_a_time_is_cut_off(runtime: Runtime) -> None:
    with served(runtime, body_timeout_s=1.0) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(
                b"POST /v1/campaigns HTTP/1.1\r\nHost: senki\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            )
            answer = _until_closed(conn, seconds=6)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"application/problem+json" in answer


def _until_closed(conn: socket.socket, seconds: float) -> bytes:
    """Everything the server sends until it closes the connection (fails past `seconds`)."""
    conn.settimeout(seconds)
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            return received
        received += chunk
    raise AssertionError(f"the connection is still open after {seconds} s: {received[:200]!r}")
