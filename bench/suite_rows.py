"""The suite's table: one row per figure, with the issue's aim and whether it was met.

The aims live here, not in the benchmarks, because they are the issues' (numbered below);
a benchmark's own `aim` text is shown for figures that have none here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from rich.table import Table


@dataclass(frozen=True)
class Aim:
    """The ratio (figure / reference) an issue asks for."""

    figure: str  # regular expression searched in the figure's name
    sign: Literal["≤", "≥"]
    factor: float
    issue: int

    def matches(self, name: str) -> bool:
        return re.search(self.figure, name) is not None

    def met(self, ratio: float | None) -> bool | None:
        if ratio is None:
            return None
        return ratio <= self.factor if self.sign == "≤" else ratio >= self.factor

    def __str__(self) -> str:
        return f"{self.sign} {self.factor:g}× (#{self.issue})"


@dataclass
class Row:
    benchmark: str
    figure: str
    value: float | None
    unit: str
    reference_name: str
    reference: float | None
    ratio: float | None
    aim: str
    met: bool | None  # None: no aim, or nothing measured
    error: str | None = None


def rows_of(benchmark: str, figures: list[dict[str, Any]], aims: list[Aim]) -> list[Row]:
    """A row per figure; an aim no figure matched becomes a row that says so."""
    rows, unmatched = [], list(aims)
    for figure in figures:
        name = str(figure["name"])
        aim = next((a for a in unmatched if a.matches(name)), None)
        if aim is not None:
            unmatched.remove(aim)
        value, reference = _number(figure.get("value")), _number(figure.get("reference"))
        ratio = value / reference if value is not None and reference else None
        rows.append(
            Row(
                benchmark,
                name,
                value,
                str(figure.get("unit", "")),
                str(figure.get("reference_name", "")),
                reference,
                ratio,
                str(aim) if aim else str(figure.get("aim", "")),
                aim.met(ratio) if aim else None,
            )
        )
    missing = "the benchmark reported no figure for this aim"
    return rows + [failed(benchmark, aim, missing) for aim in unmatched]


def failed(benchmark: str, aim: Aim | None, error: str) -> Row:
    figure = aim.figure if aim else "(no figures)"
    return Row(benchmark, figure, None, "", "", None, None, str(aim or ""), None, error)


def _number(value: object) -> float | None:
    if not isinstance(value, int | float):
        return None
    return None if math.isnan(value) or math.isinf(value) else float(value)


def table(rows: list[Row], title: str) -> Table:
    shown = Table("benchmark", "figure", "value", "reference", "ratio", "aim", "met?", title=title)
    for row in rows:
        if row.error:
            shown.add_row(row.benchmark, row.figure, "—", row.error, "—", row.aim, "[red]error")
            continue
        shown.add_row(
            row.benchmark,
            row.figure,
            _amount(row.value, row.unit),
            f"{row.reference_name}: {_amount(row.reference, row.unit)}",
            "—" if row.ratio is None else f"{row.ratio:.2f}×",
            row.aim,
            {True: "[green]yes", False: "[red]no", None: ""}[row.met],
        )
    return shown


def _amount(value: float | None, unit: str) -> str:
    return (
        "—" if value is None else f"{value:,.3g} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    )
