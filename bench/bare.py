"""The reference for the API benchmark: a bare FastAPI endpoint that returns a constant."""

from __future__ import annotations

from fastapi import FastAPI

app = FastAPI()


@app.get("/constant")
def constant() -> dict[str, str]:
    return {"status": "ok"}
