"""A child lane of `senki project --lanes N` (see infra.projector.lanes); not run by hand."""

from __future__ import annotations

import ctypes
import json
import logging
import os
import signal
import sys
import threading

from domain.catalog import registry
from infra import gc_tuning
from infra.embedded_pg import install_termination_handlers
from infra.projector.lanes import LaneSpec
from infra.projector.runner import Projector, ProjectorOptions
from infra.store.ledger import open_ledger
from projections.catalog import by_name

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Linux: the kernel sends SIGTERM when the parent dies (SIGKILL included)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the projector loop watches the parent
        pass
    if os.getppid() != parent:  # the parent died before the request above
        sys.exit(0)


def main(argv: list[str]) -> None:
    spec = LaneSpec(**json.loads(argv[0]))
    die_with_parent(spec.parent)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s[%(process)d] %(message)s")
    gc_tuning.tune()
    # SIGTERM (from the projector, or from the kernel when it dies) raises SystemExit: a
    # batch in flight rolls back and is projected again later, as after a SIGKILL. Setting a
    # threading.Event from the handler deadlocked when the signal came while this thread
    # waited on that same Event (an orphaned lane then ran on for ever).
    install_termination_handlers()
    ledger = open_ledger(spec.url, registry=registry, shards=spec.shards, pool_size=1)
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


if __name__ == "__main__":
    main(sys.argv[1:])
