"""The `senki` command: serve, migrate, verify, configure and roll dice from a terminal."""

from __future__ import annotations

import json
import logging
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from infra import log_redaction
from infra.cli import options as cli_options
from infra.cli import out
from infra.cli.audit import audit, export
from infra.cli.dice import dice_app
from infra.cli.errors import explain
from infra.cli.move import campaigns_app
from infra.cli.projections import project, projections_app
from infra.postgres.termination import install_termination_handlers

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry
    from pydantic import ValidationError

    from infra.settings import Settings

# Only typer, rich and the command modules at import time: pydantic, psycopg, FastAPI and the
# rules are imported by the commands that use them, so `senki --help` starts in a blink
# (tests/integration/test_cli_startup.py keeps it so; docs/capacity.md has the figures).

# Plain click output for usage errors and help: an error's advice (a receipt's format, a
# range) must stay one unwrapped line a user can read and copy, never a panel cut at 80 columns.
app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    help="Senki (戦記) campaign ledger.",
)
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
app.add_typer(db_app, name="db")
app.add_typer(dice_app, name="dice")
app.add_typer(campaigns_app, name="campaigns")
app.add_typer(projections_app, name="projections")
app.command("project")(project)
app.command()(audit)
app.command()(export)
console = out.console()
# soft_wrap: an error is one line however narrow the terminal, so its advice can be copied whole.
errors = out.console(stderr=True, soft_wrap=True)


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Listen address (default: SENKI_HOST).", callback=cli_options.host),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, help="Listen port (default: SENKI_PORT)."),
    ] = None,
    graceful_timeout: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=600,
            help="Seconds a SIGTERM waits for open requests before cancelling them "
            "(open event streams end at once) (default: SENKI_GRACEFUL_TIMEOUT).",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Server processes sharing the one listening port (on the embedded default "
            "this process starts PostgreSQL once and projects the read models; each worker "
            "serves requests and streams).",
        ),
    ] = 1,
) -> None:
    """Run the HTTP API (on the embedded PostgreSQL unless SENKI_DATABASE_URL is set)."""
    from api.app import create_app
    from infra import bootstrap, gc_tuning
    from infra.cli import http_server
    from infra.settings import Settings

    # The address listened on is part of the settings: what is open to anyone follows it.
    settings = Settings()
    settings = settings.model_copy(
        update={"host": host or settings.host, "port": port or settings.port}
    )
    timeout = settings.graceful_timeout if graceful_timeout is None else graceful_timeout
    if workers > 1:
        from infra.cli.workers import serve_workers

        where = (
            "embedded PostgreSQL in " + str(settings.data_dir) if settings.embedded else "external"
        )
        console.print(f"[bold]Senki[/] {workers} workers on {where}")
        _print_addresses(host or settings.host, port or settings.port)
        serve_workers(settings, workers, timeout, say=console.print)
        return
    gc_tuning.tune()
    runtime = bootstrap.start(settings)
    if settings.embedded:  # one machine: the read models are projected inside `serve`
        runtime.start_projector()
    where = "embedded PostgreSQL in " + str(settings.data_dir) if settings.embedded else "external"
    console.print(f"[bold]Senki[/] {runtime.version} on {where}")
    _print_addresses(host or settings.host, port or settings.port)
    application = create_app(
        lambda: runtime,
        lambda _: runtime.close(),
        cors_origins=settings.cors_origins,
        metrics_route=settings.metrics_port is None,
    )
    if settings.metrics_port is not None:
        _serve_metrics(application.state.metrics_registry, settings.host, settings)
    http_server.serve(
        application,
        settings,
        on_shutdown=runtime.shutting_down.set,
        graceful_timeout=timeout,
    )


def _print_addresses(host: str, port: int) -> None:
    """Where a person goes next: the table page to play, the API's documentation to build."""
    from infra.demo.table import default_url

    base = default_url(host, port)
    console.print(f"table page  {base}/table", soft_wrap=True)
    console.print(f"API docs    {base}/docs  (the API itself under {base}/v1)", soft_wrap=True)


def _serve_metrics(registry: CollectorRegistry, host: str, settings: Settings) -> None:
    """/metrics on a port of its own (a daemon thread), for a NetworkPolicy to fence off."""
    from prometheus_client import start_http_server

    assert settings.metrics_port is not None
    start_http_server(settings.metrics_port, addr=host, registry=registry)
    console.print(f"metrics on http://{host}:{settings.metrics_port}/metrics")


@db_app.command("migrate")
def db_migrate() -> None:
    """Create every table, trigger and grant (as the owning role), on the home database and on
    every shard's cluster (SENKI_SHARD_MIGRATION_URLS). Safe to run again."""
    from infra.postgres.database import Database
    from infra.settings import Settings
    from infra.store.migrate import migrate

    settings = Settings()
    with Database(settings) as urls:
        version = migrate(
            urls.owner,
            app_role=settings.app_role,
            shards=settings.shard_count(),
            shard_owner_urls=urls.shard_owners,
        )
    where = f" and {len(set(urls.shard_owners))} shard cluster(s)" if urls.shard_owners else ""
    console.print(
        f"schema at version {version} on the home database{where}; "
        f"service role {settings.app_role!r} granted"
    )


