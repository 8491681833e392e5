"""The terminal consoles of `senki`, each made when a command first prints through it.

Importing rich.console costs a `senki` command about as much as typer itself, and `senki
--help` prints nothing through them (click writes it), so the commands' module-level consoles
stand in for a Console until then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console


class _OnFirstUse:
    def __init__(self, options: dict[str, Any]) -> None:
        self._options = options
        self._console: Console | None = None

    def _made(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._made(), name)

    # Looked up on the type, never through __getattr__: rich's Live enters its console.
    def __enter__(self) -> Console:
        return self._made().__enter__()

    def __exit__(self, *exc: object) -> None:
        self._made().__exit__(*exc)


def console(**options: Any) -> Console:
    """A rich Console with `options`, made on first use."""
    return cast("Console", _OnFirstUse(options))
