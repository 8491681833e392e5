"""Checks for the `senki` command's options: a bad value is refused before anything runs.

Each one raises click's BadParameter, which `senki` prints as one line naming the option,
with exit code 2 (infra/cli/errors.py): never a traceback from deep inside uvicorn, httpx or the
ledger, and never a database opened for a command that could not have run anyway.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from urllib.parse import urlsplit

import typer

MAX_SHARD = 63  # SENKI_SHARDS is at most 64 (infra/settings.py)
_HOSTNAME_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_RECEIPT = re.compile(r"(\d{1,2}):(\d{1,19}):([0-9A-Fa-f]{64})")
_TEXT_LIMIT = 200  # as the API's limits on the same fields (api/routes/rolls.py)


def host(value: str | None) -> str | None:
    """A listen address: an IP address or a host name (RFC 1123)."""
    if value is None:
        return None
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    labels = value.removesuffix(".").split(".")
    if len(value) <= 253 and all(_HOSTNAME_LABEL.fullmatch(label) for label in labels):
        return value
    raise typer.BadParameter(f"{value!r} is neither an IP address nor a host name")


def http_url(value: str | None) -> str | None:
    """The base URL of a running Senki: http(s)://host[:port][/path] (None: the default)."""
    if value is None:
        return None
    try:
        parts = urlsplit(value)
        port = parts.port  # raises ValueError when out of range or not a number
    except ValueError as error:
        raise typer.BadParameter(f"{value!r} is not a URL: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        raise typer.BadParameter(
            f"{value!r} is not an http(s) URL; write it as http://HOST:PORT, e.g. "
            "http://127.0.0.1:8000"
        )
    return value


def receipts(values: list[str] | None) -> list[str] | None:
    """Receipts SHARD:POSITION:HASH as `senki verify` and GET /v1/log/head print them (the
    hash is the SHA-256 chain link, 64 hex digits; upper case is read as lower case)."""
    if values is None:
        return None
    checked = []
    for value in values:
        found = _RECEIPT.fullmatch(value.strip())
        if found is None:
            raise typer.BadParameter(
                f"{value!r} is not a receipt: write it as SHARD:POSITION:HASH, e.g. "
                "0:120:<64 hex digits>, as `senki verify` printed it"
            )
        shard, position, digest = found.groups()
        if int(shard) > MAX_SHARD:
            raise typer.BadParameter(f"{value!r}: there are at most {MAX_SHARD + 1} shards")
        if int(position) >= 2**63:
            raise typer.BadParameter(f"{value!r}: no log position is that large")
        checked.append(f"{int(shard)}:{int(position)}:{digest.lower()}")
    return checked


def output_file(value: Path | None) -> Path | None:
    """A file to write: not a directory, in a directory that exists."""
    if value is None:
        return None
    if value.is_dir():
        raise typer.BadParameter(f"{value} is a directory; name a file to write")
    if not value.absolute().parent.is_dir():
        raise typer.BadParameter(f"{value.parent} does not exist; create it first")
    return value


def short_text(value: str | None) -> str | None:
    """A free text recorded with the roll: at most as long as the API allows, no NUL."""
    if value is None:
        return None
    if len(value) > _TEXT_LIMIT:
        raise typer.BadParameter(f"at most {_TEXT_LIMIT} characters (this is {len(value)})")
    if "\x00" in value:
        raise typer.BadParameter("may not contain the NUL character")
    return value
