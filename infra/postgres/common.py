"""Shared pieces of the embedded PostgreSQL: its error type and the data-directory layout."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger("senki.embedded_pg")

SUPERUSER = "postgres"
# The server never listens on TCP; the port only names the socket file (.s.PGSQL.5432) and is
# always written into the URLs, so a PGPORT in the environment cannot point libpq elsewhere.
SOCKET_PORT = 5432
SOCKET_NAME = f".s.PGSQL.{SOCKET_PORT}"
# sun_path holds 108 bytes on Linux and 104 on macOS; keep the socket's full path well below both.
MAX_SOCKET_PATH = 100
# A socket directory travels through postgresql.conf list syntax and a shell (pg_ctl -o), so a
# path with any of these characters uses the short fallback directory instead.
_UNSAFE_SOCKET_CHARS = frozenset(",\"'\\$`\n\t")


class EmbeddedPostgresError(RuntimeError):
    """The embedded PostgreSQL could not be started or stopped; the message says what to do."""


@dataclass(frozen=True)
class Layout:
    """Where everything lives; `data_dir` must be absolute (see EmbeddedPostgres.__init__)."""

    data_dir: Path

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pg"

    @property
    def initdb_tmp(self) -> Path:
        """initdb runs here and is renamed to `pgdata` when complete, so a killed initdb never
        leaves a half-made cluster where a later start would mistake it for a real one."""
        return self.data_dir / "pg.initdb-tmp"

    @property
    def server_log(self) -> Path:
        return self.data_dir / "pg.log"

    @property
    def watchdog_log(self) -> Path:
        return self.data_dir / "pg-watchdog.log"

    @property
    def mutex_file(self) -> Path:
        """Held (flock LOCK_EX) by whoever is starting, attaching to or stopping the server."""
        return self.data_dir / "pg.lock"

    @property
    def users_file(self) -> Path:
        """Every process using the server holds a LOCK_SH on it; the kernel drops that lock
        when the process dies, even by SIGKILL, so no stale record can outlive its process."""
        return self.data_dir / "pg.users.lock"

    @property
    def watchdog_file(self) -> Path:
        """Held (LOCK_EX) by the watchdog for its whole life, so "is one alive" is a lock test."""
        return self.data_dir / "pg.watchdog.lock"

    def socket_dir(self) -> Path:
        """The directory for the server's Unix socket: the cluster directory itself when the
        path is short and plain, else a private directory under /tmp named by a hash of it."""
        preferred = self.pgdata
        text = str(preferred)
        if len(str(preferred / SOCKET_NAME).encode()) < MAX_SOCKET_PATH and not (
            _UNSAFE_SOCKET_CHARS & set(text)
        ):
            return preferred
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        return Path("/tmp") / f"senki-pg-{digest}"


def tail(path: Path, lines: int = 15) -> str:
    """The last lines of a log file, for error messages; empty if it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
