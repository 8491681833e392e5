"""A rule system's commands, each declared once: its class, its handler, where the procedure
awaits it, and its name for the table in English and Japanese.

A declaration sits on its handler (`@DECLARED.command(cmd.Wait, legal="start_of_phase", en=…,
ja=…)`), in the module whose rules it applies; everything else is read from the declarations:
the ruleset's `commands` (the HTTP bodies), its handler table (`decide`), the commands each
step of its procedure awaits (`legal_commands`), and the labels the page shows. Commands are
listed in the order their classes were written (`Command.written`), so a rule system's
commands.py sets the order of its bodies and of the commands a step awaits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, TypeVar

from domain.rules.ruleset import Command, Labels

R = TypeVar("R")  # the rule system's Run: what a handler decides with
W = TypeVar("W", bound=str)  # the steps of its procedure (a Literal)
H = TypeVar("H", bound=Callable[..., None])


@dataclass(frozen=True)
class Declared(Generic[R, W]):
    """One command: its class, what decides it, the steps that await it, its labels."""

    command: type[Command]
    handler: Callable[[R, Any], None]
    legal: tuple[W, ...]
    labels: Labels


class Declarations(Generic[R, W]):
    """Every command of one rule system, filled by the declarations on its handlers and
    sealed by its ruleset once the modules that declare them are imported."""

    def __init__(self, steps: tuple[W, ...]) -> None:
        self._steps = steps
        self._declared: dict[type[Command], Declared[R, W]] = {}
        self._sealed: tuple[Declared[R, W], ...] | None = None
        self._awaited: dict[W, tuple[type[Command], ...]] = {}

    def command(
        self, command: type[Command], *, legal: W | tuple[W, ...], en: str, ja: str
    ) -> Callable[[H], H]:
        """Declare `command` on its handler: `legal` names the step(s) of the procedure that
        await it; `en`/`ja` its name for the table."""
        steps = (legal,) if isinstance(legal, str) else legal
        unknown = [step for step in steps if step not in self._steps]
        if unknown or not steps:
            raise ValueError(f"{command.__name__}: no such step {unknown}; steps: {self._steps}")

        def declare(handler: H) -> H:
            if self._sealed is not None:
                raise RuntimeError(f"{command.__name__} declared after its ruleset was built")
            if command in self._declared:
                raise ValueError(f"{command.__name__} is declared twice")
            self._declared[command] = Declared(command, handler, steps, Labels(en, ja))
            return handler

        return declare

    def sealed(self, *modules: ModuleType) -> tuple[Declared[R, W], ...]:
        """Every declaration, once `modules` (those that declare commands) are imported: the
        ruleset names them, so no command is left out by a module nobody imported."""
        if self._sealed is None:
            silent = [m.__name__ for m in modules if not self._from(m)]
            if silent:
                raise ValueError(f"these modules declare no command: {silent}")
            found = sorted(self._declared.values(), key=lambda d: d.command.written)
            self._sealed = tuple(found)
            # Asked on every command (which commands are legal now): answered from a table.
            self._awaited = {
                s: tuple(d.command for d in found if s in d.legal) for s in self._steps
            }
        return self._sealed

    def _from(self, module: ModuleType) -> bool:
        return any(d.handler.__module__ == module.__name__ for d in self._declared.values())

    def awaited_in(self, step: W) -> tuple[type[Command], ...]:
        """The commands this step of the procedure awaits, in the order they were written."""
        if self._sealed is None:
            raise RuntimeError("the ruleset has not sealed its declarations yet")
        return self._awaited[step]

    def named_ja(self, command_type: str) -> str:
        """The command's Japanese name (a refusal to a Japanese table names it so); its type
        name if the rule system declares no such command."""
        found = (
            d.labels.ja for d in self._declared.values() if d.command.command_type == command_type
        )
        return next(found, command_type)


def commands_of(declared: tuple[Declared[R, W], ...]) -> tuple[type[Command], ...]:
    return tuple(d.command for d in declared)


def handlers_of(
    declared: tuple[Declared[R, W], ...],
) -> dict[type[Command], Callable[[R, Any], None]]:
    return {d.command: d.handler for d in declared}


def labels_of(declared: tuple[Declared[R, W], ...]) -> Mapping[str, Labels]:
    return {d.command.command_type: d.labels for d in declared}
