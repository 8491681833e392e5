"""`senki audit`, `senki export` and `senki verify --bundle`: an encounter's rulings, checkable.

`audit` prints every ruling with its rules, dice and command; `export` writes the encounter's
audit bundle (docs/audit-bundle.md); `verify-bundle` checks one with no database at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from uuid import UUID

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from infra.cli_options import output_file
from infra.settings import Settings

if TYPE_CHECKING:
    from infra.services.audit import RollAudit

console = Console()


def audit(
    encounter: Annotated[UUID, typer.Argument(help="The encounter's id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the trail as JSON.")] = False,
) -> None:
    """Every ruling of an encounter: rules and their text, inputs, dice, options, command."""
    from infra import bootstrap
    from infra.services.audit import AuditService

    runtime = bootstrap.start(Settings())
    try:
        trail = AuditService(runtime.ledger, runtime.executor).trail(encounter)
    finally:
        runtime.close()
    if as_json:
        console.print_json(json.dumps([e.model_dump(mode="json") for e in trail]))
        return
    table = Table("v", "command", "rules", "inputs → outcome", "dice", title=f"Audit {encounter}")
    for entry in trail:
        issued = entry.command
        command = (
            f"{issued.command_type}\nby {escape(issued.by)}\n{issued.at:%Y-%m-%d %H:%M:%S}"
            if issued
            else "—"
        )
        rules = "\n".join(
            f"[bold]{r.rule_id}[/] {escape((r.text or '(not in the digest)').replace('**', ''))}"
            for r in entry.rules
        )
        numbers = escape(f"{_pairs(entry.inputs)}\n→ {_pairs(entry.outcome)}")
        if entry.options:
            numbers += escape(f"\noptions: {_pairs(entry.options)}")
        if entry.disputes:
            numbers += "\n" + "\n".join(
                f"[yellow]disputed ({d.status}) by {escape(d.filed_by)}: {escape(d.reason)}[/]"
                for d in entry.disputes
            )
        table.add_row(str(entry.version), command, rules, numbers, _dice(entry.dice))
    console.print(table)


def _pairs(values: Mapping[str, object]) -> str:
    return ", ".join(f"{key}={value}" for key, value in values.items())


def _dice(rolls: list[RollAudit]) -> str:
    lines = []
    for roll in rolls:
        marks = []
        for die in roll.dice:
            mark = {True: "[green]✓[/]", False: "[red]✗[/]", None: ""}[die.recomputes]
            marks.append(f"{die.face}/d{die.sides}{mark}")
        source = " [yellow]by hand[/]" if roll.source == "hand" else ""
        problems = "".join(f"\n[red]{escape(p)}[/]" for p in roll.problems)
        lines.append(f"#{roll.roll_seq} {' '.join(marks)}{source}{problems}")
    return "\n".join(lines) or "—"


def export(
    encounter: Annotated[UUID, typer.Argument(help="The encounter's id.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write here instead of stdout.", callback=output_file),
    ] = None,
) -> None:
    """Write the encounter's audit bundle: a receipt `senki verify --bundle` checks offline."""
    from infra import bootstrap
    from infra.bundle import export_bundle

    runtime = bootstrap.start(Settings())
    try:
        bundle = export_bundle(runtime.ledger, encounter)
    finally:
        runtime.close()
    text = json.dumps(bundle, ensure_ascii=False, indent=2) + "\n"
    if output is None:
        typer.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    console.print(f"{len(bundle['events'])} events of {encounter} written to {output}")


def verify_bundle(
    file: Annotated[
        Path,
        typer.Argument(
            help="An audit bundle written by `senki export`.",
            exists=True,
            dir_okay=False,
            readable=True,
        ),
    ],
) -> None:
    """Check an audit bundle with no database and no network; exit 1 naming each problem."""
    raise typer.Exit(run_verify_bundle(file, console))


def run_verify_bundle(file: Path, out: Console) -> int:
    """Print what the bundle bears out; 0 when everything holds, 1 otherwise (2: unreadable)."""
    from infra.bundle import verify_bundle as check

    try:
        bundle = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        out.print(f"[red]bundle {file}:[/] cannot be read: {escape(str(error))}")
        return 2
    if not isinstance(bundle, dict):
        out.print(f"[red]bundle {file}:[/] is not a JSON object")
        return 2
    report = check(bundle)
    for problem in report.problems:
        # As the data says it: no markup, no emoji (`:100:`), never wrapped mid-hash.
        out.print(
            str(problem), style="red", markup=False, emoji=False, highlight=False, soft_wrap=True
        )
    dice = (
        f"{report.dice_recomputed} of {report.dice} dice recomputed"
        f" ({report.dice_by_hand} entered by hand)"
        if report.seed_revealed
        else f"{report.dice} dice (seed not revealed: not recomputed)"
    )
    verdict = "[green]holds[/]" if report.ok else f"[red]{len(report.problems)} problem(s)[/]"
    out.print(f"encounter {report.encounter_id}: {report.events} events, {dice}: {verdict}")
    return 0 if report.ok else 1
