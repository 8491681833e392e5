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

from infra.cli import out
from infra.cli.options import output_file
from infra.cli.runtime import start_runtime

if TYPE_CHECKING:
    from rich.console import Console

    from infra.services.audit import AuditEntry, RollAudit

console = out.console()


def audit(
    encounter: Annotated[UUID, typer.Argument(help="The encounter's id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the trail as JSON.")] = False,
) -> None:
    """Every ruling of an encounter: rules and their text, inputs, dice, options, command."""
    from infra.services.audit import AuditService

    runtime = start_runtime()
    try:
        trail = AuditService(runtime.ledger, runtime.executor).trail(encounter)
    finally:
        runtime.close()
    if as_json:
        console.print_json(json.dumps([e.model_dump(mode="json") for e in trail]))
        return
    console.print(f"[bold]Audit {encounter}[/]: {len(trail)} rulings (--json for every detail)")
    for entry in trail:
        print_ruling(console, entry)


def print_ruling(out: Console, entry: AuditEntry) -> None:
    """One ruling as a heading and labelled lines that wrap under their label, so it reads at
    80 columns (a five-column table there wrapped every cell to a word or two a line)."""
    from rich.markup import escape
    from rich.table import Table

    issued = entry.command
    command = (
        f"{escape(issued.command_type)} by {escape(issued.by)} · {issued.at:%Y-%m-%d %H:%M:%S}"
        if issued
        else "(no command: the procedure moved on)"
    )
    out.print(f"\n[bold]v{entry.version}[/] {command}")
    lines = Table.grid(padding=(0, 1))
    lines.add_column(style="dim", no_wrap=True)
    lines.add_column(overflow="fold")
    lines.add_row("ruling", escape(entry.summary_en))
    lines.add_row("", escape(entry.summary_ja))
    for rule in entry.rules:
        lines.add_row("rule", f"[bold]{rule.rule_id}[/] {escape(_gist(rule.rule_id, rule.text))}")
    lines.add_row("in", escape(_pairs(entry.inputs)) or "—")
    lines.add_row("out", escape(_pairs(entry.outcome)) or "—")
    if entry.options:
        lines.add_row("options", escape(_pairs(entry.options)))
    for roll in entry.dice:
        lines.add_row("dice", _roll(roll))
    for d in entry.disputes:
        lines.add_row(
            "disputed",
            f"[yellow]{escape(d.status)} by {escape(d.filed_by)}: {escape(d.reason)}[/]",
        )
    out.print(lines)


def _gist(rule_id: str, text: str | None) -> str:
    """The rule's own sentence: an interpretation's paragraph, else the heading and the first
    sentence (RULES.md has the rest; --json carries the whole text)."""
    if not text:
        return "(not in the digest)"
    plain = text.replace("**", "")
    marker = f"Interpretation {rule_id}:"
    if marker in plain:
        body = plain[plain.index(marker) + len(marker) :].strip()
        return body.split(" **Interpretation")[0].split(" Interpretation ")[0]
    body = plain.removeprefix(rule_id).strip()
    first = body.split(". ")[0]
    return first if first.endswith(".") or first == body else first + "."


def _pairs(values: Mapping[str, object]) -> str:
    return ", ".join(f"{key}={value}" for key, value in values.items())


def _roll(roll: RollAudit) -> str:
    """`#3 1D20+1 攻撃: (1D20+1) ＞ 9[9]+1 ＞ 10 · 9/d20✓`: the roll as written, comment too."""
    from rich.markup import escape

    marks = []
    for die in roll.dice:
        mark = {True: "[green]✓[/]", False: "[red]✗[/]", None: ""}[die.recomputes]
        marks.append(f"{die.face}/d{die.sides}{mark}")
    written = " ".join(part for part in (roll.expression, roll.comment) if part)
    source = " [yellow]by hand[/]" if roll.source == "hand" else ""
    problems = "".join(f"\n[red]{escape(p)}[/]" for p in roll.problems)
    said = f": {escape(roll.text)}" if roll.text else ""
    return f"#{roll.roll_seq} {escape(written)}{said} · {' '.join(marks)}{source}{problems}"


def export(
    encounter: Annotated[UUID, typer.Argument(help="The encounter's id.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write here instead of stdout.", callback=output_file),
    ] = None,
) -> None:
    """Write the encounter's audit bundle: a receipt `senki verify --bundle` checks offline."""
    from infra.store.bundle import export_bundle
    from infra.store.bundle_proofs import with_proofs

    runtime = start_runtime()
    try:
        bundle = with_proofs(export_bundle(runtime.ledger, encounter), runtime.log_trees)
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


def run_verify_bundle(file: Path, out: Console, vkey: str | None = None) -> int:
    """Print what the bundle bears out; 0 when everything holds, 1 otherwise (2: unreadable)."""
    from rich.markup import escape

    from infra.store.bundle import verify_bundle as check

    try:
        bundle = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        out.print(f"[red]bundle {file}:[/] cannot be read: {escape(str(error))}")
        return 2
    if not isinstance(bundle, dict):
        out.print(f"[red]bundle {file}:[/] is not a JSON object")
        return 2
    report = check(bundle, vkey)
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
    if report.pinned:
        out.print(report.pinned, markup=False, emoji=False, highlight=False, soft_wrap=True)
    out.print(f"encounter {report.encounter_id}: {report.events} events, {dice}: {verdict}")
    return 0 if report.ok else 1
