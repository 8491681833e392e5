"""`senki campaigns move <campaign-id> --to <shard>`: move a campaign to another shard.

Safe to interrupt and run again: each step's outcome is read back from the databases
(infra/store/move.py), so a second run goes on where the first stopped, and a run for a
campaign already on the shard says so and changes nothing.
"""

from __future__ import annotations

import uuid
from typing import Annotated

import typer

from infra.cli import out
from infra.cli.runtime import start_runtime

campaigns_app = typer.Typer(no_args_is_help=True, help="Campaigns: move one to another shard.")
console = out.console(soft_wrap=True)  # one line an operator can copy whole


def _campaign_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise typer.BadParameter(
            f"{value!r} is not a campaign id: give the UUID the API returned as the campaign's id"
        ) from None


@campaigns_app.command("move")
def move(
    campaign_id: Annotated[
        uuid.UUID, typer.Argument(parser=_campaign_id, metavar="CAMPAIGN_ID", show_default=False)
    ],
    to: Annotated[int, typer.Option("--to", min=0, help="The shard to move the campaign to.")],
    projector_wait: Annotated[
        float,
        typer.Option(
            min=0,
            max=3600,
            help="Seconds to wait for the read models to pass the fence before switching.",
        ),
    ] = 30.0,
) -> None:
    """Copy the campaign's streams (with their chain) to shard --to, fence and verify them,
    switch their placement and retire the old copy. Safe to interrupt and run again."""
    from infra.store.move import move_campaign

    runtime = start_runtime()
    try:
        report = move_campaign(runtime.ledger, campaign_id, to, projector_wait_s=projector_wait)
    finally:
        runtime.close()
    if report.already_there:
        console.print(f"campaign {campaign_id} is on shard {to} already: nothing to do")
        return
    sources = ", ".join(str(s) for s in sorted(report.sources))
    console.print(
        f"moved campaign {campaign_id} from shard {sources} to shard {to}: "
        f"{report.streams} streams, {report.events_copied} events and "
        f"{report.answers_copied} stored answers copied in {report.seconds:.1f} s"
    )
    if not report.projector_waited:
        console.print(
            "[yellow]warning:[/] the read models had not reached the fence when the placement "
            "switched; if a projector was not running, rebuild them (`senki projections rebuild`)"
        )
