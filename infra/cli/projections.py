"""`senki project` and `senki projections status|rebuild`: the read side from a terminal."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Annotated

import typer

from infra import gc_tuning
from infra.cli import out
from infra.cli.runtime import start_runtime

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rich.table import Table

    from infra.services.ports import ProjectionPositionView
    from infra.services.runtime import Runtime
    from infra.settings import Settings
    from infra.store.ledger import Ledger

projections_app = typer.Typer(no_args_is_help=True, help="Read models: status and rebuilds.")
console = out.console()


def project(
    batch_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="Events per transaction.")
    ] = 500,
    name: Annotated[
        str, typer.Option(help="Shown in pg_stat_activity (which pod holds the lock).")
    ] = "",
    health_port: Annotated[
        int, typer.Option(min=0, max=65535, help="Serve GET /healthz on this port (0: none).")
    ] = 0,
    lanes: Annotated[
        int,
        typer.Option(
            min=1,
            max=16,
            help="Processes to split the read models over (one per core; at most one per model).",
        ),
    ] = 1,
) -> None:
    """Run every projection (one projector per database; a second one waits on standby)."""
    from infra import bootstrap
    from infra.projector.runner import Projector, ProjectorOptions
    from infra.settings import Settings

    gc_tuning.tune()
    runtime = _start_when_reachable(bootstrap.start, Settings())
    try:
        console.print(
            f"[bold]Senki[/] {runtime.version} projector (standby until it holds the lock)"
        )
        projector = Projector(runtime.urls.service, runtime.ledger)
        label = f"senki-projector:{name}" if name else "senki-projector"
        projector.options = ProjectorOptions(
            batch_size=batch_size, application_name=label, lanes=lanes
        )
        if health_port:
            from infra.projector.health import serve_health

            serve_health(health_port, projector)
        projector.run(threading.Event())
    finally:
        runtime.close()


def _start_when_reachable(start: Callable[[Settings], Runtime], settings: Settings) -> Runtime:
    """Start the runtime, waiting while PostgreSQL cannot be reached.

    A projector is restarted by its supervisor at any time, also while the database restarts
    or fails over; it waits for it as it waits on standby for the lock, instead of exiting at
    once (and crash-looping). Any other refusal (an unmigrated database, bad settings), and an
    embedded server that cannot start, still end it with the message saying what to do."""
    from infra.postgres.database import DatabaseUnavailable

    pause = 0.5
    while True:
        try:
            return start(settings)
        except DatabaseUnavailable as error:
            if settings.database_url is None:
                raise  # the embedded server is this process's to start: waiting mends nothing
            console.print(f"waiting for PostgreSQL: {error}", soft_wrap=True)
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


@projections_app.command("status")
def status(
    fail_unavailable: Annotated[
        bool,
        typer.Option(
            "--fail-unavailable",
            help="Exit 3 when some shard's cluster does not answer (for scripts and probes).",
        ),
    ] = False,
) -> None:
    """Each projection's generations, the log position they reflect, and their lag.

    A shard whose PostgreSQL cluster is down keeps its rows (positions are read on the home
    database) with head and lag `unavailable`; the other shards are shown as usual."""
    from infra import bootstrap
    from infra.projector.admin import projector_running
    from infra.projector.admin import status as read_status
    from infra.settings import Settings
    from projections.catalog import PROJECTIONS

    settings = Settings()
    runtime = bootstrap.start(settings)
    try:
        stall_s = settings.projection_stall_s
        rows = read_status(runtime.urls.service, runtime.ledger, PROJECTIONS, stall_s=stall_s)
        running = projector_running(runtime.urls.service)
    finally:
        runtime.close()
    console.print(status_table(rows))
    for row in rows:
        if row.degraded:  # the reason in full, unwrapped: an operator copies it into a bug report
            print(
                f"DEGRADED {row.projection} g{row.generation} shard {row.shard}: "
                f"{row.parked} event(s) parked from position {row.parked_at}: {row.reason}"
            )
        if row.stalled:
            print(
                f"DEGRADED {row.projection} g{row.generation} shard {row.shard}: stalled at "
                f"position {row.position} for {row.still_s:.0f} s while the log is at {row.head} "
                "(is the projector running? see its log)"
            )
    down = sorted({row.shard for row in rows if not row.shard_up})
    for shard in down:
        print(
            f"UNAVAILABLE shard {shard}: its PostgreSQL cluster does not answer; positions "
            "are as last recorded, head and lag unknown until it is back"
        )
    console.print("projector: " + ("running" if running else "[yellow]not running[/]"))
    if down and fail_unavailable:
        raise typer.Exit(3)


def status_table(rows: Sequence[ProjectionPositionView]) -> Table:
    """One line per generation and shard; a down shard's head and lag read `unavailable`."""
    from rich.table import Column, Table

    # The parked column only when something is parked: at 80 columns one more squeezes names.
    parked = any(row.degraded for row in rows)
    headings = ["generation", "role", "shard", "position", "head", "lag"]
    # The name whole at 80 columns (it is what `projections rebuild` takes); the rest folds.
    widest = max((len(row.projection) for row in rows), default=10)
    table = Table(
        Column("projection", no_wrap=True, min_width=widest),
        *(Column(h, overflow="fold") for h in [*headings, *(["parked"] if parked else [])]),
    )
    for row in rows:
        cells = [row.projection, str(row.generation), row.role, str(row.shard), str(row.position)]
        if row.head is None:
            cells += ["unavailable", "unavailable"]
        else:
            cells += [str(row.head), str(row.lag)]
        table.add_row(*cells, *([str(row.parked)] if parked else []))
    return table


