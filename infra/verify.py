"""`senki verify`: the hash chain of every shard, and receipts kept by the table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from infra import bootstrap
from infra.settings import Settings
from infra.store.ledger import Ledger


def run_verify(settings: Settings, console: Console, receipts: list[str]) -> int:
    """Print what was checked; return 0 when everything holds, 1 otherwise."""
    runtime = bootstrap.start(settings)
    try:
        return _report(runtime.ledger, console, receipts)
    finally:
        runtime.close()


def _report(ledger: Ledger, console: Console, receipts: list[str]) -> int:
    table = Table("shard", "events", "head position", "head hash", "result", title="Hash chain")
    failed = False
    for index in range(len(ledger.shards)):
        report = ledger.verify(shard=index)
        first = report.first_break
        result = "[green]intact[/]" if first is None else f"[red]broken at {first.position}[/]"
        table.add_row(
            str(index),
            str(report.checked),
            str(report.head_position),
            report.head_hash.hex(),
            result,
        )
        if first is not None:
            failed = True
            console.print(f"[red]shard {index}, position {first.position}:[/] {first.reason}")
    console.print(table)
    from infra.cli_audit import print_revealed_dice

    failed |= not print_revealed_dice(ledger, console)
    for receipt in receipts:
        failed |= not _check_receipt(ledger, console, receipt)
    return 1 if failed else 0


def _check_receipt(ledger: Ledger, console: Console, receipt: str) -> bool:
    try:
        shard_text, position_text, expected = receipt.split(":")
        shard, position = int(shard_text), int(position_text)
    except ValueError:
        console.print(f"[red]receipt {receipt!r}:[/] write it as SHARD:POSITION:HASH")
        return False
    report = ledger.verify(shard=shard)
    if report.head_position < position:
        console.print(
            f"[red]receipt {receipt}:[/] the log ends at {report.head_position}; "
            f"events up to {position} were removed"
        )
        return False
    found = ledger.link_at(position, shard=shard)
    if found != expected:
        console.print(f"[red]receipt {receipt}:[/] position {position} is now linked as {found}")
        return False
    console.print(f"[green]receipt {receipt} holds[/]")
    return True
