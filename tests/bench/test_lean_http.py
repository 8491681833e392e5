"""The load generator's client reads what the server sends, over one kept-alive connection, and
refuses what it cannot read instead of misreading it (bench/lean_http.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from bench.lean_http import Connection, ResponseNotUnderstood

Answer = Callable[[bytes], bytes]  # the request's head and body → the raw response


def _served(answer: Answer, client: Callable[[str], Awaitable[object]]) -> tuple[object, int]:
    """Run `client` against a loopback server answering each request with `answer`; the
    client's result and how many connections the server saw."""
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                writer.write(answer(head + await reader.readexactly(length)))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def main() -> object:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            return await client(f"http://127.0.0.1:{port}")

    result = asyncio.run(main())
    return result, connections


def _json(status: str, body: object) -> bytes:
    data = json.dumps(body).encode()
    return f"HTTP/1.1 {status}\r\ncontent-length: {len(data)}\r\n\r\n".encode() + data


def test_requests_go_one_after_the_other_on_one_kept_alive_connection() -> None:
    # given a server that echoes each request's method, path, headers and body
    def echo(request: bytes) -> bytes:
        head, _, body = request.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        return _json("200 OK", {"line": lines[0], "headers": headers, "body": body.decode()})

    # when a client sends a GET and then a POST with a JSON body on one connection
    async def client(base: str) -> object:
        http = Connection(base, {"Authorization": "Bearer t"})
        first = await http.get("/v1/x")
        second = await http.post("/v1/y", {"command": "Dodge"}, headers={"If-Match": '"3"'})
        await http.close()
        return first.json(), second.status, second.json()

    (first, status, second), connections = _served(echo, client)  # type: ignore[misc]

    # then both were read whole, with the fixed and per-call headers, on one connection
    assert first["line"] == "GET /v1/x HTTP/1.1"
    assert first["headers"]["Authorization"] == "Bearer t"
    assert first["headers"]["Content-Length"] == "0"
    assert status == 200
    assert second["line"] == "POST /v1/y HTTP/1.1"
    assert second["headers"]["If-Match"] == '"3"'
    assert second["headers"]["Content-Type"] == "application/json"
    assert json.loads(second["body"]) == {"command": "Dodge"}
    assert connections == 1


def test_a_refusal_is_a_status_and_its_body_not_an_exception() -> None:
    # given a server that refuses every command
    def refuse(_: bytes) -> bytes:
        return _json("412 Precondition Failed", {"detail": "stale"})

    # when a client posts one
    async def client(base: str) -> object:
        answer = await Connection(base).post("/v1/c", {})
        return answer.status, answer.json()

    # then it sees the status and the body
    assert _served(refuse, client)[0] == (412, {"detail": "stale"})


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n", "chunked"),
        (b"HTTP/1.1 204 No Content\r\nx: y\r\n\r\n", "without Content-Length"),
        (b"garbage\r\n\r\n", "not an HTTP status line"),
    ],
)
def test_a_response_it_cannot_frame_is_refused_by_name(raw: bytes, named: str) -> None:
    # given a server whose answer is not framed by Content-Length
    # when a client reads it, then it stops with what it could not read
    async def client(base: str) -> object:
        return await Connection(base).get("/")

    with pytest.raises(ResponseNotUnderstood, match=named):
        _served(lambda _: raw, client)


def test_a_server_that_closes_is_reconnected_to_for_the_next_request() -> None:
    # given a server that closes the connection after each answer
    def once(_: bytes) -> bytes:
        return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"

    # when a client sends two requests
    async def client(base: str) -> object:
        http = Connection(base)
        statuses = [(await http.get("/a")).status, (await http.get("/b")).status]
        await http.close()
        return statuses

    # then each was answered, on a connection of its own
    assert _served(once, client) == ([200, 200], 2)


@pytest.mark.parametrize(
    ("raw", "timeout", "named"),
    [
        (b"", 0.2, "no answer to GET / within 0.2 s"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", 0.2, "no answer"),
    ],
)
def test_a_silent_server_stops_the_client_after_its_timeout(
    raw: bytes, timeout: float, named: str
) -> None:
    # given a server that sends nothing, or less than it announced, and keeps the connection
    # when a client asks, then it gives up after its timeout, saying so
    async def client(base: str) -> object:
        return await Connection(base, timeout=timeout).get("/")

    with pytest.raises(ResponseNotUnderstood, match=named):
        _served(lambda _: raw, client)


def test_a_server_that_hangs_up_mid_answer_is_named() -> None:
    # given a server that announces ten bytes, sends two and closes
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}")
        await writer.drain()
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            await Connection(f"http://127.0.0.1:{port}").get("/")

    # when a client reads it, then it stops, saying the server hung up
    with pytest.raises(ResponseNotUnderstood, match="hung up in the middle"):
        asyncio.run(main())


def test_only_plain_http_urls_are_taken() -> None:
    with pytest.raises(ValueError, match="http:// URL"):
        Connection("https://example.org")
