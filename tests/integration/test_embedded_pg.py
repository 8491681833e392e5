"""The embedded PostgreSQL under the failure modes of a pip-installed server.

Real processes throughout: each "Senki process" is a `python -c` child that starts
EmbeddedPostgres on the test's own data directory, prints its URL and waits for stdin to
close (then exits normally); the tests kill them with SIGKILL/SIGTERM and check the server
with psycopg, `pg_ctl status` and the process table. The `data_dir` fixture fails the test
if any server or watchdog process of that directory is left behind.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import psycopg
import pytest

from infra.postgres.common import EmbeddedPostgresError, Layout
from infra.postgres.embedded import EmbeddedPostgres, install_termination_handlers
from infra.postgres.proc import (
    is_postmaster_of,
    kill_server_processes,
    read_pid_file,
    server_processes,
)
from infra.postgres.runner import resolve_runner

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets, signals and flock"),
]

REPO_ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import signal
    import sys
    from pathlib import Path
    from infra.postgres.embedded import EmbeddedPostgres, install_termination_handlers
    # SIGHUP at its default, as a service manager starts a process, even when the suite runs
    # under nohup: install_termination_handlers rightly leaves an ignored SIGHUP alone, and
    # the SIGHUP case would wait for an exit that never comes.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    if sys.argv[2] == "handlers":
        install_termination_handlers()
    pg = EmbeddedPostgres(Path(sys.argv[1]))
    pg.start()
    print(pg.superuser_url, flush=True)
    sys.stdin.read()  # until the test closes stdin; then a normal exit (atexit stops)
    """
)


