"""`senki dice …`: roll verifiable dice from a terminal, reveal a log's seed, verify its rolls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated
from uuid import UUID

import typer

from infra.cli import out
from infra.cli.options import short_text
from infra.cli.runtime import start_runtime

if TYPE_CHECKING:
    from infra.services import RollAnswer, RollLogPublic

DEFAULT_PURPOSE = "table roll"
dice_app = typer.Typer(no_args_is_help=True, help="Verifiable dice (BCDice's language).")


class _Ones:
    """Every die shows 1: enough to tell a command from chat before anything is opened."""

    def face(self, index: int, sides: int) -> int:
        return 1


console = out.console()


@dice_app.command("roll")
def roll(
    expression: Annotated[
        str | None,
        typer.Argument(
            help="BCDice: 2D6+3>=10, 3B6>=4, 2R6[5]>=5, 4U6[6], D66, choice[a,b], x3 1D6"
        ),
    ] = None,
    *,
    table: Annotated[
        str | None,
        typer.Option(
            help="Roll the campaign's kept dice table of this name instead (needs --campaign).",
            callback=short_text,
        ),
    ] = None,
    campaign: Annotated[
        UUID | None,
        typer.Option(
            help="The campaign: its table log takes the roll (unless --log), its kept table "
            "--table names."
        ),
    ] = None,
    log: Annotated[
        UUID | None,
        typer.Option(
            help="Roll log to roll in (default: the --campaign's table log; without a "
            "campaign, a new log of its own)."
        ),
    ] = None,
    client_seed: Annotated[
        str | None,
        typer.Option(help="Your own seed, mixed into the dice.", callback=short_text),
    ] = None,
    purpose: Annotated[
        str, typer.Option(help="Why (a rule ID, say).", callback=short_text)
    ] = DEFAULT_PURPOSE,
) -> None:
    """Roll server dice (or a campaign's kept table, by name); recorded in a roll log that
    commits to its seed first."""
    from domain.dice.bcdice import NotACommand, evaluate
    from domain.dice.bcdice.user_table import SYSTEM_ID as TABLE_SYSTEM

    if (expression is None) == (table is None):
        raise typer.BadParameter("give an expression or --table NAME (with --campaign), not both")
    if table is not None and campaign is None:
        raise typer.BadParameter("--table names a campaign's kept table: give --campaign too")
    if expression is not None and evaluate(expression, _Ones()) is None:  # chat: before any write
        raise NotACommand(f"{expression!r} is not a dice command; write e.g. 2D6+3>=10")
    runtime = start_runtime()
    try:
        command, system, kept = expression or "", "DiceBot", None
        if table is not None and campaign is not None:
            command, kept = runtime.dice_tables.to_roll(campaign, table)
            system = TABLE_SYSTEM
            purpose = kept.shown if purpose == DEFAULT_PURPOSE else purpose
        service = runtime.roll_logs

        def roll_in(log_id: UUID) -> RollAnswer:
            return service.roll(
                log_id,
                command,
                by="cli",
                purpose=purpose,
                client_seed=client_seed,
                system=system,
                table=kept,
            )

        if log is not None:
            answer = roll_in(log)
        elif campaign is not None:
            runtime.campaigns.get(campaign)  # a campaign that is not there has no table
            answer, opened = service.at_table(campaign, by="cli", roll=roll_in)
            _say_opened(opened, "the campaign's table log")
        else:
            opened = service.open("cli", by="cli")
            _say_opened(opened, "a log of its own: give --campaign to roll at a campaign's table")
            answer = roll_in(UUID(opened.id))
        log = UUID(answer.roll_log.id)
    finally:
        runtime.close()
    result = answer.roll
    assert result is not None  # a roll's answer carries it
    if kept is not None:  # a kept table's roll says which table and version
        secret = " (secret)" if result.secret else ""
        console.print(f"#{result.roll_seq}{secret} {purpose}: {result.text}", markup=False)
    else:
        for line in said(result.roll_seq, result.command, result.text, secret=result.secret):
            console.print(line, markup=False)
    console.print(f"dice: {result.faces}  (log {log})")


def _say_opened(opened: RollLogPublic | None, what: str) -> None:
    if opened is not None:
        console.print(
            f"new roll log {opened.id} ({what})\ncommitment sha256(seed) = {opened.commitment}"
        )


@dice_app.command("logs")
def logs(
    campaign: Annotated[UUID, typer.Option(help="The campaign whose roll logs to list.")],
    limit: Annotated[int, typer.Option(min=1, max=500, help="Logs to show.")] = 50,
) -> None:
    """The campaign's roll logs by name: the table log that takes rolls first, then the
    others, newest first (an operator's view: every roll counted, secret ones too)."""
    runtime = start_runtime()
    try:
        runtime.campaigns.get(campaign)  # NotFound: a clear line, exit 1
        found = runtime.roll_logs.page(campaign, limit=limit)
    finally:
        runtime.close()
    from rich.table import Table
    from rich.text import Text

    table = Table("name", "kind", "rolls", "last roll", "state", "id")
    for listed, state in found.logs:
        last = state.rolled_at[-1].isoformat(timespec="seconds") if state.rolled_at else "-"
        shut = "revealed" if state.revealed_seed is not None else "open"
        table.add_row(  # a name is the members' text: shown as typed, never as markup
            Text(state.name), listed.kind, str(len(state.rolls)), last, shut, str(listed.log_id)
        )
    if not found.logs:
        console.print(
            f"campaign {campaign} has no roll log yet: its first roll opens the table log"
        )
        return
    console.print(table)
    if found.next_offset is not None:
        console.print(f"{found.total - len(found.logs)} more: --limit {found.total}")


def said(seq: int, command: str, text: str, *, secret: bool) -> list[str]:
    """`#0 攻撃: (2D6+3>=10) ＞ 9` (BCDice's text leaves out the roller's comment: say it, as a
    table does). A repeat (`x3 1D6`) is the log's roll #seq holding BCDice's own #1, #2, …:
    its command on the first line, then each result on a line of its own."""
    hidden = " (secret)" if secret else ""
    if "\n" in text:
        results = [" ".join(block.split()) for block in text.split("\n\n") if block.strip()]
        return [f"#{seq}{hidden} {' '.join(command.split())}", *(f"  {r}" for r in results)]
    comment = command.split(maxsplit=1)[1:]
    return [f"#{seq}{hidden} {comment[0].strip() + ': ' if comment else ''}{text}"]


@dice_app.command("reveal")
def reveal(log: Annotated[UUID, typer.Argument(help="The roll log.")]) -> None:
    """Publish the log's server seed; after this anyone can recompute its dice."""
    runtime = start_runtime()
    try:
        answer = runtime.roll_logs.reveal(log, by="cli")
    finally:
        runtime.close()
    console.print(f"seed {answer.revealed_seed} (commitment {answer.commitment})")


@dice_app.command("verify")
def verify(log: Annotated[UUID, typer.Argument(help="A roll log whose seed is revealed.")]) -> None:
    """Recompute every die of a revealed log; exit 1 naming each roll that does not match."""
    runtime = start_runtime()
    try:
        state, checks = runtime.roll_logs.audit(log)
    finally:
        runtime.close()
    from rich.table import Table

    table = Table("#", "roll", "result")
    for result, check in zip(state.rolls, checks, strict=True):
        verdict = (
            "[red]" + "; ".join(check.problems) + "[/]"
            if check.problems
            else "[yellow]entered by hand[/]"
            if check.unverifiable
            else "[green]recomputed[/]"
        )
        table.add_row(str(result.roll_seq), result.text, verdict)
    console.print(f"Roll log {state.id}", soft_wrap=True)  # whole: not a title wrapped to the table
    console.print(table)
    if not all(check.ok for check in checks):
        raise typer.Exit(1)
