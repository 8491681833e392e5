"""Issue 19 item 6: `senki audit` reads well at 80 columns, and a roll's comment shows."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
import typer
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from infra.cli.audit import audit, print_ruling
from infra.services.audit import (
    AuditEntry,
    AuditService,
    DieAudit,
    RollAudit,
    RuleCited,
    SeedPassage,
)
from infra.services.runtime import Runtime
from tests.integration.test_audit import runtime, small_fight
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY

__all__ = ["runtime"]  # the fixture, shared with test_audit

pytestmark = pytest.mark.postgres


def test_senki_audit_at_80_columns_keeps_every_line_within_them_and_each_rule_whole(
    runtime: Runtime, app_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fight = small_fight(runtime)
    for name, value in {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        "SENKI_SHARDS": str(shard_count()),
        "COLUMNS": "80",
    }.items():
        monkeypatch.setenv(name, value)
    app = typer.Typer()
    app.command()(audit)
    app.command("unused")(lambda: None)

    result = CliRunner().invoke(app, ["audit", str(fight)], terminal_width=80)

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(cell_len(line.rstrip()) for line in lines) <= 80
    trail = AuditService(runtime.ledger, runtime.executor).trail(fight)
    for entry in trail:  # each ruling's heading, its summary and its rule IDs, unbroken
        assert any(line.startswith(f"v{entry.version} ") for line in lines)
        assert any(entry.summary_en[:40] in line for line in lines), entry.summary_en
        for rule in entry.rules:
            assert any(line.startswith("rule") and rule.rule_id in line for line in lines)
    dodge = next(line for line in lines if line.startswith("dice") and "by hand" in line)
    assert "50/d100" in dodge


def test_a_rolls_comment_shows_beside_its_notation_and_result() -> None:
    roll = RollAudit(
        roll_seq=3,
        version=9,
        expression="1D6>=5",
        comment="回避",
        purpose="table roll",
        text="(1D6>=5) ＞ 5 ＞ 成功",
        source="server",
        client_seed=None,
        dice=[DieAudit(roll_seq=3, die_index=0, sides=6, face=5, source="server", recomputes=True)],
        problems=[],
    )
    entry = AuditEntry(
        version=9,
        position=None,
        at=datetime(2026, 1, 1, tzinfo=UTC),
        by="gm",
        rules=[
            RuleCited(
                rule_id="GD-REACT-1",
                text=None,
                anchor="",
                ja_source=SeedPassage(text=None, source="none"),
            )
        ],
        inputs={},
        outcome={},
        summary_en="dodged",
        summary_ja="回避成功",
        dice=[roll],
        options={},
        options_in_force={},
        disputes=[],
        command=None,
    )
    out = io.StringIO()
    print_ruling(Console(file=out, width=80, color_system=None), entry)
    assert "#3 1D6>=5 回避: (1D6>=5) ＞ 5 ＞ 成功 · 5/d6✓" in out.getvalue()
