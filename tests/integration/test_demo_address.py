"""Issue 19 item 6: `senki demo` finds the server where `senki serve` listens (SENKI_HOST,
SENKI_PORT), not always at 127.0.0.1:8000."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from infra.cli.main import app
from infra.demo import default_url


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again on leaving: nothing listens there


def test_senki_demo_goes_to_SENKI_HOST_and_SENKI_PORT(monkeypatch: pytest.MonkeyPatch) -> None:
    port = _closed_port()
    monkeypatch.setenv("SENKI_HOST", "127.0.0.1")
    monkeypatch.setenv("SENKI_PORT", str(port))
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 3, result.output
    assert f"no Senki at http://127.0.0.1:{port}" in result.output


def test_an_explicit_url_wins_over_SENKI_PORT(monkeypatch: pytest.MonkeyPatch) -> None:
    port = _closed_port()
    monkeypatch.setenv("SENKI_PORT", "8000")
    result = CliRunner().invoke(app, ["demo", "--url", f"http://127.0.0.1:{port}"])
    assert f"no Senki at http://127.0.0.1:{port}" in result.output


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8123"),
        ("0.0.0.0", "http://127.0.0.1:8123"),
        ("::", "http://[::1]:8123"),
        ("table.local", "http://table.local:8123"),
    ],
)
def test_a_wildcard_listen_address_is_reached_on_loopback(host: str, url: str) -> None:
    assert default_url(host, 8123) == url
