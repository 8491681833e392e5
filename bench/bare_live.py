"""The reference server of the table-load benchmark (bench/table_load.py): what a live table
costs with nothing of Senki in it.

A command is one INSERT of its body and one NOTIFY in one transaction, answered with the new
row's number; a stream is Server-Sent Events fed by the process's one LISTEN, fanned out to
the streams of that table (as api/live.py does for Senki). Run as
`uvicorn bench.bare_live:app --workers N` with BARE_LIVE_DATABASE_URL set (an owner URL: it
creates its one table).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from psycopg_pool import AsyncConnectionPool

CHANNEL = "bare_live"
_followers: dict[str, set[asyncio.Queue[str]]] = {}


async def _listen(url: str) -> None:
    """The process's one LISTEN: each NOTIFY ("table seq") goes to that table's streams."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(f"LISTEN {CHANNEL}")
        async for note in conn.notifies():
            table, _, seq = note.payload.partition(" ")
            for queue in _followers.get(table, ()):
                queue.put_nowait(seq)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    url = os.environ["BARE_LIVE_DATABASE_URL"]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS bare_events "
            "(seq bigserial PRIMARY KEY, table_id text NOT NULL, body jsonb NOT NULL)"
        )
    pool = AsyncConnectionPool(url, min_size=8, max_size=8, open=False)
    await pool.open()
    app.state.pool = pool
    listener = asyncio.create_task(_listen(url))
    try:
        yield
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener
        await pool.close()


app = FastAPI(lifespan=_lifespan)


@app.get("/ready")
def ready() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/tables/{table}/commands")
async def command(table: str, body: dict[str, Any], request: Request) -> dict[str, int]:
    pool: AsyncConnectionPool = request.app.state.pool
    async with pool.connection() as conn, conn.transaction():
        row = await (
            await conn.execute(
                "INSERT INTO bare_events (table_id, body) VALUES (%s, %s) RETURNING seq",
                (table, json.dumps(body)),
            )
        ).fetchone()
        assert row is not None
        await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table} {row[0]}"))
    return {"version": int(row[0])}


@app.get("/tables/{table}/stream")
async def stream(table: str, request: Request) -> StreamingResponse:
    queue: asyncio.Queue[str] = asyncio.Queue()
    _followers.setdefault(table, set()).add(queue)

    async def frames() -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n"
            while True:
                seq = await queue.get()
                yield f"id: {seq}\nevent: bare\ndata: {{}}\n\n"
        finally:
            _followers[table].discard(queue)

    return StreamingResponse(frames(), media_type="text/event-stream")
