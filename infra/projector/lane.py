"""A child lane of `senki project --lanes N` (see infra.projector.lanes), in a forked process.

The lane starts from a copy of the projector's process, every module already imported:
starting a fresh interpreter cost each lane 0.6 s of CPU (importing the event catalogue built
every pydantic model again), a sixth of a 100,000-event catch-up on two cores.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import threading
from pathlib import Path
from types import FrameType

from domain.catalog import registry
from infra import gc_tuning
from infra.projector.lanes import LaneSpec
from infra.projector.runner import Projector, ProjectorOptions
from infra.store.ledger import open_ledger
from projections.catalog import by_name

_PR_SET_PDEATHSIG = 1


def run(spec: LaneSpec) -> None:
    """The lane's whole life: project `spec.models` until the projector stops it or dies."""
    # The projector's objects are never collected here: frozen, the collector neither walks
    # them nor writes to their pages (which would copy every page the fork shares).
    gc.freeze()
    gc_tuning.tune()
    die_with_parent(spec.parent)
    _close_inherited_sockets()
    # SIGTERM (from the projector, or from the kernel when it dies) raises SystemExit: a
    # batch in flight rolls back and is projected again later, as after a SIGKILL. Ctrl-C
    # reaches the whole process group: the projector stops its lanes itself.
    signal.signal(signal.SIGTERM, _exit)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ledger = open_ledger(
        spec.url,
        registry=registry,
        shards=spec.shards,
        pool_size=1,
        shard_urls=spec.shard_urls,
    )
    options = ProjectorOptions(
        batch_size=spec.batch_size, application_name=spec.application_name, models_only=True
    )
    projector = Projector(
        spec.url, ledger, [by_name(m) for m in spec.models], options, parent=spec.parent
    )
    try:
        projector.run(threading.Event())
    finally:
        ledger.close()


def die_with_parent(parent: int) -> None:
    """Linux: the kernel sends SIGTERM when the parent dies (SIGKILL included)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the projector loop watches the parent
        pass
    if os.getppid() != parent:  # the parent died before the request above
        raise SystemExit(0)


def _close_inherited_sockets() -> None:
    """Close the projector's sockets in this copy of it: its database sessions (the one
    holding the projector lock above all) would otherwise live on after it died, for as long
    as this lane runs, and so would a health port it listens on. psycopg never closes a
    connection it opened in another process, so nothing here uses or closes them again."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():  # not Linux
        return
    for entry in fds.iterdir():
        try:
            if os.readlink(entry).startswith("socket:"):
                os.close(int(entry.name))
        except OSError:  # the directory's own descriptor, already gone
            continue


def _exit(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up
    raise SystemExit(128 + signum)
