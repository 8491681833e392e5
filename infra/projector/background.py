"""The projector on a thread of the API process: `senki serve` on the embedded default."""

from __future__ import annotations

import threading

from infra.projector.runner import Projector, log


class BackgroundProjector:
    """The projector on a daemon thread, for `senki serve` on the embedded default.

    An event a model cannot take is parked by the projector itself (park.py); anything else
    unexpected (an event newer than this build) is logged and the projector starts over after
    a pause, so the API keeps serving what is already projected; `senki projections status`
    shows the lag growing.
    """

    def __init__(self, projector: Projector, *, retry_s: float = 5.0) -> None:
        self.projector = projector
        self.retry_s = retry_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="senki-projector", daemon=True)

    def start(self) -> BackgroundProjector:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.projector.run(self._stop)
            except Exception:
                log.exception("projector failed; starting over in %.0f s", self.retry_s)
                self.projector.forget()
                self._stop.wait(self.retry_s)