class Child:
    """A Senki-like process using the embedded server of `data_dir`."""

    def __init__(self, data_dir: Path, log: Path, *, handlers: bool, env: dict[str, str]) -> None:
        self.log = log
        with log.open("w") as stderr:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(data_dir), "handlers" if handlers else "plain"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                cwd=REPO_ROOT,
                env=env,
            )
        self._url: str | None = None

    @property
    def url(self) -> str:
        """The URL the child printed once started (waits for it)."""
        if self._url is None:
            assert self.proc.stdout is not None
            ready, _, _ = select.select([self.proc.stdout], [], [], 60)
            line = self.proc.stdout.readline().strip() if ready else ""
            assert line.startswith("postgresql://"), f"child gave no URL:\n{self.log.read_text()}"
            self._url = line
        return self._url

    def exit_cleanly(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(60)

    def kill(self, sig: signal.Signals) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(60)


def wait_until(condition: Callable[[], bool], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def watchdogs(data_dir: Path) -> list[Any]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if "infra.postgres.watchdog" in cmdline and str(data_dir) in cmdline:
            found.append(proc)
    return found


def postmaster_pid(data_dir: Path) -> int | None:
    info = read_pid_file(data_dir / "pg")
    return None if info is None else info.pid


def running_per_pg_ctl(data_dir: Path) -> bool:
    """`pg_ctl status`, run as the server's user: exit 0 running, 3 not running."""
    status = resolve_runner(Layout(data_dir)).run("pg_ctl", "status", "-D", str(data_dir / "pg"),
                                                  timeout=30)  # fmt: skip
    assert status.returncode in (0, 3), status.output
    return status.returncode == 0


def connects(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.OperationalError:
        return False
    return True


def server_gone(data_dir: Path) -> bool:
    return not server_processes(data_dir / "pg") and not running_per_pg_ctl(data_dir)


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A fresh data directory; afterwards no server or watchdog of it may be left."""
    path = (tmp_path / "senki").resolve()  # as EmbeddedPostgres and its watchdog see it
    yield path
    pgdata = path / "pg"
    clean = wait_until(lambda: not server_processes(pgdata) and not watchdogs(path), 15)
    left = [p.pid for p in server_processes(pgdata)] + [p.pid for p in watchdogs(path)]
    kill_server_processes(pgdata, grace_s=5)
    for proc in watchdogs(path):
        proc.kill()
    assert clean, f"processes left behind for {path}: {left}"


@pytest.fixture
def spawn(data_dir: Path, tmp_path: Path) -> Iterator[Callable[..., Child]]:
    """Start children on `data_dir`; any still running at teardown are stopped."""
    children: list[Child] = []

    def _spawn(*, handlers: bool = True, env: dict[str, str] | None = None) -> Child:
        child = Child(
            data_dir,
            tmp_path / f"child-{len(children)}.log",
            handlers=handlers,
            env={**os.environ, **(env or {})},
        )
        children.append(child)
        return child

    yield _spawn
    for child in children:
        if child.proc.poll() is None:
            try:
                child.exit_cleanly()
            except subprocess.TimeoutExpired:
                child.kill(signal.SIGKILL)


def test_in_process_use_databases_roles_and_socket(data_dir: Path) -> None:
    with EmbeddedPostgres(data_dir) as pg, EmbeddedPostgres(data_dir) as second:
        assert second.superuser_url == pg.superuser_url
        assert f"host={data_dir / 'pg'}" in pg.superuser_url  # Unix socket in the data dir
        # Race-safe: several threads creating the same database at once.
        threads = [threading.Thread(target=pg.ensure_database, args=("senki",)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with psycopg.connect(pg.url_for("senki"), autocommit=True) as conn:
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)  # no TCP at all
            conn.execute("CREATE ROLE senki_app LOGIN")
        with psycopg.connect(pg.url_for("senki", "senki_app")) as conn:
            assert conn.execute("SELECT current_user, current_database()").fetchone() == (
                "senki_app",
                "senki",
            )
    assert server_gone(data_dir)


def test_sigkill_of_the_owner_then_start_again(data_dir: Path, spawn: Callable[..., Child]) -> None:
    first = spawn()
    assert connects(first.url)
    assert first.kill(signal.SIGKILL) == -signal.SIGKILL
    # No user is left, so the watchdog stops the server rather than leaving it orphaned.
    assert wait_until(lambda: server_gone(data_dir)), "server orphaned after SIGKILL"

    again = spawn()
    assert connects(again.url)
    assert again.exit_cleanly() == 0
    assert server_gone(data_dir)


def test_server_orphaned_by_sigkill_is_adopted_by_the_next_start(
    data_dir: Path, spawn: Callable[..., Child]
) -> None:
    first = spawn()
    assert connects(first.url)
    server = postmaster_pid(data_dir)
    # Worst case: the watchdog dies too, so the server is left running with no user at all.
    (watchdog,) = watchdogs(data_dir)
    watchdog.kill()
    watchdog.wait(10)
    first.kill(signal.SIGKILL)
    assert running_per_pg_ctl(data_dir)
    assert connects(first.url)

    second = spawn()
    assert second.url == first.url
    assert postmaster_pid(data_dir) == server  # attached to it, not a second server
    assert wait_until(lambda: len(watchdogs(data_dir)) == 1)  # and a new watchdog is on duty
    assert second.exit_cleanly() == 0
    assert server_gone(data_dir)  # the adopter owned its shutdown


@pytest.mark.parametrize(
    ("sig", "handlers"),
    [(signal.SIGTERM, True), (signal.SIGHUP, True), (signal.SIGTERM, False)],
    ids=["SIGTERM", "SIGHUP", "SIGTERM-without-handlers"],
)
def test_termination_signals(
    data_dir: Path, spawn: Callable[..., Child], sig: signal.Signals, handlers: bool
) -> None:
    child = spawn(handlers=handlers)
    assert connects(child.url)
    returncode = child.kill(sig)
    if handlers:
        # install_termination_handlers turned the signal into SystemExit: atexit ran and
        # stopped the server before the process ended.
        assert returncode == 128 + sig
        assert server_gone(data_dir)
    else:
        # Python's default: killed on the spot, no atexit; the watchdog stops the server.
        assert returncode == -sig
    assert wait_until(lambda: server_gone(data_dir)), "server orphaned"


def test_install_termination_handlers_is_idempotent_and_polite() -> None:
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}

    def foreign(signum: int, frame: object) -> None:
        """Someone else's handler (uvicorn installs its own for graceful shutdown)."""

    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, foreign)
        install_termination_handlers()
        ours = signal.getsignal(signal.SIGTERM)
        assert ours not in (signal.SIG_DFL, None)
        install_termination_handlers()
        assert signal.getsignal(signal.SIGTERM) is ours
        assert signal.getsignal(signal.SIGHUP) is foreign
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def test_processes_sharing_the_directory(data_dir: Path, spawn: Callable[..., Child]) -> None:
    first, second, third = spawn(), spawn(), spawn()
    assert first.url == second.url == third.url
    server = postmaster_pid(data_dir)
    with psycopg.connect(third.url, autocommit=True) as conn:
        assert first.exit_cleanly() == 0  # a clean exit must not stop it under the others
        conn.execute("SELECT 1")
        second.kill(signal.SIGKILL)  # nor must the watchdog, while `third` still uses it
        time.sleep(1.0)
        conn.execute("SELECT 1")
        assert postmaster_pid(data_dir) == server
    assert third.exit_cleanly() == 0  # the last user leaving stops it
    assert server_gone(data_dir)


def test_concurrent_first_starts(data_dir: Path, spawn: Callable[..., Child]) -> None:
    children = [spawn() for _ in range(4)]  # all race to initdb and start one server
    assert len({child.url for child in children}) == 1
    assert all(connects(child.url) for child in children)
    pgdata = data_dir / "pg"
    assert [p.pid for p in server_processes(pgdata) if is_postmaster_of(p.pid, pgdata)] == [
        postmaster_pid(data_dir)
    ]
    log = (data_dir / "pg.log").read_text()
    assert log.count("database system is ready to accept connections") == 1  # one start only
    for child in children:
        assert child.exit_cleanly() == 0
    assert server_gone(data_dir)


@pytest.mark.parametrize("owner", ["dead process", "unrelated live process"])
def test_stale_postmaster_pid(data_dir: Path, spawn: Callable[..., Child], owner: str) -> None:
    with EmbeddedPostgres(data_dir):  # make the cluster
        pass
    if owner == "dead process":
        gone = subprocess.Popen(["true"])
        gone.wait()
        bystander = None
        pid = gone.pid
    else:
        bystander = subprocess.Popen(["sleep", "60"])
        pid = bystander.pid
    pgdata = data_dir / "pg"
    # What a crash leaves: postmaster.pid and the socket's lock file naming the old pid.
    (pgdata / "postmaster.pid").write_text(
        f"{pid}\n{pgdata}\n{int(time.time())}\n5432\n{pgdata}\n\n  5432001 32768\nready   \n"
    )
    (pgdata / ".s.PGSQL.5432.lock").write_text(f"{pid}\n{pgdata}\n{int(time.time())}\n5432\n")
    try:
        child = spawn()
        assert connects(child.url)
        assert postmaster_pid(data_dir) != pid
        assert child.exit_cleanly() == 0
        assert server_gone(data_dir)
        if bystander is not None:
            assert bystander.poll() is None, "the unrelated process was killed"
    finally:
        if bystander is not None:
            bystander.kill()
            bystander.wait()


def test_never_a_second_server_on_a_live_cluster(data_dir: Path) -> None:
    """postmaster.pid naming a stranger while the real server still answers on the socket
    (as when the server runs in another container): refuse rather than start a second one."""
    with EmbeddedPostgres(data_dir, watchdog=False) as pg:
        pid_file = data_dir / "pg" / "postmaster.pid"
        real = pid_file.read_text()
        bystander = subprocess.Popen(["sleep", "60"])
        try:
            pid_file.write_text(real.replace(real.split("\n", 1)[0], str(bystander.pid), 1))
            with pytest.raises(EmbeddedPostgresError, match="does not describe"):
                EmbeddedPostgres(data_dir, watchdog=False).start()
            assert bystander.poll() is None
            assert connects(pg.superuser_url)
        finally:
            pid_file.write_text(real)
            bystander.kill()
            bystander.wait()
    assert server_gone(data_dir)


def test_sigkill_during_the_first_start(data_dir: Path, spawn: Callable[..., Child]) -> None:
    first = spawn()
    time.sleep(0.8)  # about half way through initdb
    first.kill(signal.SIGKILL)
    second = spawn()
    assert connects(second.url)
    assert second.exit_cleanly() == 0
    assert server_gone(data_dir)


def test_missing_locale(data_dir: Path, spawn: Callable[..., Child]) -> None:
    bogus = "xx_XX.UTF-8"
    child = spawn(env={"LANG": bogus, "LC_ALL": bogus, "LC_CTYPE": bogus, "LC_COLLATE": bogus})
    with psycopg.connect(child.url) as conn:
        row = conn.execute(
            "SELECT pg_encoding_to_char(encoding), datcollate FROM pg_database "
            "WHERE datname = current_database()"
        ).fetchone()
        assert row == ("UTF8", "C")
        assert conn.execute("SELECT %s::text", ("戦記",)).fetchone() == ("戦記",)
    assert child.exit_cleanly() == 0
    assert server_gone(data_dir)


def test_long_data_dir_uses_a_short_socket_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / ("d" * 60) / ("e" * 60)
    pg = EmbeddedPostgres(data_dir, watchdog=False)
    socket_dir = Layout(data_dir.resolve()).socket_dir()
    assert str(socket_dir).startswith("/tmp/senki-pg-")
    try:
        with pg:
            assert connects(pg.url_for("postgres"))
            assert f"host={socket_dir}" in pg.superuser_url
        assert server_gone(data_dir)
    finally:
        kill_server_processes(data_dir.resolve() / "pg", grace_s=5)
        shutil.rmtree(socket_dir, ignore_errors=True)  # outside tmp_path: clean up ourselves


def test_a_sigkilled_postmaster_is_started_again_by_the_process_using_it(
    data_dir: Path,
) -> None:
    """In process: the keeper notices the death, starts the same cluster on the same socket,
    and the URL handed out before works again; meanwhile it says it is recovering."""
    from infra.postgres.keeper import Keeper

    with EmbeddedPostgres(data_dir) as pg:
        url = pg.superuser_url
        keeper = Keeper(pg, every_s=0.1).start()
        try:
            server = postmaster_pid(data_dir)
            assert server is not None
            os.kill(server, signal.SIGKILL)
            assert wait_until(lambda: keeper.state.status == "recovering" or connects(url))
            assert wait_until(lambda: connects(url), timeout=30), "the server stayed down"
            assert postmaster_pid(data_dir) not in (None, server)
            assert wait_until(lambda: keeper.state.status == "running")
        finally:
            keeper.stop()
    assert server_gone(data_dir)


def test_senki_serve_recovers_from_a_sigkilled_postmaster(data_dir: Path, tmp_path: Path) -> None:
    """The whole service: SIGKILL the embedded postmaster under `senki serve`; /readyz is 503
    only for seconds, /healthz never claims all is well meanwhile, and writes work again."""
    import httpx

    from tests.support.processes import free_port

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
    env |= {"SENKI_DATA_DIR": str(data_dir), "SENKI_LOG_LEVEL": "warning"}
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        serve = subprocess.Popen(
            [sys.executable, "-m", "infra.cli.main", "serve", "--port", str(port)],
            env=env, cwd=REPO_ROOT, stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def answers(path: str) -> tuple[int, dict[str, Any]]:
        try:
            got = httpx.get(base + path, timeout=2)
            return got.status_code, got.json()
        except httpx.HTTPError:
            return 0, {}

    try:
        assert wait_until(lambda: answers("/readyz")[0] == 200, timeout=120), log.read_text()
        server = postmaster_pid(data_dir)
        assert server is not None
        os.kill(server, signal.SIGKILL)
        killed_at = time.monotonic()
        seen: list[tuple[float, int, str, int]] = []  # when, /healthz status and state, /readyz

        def ready_again() -> bool:
            health, body = answers("/healthz")
            ready, _ = answers("/readyz")
            seen.append((time.monotonic() - killed_at, health, body.get("status", ""), ready))
            return ready == 200 and postmaster_pid(data_dir) != server

        assert wait_until(ready_again, timeout=30), (
            f"not ready again: {seen[-5:]}\n{log.read_text()}"
        )
        back_in = time.monotonic() - killed_at
        print(f"ready again {back_in:.2f} s after the SIGKILL; seen {len(seen)} probes")
        # Honest meanwhile: while not ready, /healthz never said plain "ok".
        assert all(state != "ok" for _, _, state, ready in seen if ready != 200), seen
        assert back_in < 15
        with httpx.Client(base_url=base, timeout=30) as http:
            opened = http.post(
                "/v1/campaigns",
                headers={"Idempotency-Key": "after-the-restart-1"},
                json={"name": "再起", "gm_member_id": "gm"},
            )
            assert opened.status_code == 201, opened.text
        assert answers("/healthz") == (200, {"status": "ok"})
        # The read models (projected inside serve) caught up past the restart too.
        assert wait_until(lambda: _projections_caught_up(base), timeout=60), log.read_text()
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(60)
    assert "Traceback" not in log.read_text()
    assert wait_until(lambda: server_gone(data_dir), timeout=30)


def _projections_caught_up(base: str) -> bool:
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    try:
        text = httpx.get(f"{base}/metrics", timeout=5).text
    except httpx.HTTPError:
        return False
    lags = [
        sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "senki_projection_lag_events"
        for sample in family.samples
    ]
    return bool(lags) and all(lag == 0 for lag in lags)
