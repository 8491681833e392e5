"""The ledger a `senki` command opens, imported only when a command runs (not for --help)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infra.services.runtime import Runtime


def start_runtime() -> Runtime:
    """Start the runtime from the SENKI_* settings (the embedded server when no URL is set)."""
    from infra import bootstrap
    from infra.settings import Settings

    return bootstrap.start(Settings())
