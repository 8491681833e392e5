"""The load generator's HTTP client: one keep-alive HTTP/1.1 connection per simulated client.

Why not httpx (the tests' client) or aiohttp: on this two-core machine the generator shares the
CPU with the server it measures, so its own cost per request decides what the figures show.
Measured against bench/bare.py under 32 clients for 5 s (2026-12-05): httpx's AsyncClient
2.22 ms of generator CPU a request (the generator, at one core, was the limit of every run);
aiohttp 0.172 ms (0.42 cores at 2,423/s); this client 0.065 ms (0.20 cores at 3,075/s, the
bare server the limit), 0.071 ms with its per-request timeout (0.26 cores at 3,593/s).

It speaks only what the benchmarks need: a request with an optional JSON body, and a response
framed by Content-Length (uvicorn frames every JSON answer so); anything else is refused by
name rather than misread, as is a server that does not answer within the timeout or closes
the connection mid-answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


class ResponseNotUnderstood(RuntimeError):
    """A response this client does not read (no Content-Length, say), or none at all (the
    server was silent for the timeout, or hung up): the benchmark stops, saying which."""


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to `base` (scheme, host and port; paths are given per call).
    Requests on it go one after the other, as one client's do."""

    def __init__(
        self, base: str, headers: dict[str, str] | None = None, *, timeout: float = 30.0
    ) -> None:
        parts = urlsplit(base)
        if parts.scheme != "http" or parts.hostname is None:
            raise ValueError(f"an http:// URL with a host is needed, not {base!r}")
        self.host, self.port = parts.hostname, parts.port or 80
        # Sent with every request; the Host header as HTTP/1.1 requires.
        fixed = {"Host": f"{self.host}:{self.port}"} | (headers or {})
        self._fixed = "".join(f"{name}: {value}\r\n" for name, value in fixed.items())
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.timeout = timeout

    async def request(
        self,
        method: str,
        path: str,
        *,
        json_body: object = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        reader, writer = await self._open()
        body = b"" if json_body is None else json.dumps(json_body).encode()
        head = f"{method} {path} HTTP/1.1\r\n{self._fixed}"
        for name, value in (headers or {}).items():
            head += f"{name}: {value}\r\n"
        if json_body is not None:
            head += "Content-Type: application/json\r\n"
        writer.write(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
        try:
            async with asyncio.timeout(self.timeout):
                status, length, closes = _head(await reader.readuntil(b"\r\n\r\n"))
                answer = Response(status, await reader.readexactly(length))
        except TimeoutError:
            await self.close()
            raise ResponseNotUnderstood(
                f"no answer to {method} {path} within {self.timeout} s"
            ) from None
        except (asyncio.IncompleteReadError, ConnectionError):
            await self.close()
            raise ResponseNotUnderstood(
                f"the server hung up in the middle of its answer to {method} {path}"
            ) from None
        if closes:
            await self.close()
        return answer

    async def get(self, path: str, *, headers: dict[str, str] | None = None) -> Response:
        return await self.request("GET", path, headers=headers)

    async def post(
        self, path: str, json_body: object, *, headers: dict[str, str] | None = None
    ) -> Response:
        return await self.request("POST", path, json_body=json_body, headers=headers)

    async def close(self) -> None:
        if self._streams is not None:
            _, writer = self._streams
            self._streams = None
            writer.close()
            with contextlib.suppress(ConnectionError):  # already reset by the server
                await writer.wait_closed()

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self.host, self.port)
        return self._streams


def _head(raw: bytes) -> tuple[int, int, bool]:
    """(status, Content-Length, whether the server closes the connection) of a response head."""
    status_line, *fields = raw[:-4].split(b"\r\n")
    try:
        status = int(status_line.split(b" ", 2)[1])
    except (IndexError, ValueError):
        raise ResponseNotUnderstood(f"not an HTTP status line: {status_line[:80]!r}") from None
    length: int | None = None
    closes = False
    for field in fields:
        name, _, value = field.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            raise ResponseNotUnderstood(f"a {value.strip().decode()} body: not read here")
        elif name == b"connection" and value.strip().lower() == b"close":
            closes = True
    if length is None:
        raise ResponseNotUnderstood(f"a {status} response without Content-Length")
    return status, length, closes