@app.command()
def verify(
    expect_head: Annotated[
        list[str] | None,
        typer.Option(
            help="A receipt SHARD:POSITION:HASH kept earlier; fails if it no longer holds.",
            callback=cli_options.receipts,
        ),
    ] = None,
    bundle: Annotated[
        Path | None,
        typer.Option(
            help="Check an audit bundle from `senki export`, offline (no database).",
            exists=True,
            dir_okay=False,
            readable=True,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the findings as JSON (not with --bundle).")
    ] = False,
    vkey: Annotated[
        str | None,
        typer.Option(
            help="With --bundle: the log's verifier key, to check its checkpoint's "
            "signature (GET /v1/log/key)."
        ),
    ] = None,
) -> None:
    """Recompute the hash chain of every shard, check every snapshot and what points past each
    log's end, and the dice of revealed encounters; exit 1 naming the first bad position.
    A shard whose own cluster does not answer is named and not verified: exit 3 when nothing
    else failed. With --bundle: check an exported audit bundle offline."""
    if bundle is not None:
        from infra.cli.audit import run_verify_bundle

        if as_json:
            errors.print("[red]error:[/] --json reports on the database; drop it with --bundle")
            raise typer.Exit(2)
        raise typer.Exit(run_verify_bundle(bundle, console, vkey))
    from infra.settings import Settings
    from infra.store.verify import run_verify

    raise typer.Exit(run_verify(Settings(), console, expect_head or [], as_json=as_json))


class DemoRuleset(StrEnum):
    """The demos: Glorious Drive, the Wizardry-style round, Armor Knights."""

    gd = "gd"
    wz = "wz"
    ak = "ak"


@app.command()
def demo(
    url: Annotated[
        str | None,
        typer.Option(
            help="The running Senki API [default: http://SENKI_HOST:SENKI_PORT, as serve uses]",
            callback=cli_options.http_url,
        ),
    ] = None,
    ruleset: Annotated[
        DemoRuleset,
        typer.Option(help="gd: Glorious Drive, wz: Wizardry-style round, ak: Armor Knights."),
    ] = DemoRuleset.gd,
) -> None:
    """Play a short scripted fight through the HTTP API and show its rulings and dice."""
    import httpx

    from infra.demo import default_url, run_demo
    from infra.settings import Settings

    settings = Settings()
    if url is None:
        url = default_url(settings.host, settings.port)
    # Opening the demo's campaign needs the operator token where the server has one (the
    # campaign's own tokens then act for everything else).
    operator = settings.operator_token
    headers = {"Authorization": f"Bearer {operator.get_secret_value()}"} if operator else {}
    try:
        with httpx.Client(base_url=url, timeout=30, headers=headers) as http:
            verified = run_demo(http, console, ruleset.value)
    except httpx.ConnectError:
        errors.print(f"[red]error:[/] no Senki at {url}: start it with `senki serve` first")
        raise typer.Exit(3) from None
    raise typer.Exit(0 if verified else 1)


@app.command()
def witness(
    base_url: Annotated[str, typer.Argument(help="The Senki API, e.g. https://senki.example.org")],
    state: Annotated[
        Path, typer.Option(help="Where this witness keeps each shard's last checkpoint.")
    ],
    vkey: Annotated[
        str | None,
        typer.Option(help="The log's verifier key (GET /v1/log/key); else trusted on first use."),
    ] = None,
    delay: Annotated[
        float, typer.Option(help="Seconds a checkpoint may lag the log's head (signing delay).")
    ] = 1.0,
) -> None:
    """Check that each shard's log still extends the checkpoint kept from the last run (its
    signature, a consistency proof), and keep the new one: exit 1 with the evidence when it
    does not or will not prove it, 3 when the service cannot be reached (docs/witnesses.md)."""
    import httpx

    from infra.cli.witness import run_witness

    with httpx.Client(base_url=base_url, timeout=30) as http:
        code = run_witness(http, state, vkey, typer.echo, delay)
    raise typer.Exit(code)


@app.command()
def config() -> None:
    """Print the effective settings, secrets masked."""
    from rich.table import Table

    from infra.settings import Settings

    table = Table("setting", "value", title="Effective settings (SENKI_* variables)")
    for name, value in Settings().masked().items():
        table.add_row(name, "(not set)" if value is None else str(value))
    console.print(table)


def main() -> None:
    """Entry point: one clear line and a non-zero exit for every expected failure."""
    # With SENKI_LOG_LEVEL=debug an unexpected error's traceback is logged for a bug report.
    level = os.environ.get("SENKI_LOG_LEVEL", "warning").upper()
    logging.basicConfig(level=level if level in logging.getLevelNamesMapping() else "WARNING")
    log_redaction.install()  # no token secret in any line this process logs
    # SIGTERM/SIGHUP become a clean exit, so an embedded server this process uses is released.
    install_termination_handlers()
    try:
        # Without standalone mode click *returns* a command's exit code (typer.Exit) rather
        # than exiting with it: pass it on, or a failed `senki verify` would exit 0.
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    except Exception as error:  # every failure: explained, never a traceback
        from pydantic import ValidationError

        if isinstance(error, ValidationError):
            errors.print(f"[red]error:[/] bad settings: {_settings_problem(error)}")
            sys.exit(2)
        message, code = explain(error)
        errors.print(f"[red]error:[/] {message}")
        sys.exit(code)


def _settings_problem(error: ValidationError) -> str:
    parts = []
    for problem in error.errors():
        field = ".".join(str(p) for p in problem["loc"])
        variable = f"SENKI_{field.upper()}" if field else "settings"
        parts.append(f"{variable}: {problem['msg']}")
    return "; ".join(parts)


def print_json(data: object) -> None:
    console.print_json(json.dumps(data, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