@projections_app.command("rebuild")
def rebuild(
    name: Annotated[str, typer.Argument(help="The projection, e.g. character_sheets.")],
) -> None:
    """Build the next generation beside the live one; reads switch when it has caught up."""
    from infra.projector import admin
    from infra.projector.background import BackgroundProjector
    from infra.projector.runner import Projector
    from projections.catalog import by_name

    try:
        projection = by_name(name)
    except LookupError as error:
        raise typer.BadParameter(str(error), param_hint="NAME") from None
    runtime = start_runtime()
    helper: BackgroundProjector | None = None
    try:
        url, ledger = runtime.urls.service, runtime.ledger
        generation = admin.request_rebuild(url, projection, len(ledger.shards))
        if not admin.projector_running(url):  # nobody would build it: build it here
            helper = BackgroundProjector(Projector(url, ledger)).start()
        _follow(url, runtime.ledger, name, generation)
    finally:
        if helper is not None:
            helper.stop()
        runtime.close()
    console.print(f"{name}: reads now use generation {generation}")


@projections_app.command("retry")
def retry(
    name: Annotated[
        str | None, typer.Argument(help="The projection, e.g. character_sheets; all when left out.")
    ] = None,
    timeout: Annotated[
        float, typer.Option(min=1, max=3600, help="Seconds to wait for the projector.")
    ] = 120,
) -> None:
    """After a fix: apply the parked events again, in order, before their streams' later
    events. Exits 1 if some are still parked (they failed again: see `projections status`)."""
    from infra.projector import admin
    from infra.projector.background import BackgroundProjector
    from infra.projector.runner import Projector
    from projections.catalog import PROJECTIONS, by_name

    if name is not None:
        try:
            by_name(name)
        except LookupError as error:
            raise typer.BadParameter(str(error), param_hint="NAME") from None
    names = None if name is None else [name]
    runtime = start_runtime()
    helper: BackgroundProjector | None = None
    try:
        url = runtime.urls.service
        asked = admin.request_retry(url, names)
        if asked and not admin.projector_running(url):  # nobody would retry: do it here
            helper = BackgroundProjector(Projector(url, runtime.ledger)).start()
        deadline = time.monotonic() + timeout
        while asked and admin.retries_pending(url, names):
            if time.monotonic() > deadline:
                console.print("[red]the projector has not retried yet[/]: is it running?")
                raise typer.Exit(2)
            time.sleep(0.25)
        left = [
            s for s in admin.status(url, runtime.ledger, PROJECTIONS)
            if s.degraded and (name is None or s.projection == name)
        ]  # fmt: skip
    finally:
        if helper is not None:
            helper.stop()
        runtime.close()
    print(f"retried {asked} parked event(s); still parked: {sum(s.parked for s in left)}")
    for s in left:
        print(f"  {s.projection} g{s.generation} shard {s.shard} from {s.parked_at}: {s.reason}")
    if left:
        raise typer.Exit(1)


def _follow(url: str, ledger: Ledger, name: str, generation: int) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from infra.projector.admin import live_generation, status
    from projections.catalog import PROJECTIONS

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task(f"{name} g{generation}", total=None)
        while live_generation(url, name) != generation:
            mine = [
                s for s in status(url, ledger, PROJECTIONS)
                if s.projection == name and s.generation == generation
            ]  # fmt: skip
            if mine:
                bar.update(
                    task,
                    completed=sum(s.position for s in mine),
                    total=max(sum(s.position if s.head is None else s.head for s in mine), 1),
                )
            time.sleep(0.25)
        bar.update(task, completed=bar.tasks[0].total or 0)


standalone = typer.Typer(no_args_is_help=True, add_completion=False, help="Senki read side.")
standalone.command("project")(project)
standalone.add_typer(projections_app, name="projections")

if __name__ == "__main__":  # `python -m infra.cli.projections …` until cli.py registers these
    standalone()
