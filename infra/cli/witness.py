"""`senki witness BASE_URL --state FILE`: keep each shard's last checkpoint, and demand proof
that every newer one extends it (issue 37, docs/witnesses.md).

Only the public API is used: the keys, the checkpoints, the consistency proofs and the head.
Exit 0 when every shard's log is an extension of what was kept; 1 with the evidence when it is
not, or when the log refuses to prove it; 3 when the service cannot be reached.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from infra.store.merkle import verify_consistency
from infra.store.note import Checkpoint, NoteRefused, Verifier, open_checkpoint, parse_vkey

OK, FAILED, UNREACHABLE = 0, 1, 3


class Caught(Exception):
    """The log did something no honest log does; the message is the evidence."""


class Unreachable(Exception):
    """The service did not answer (or answered that its database is down)."""


@dataclass
class WitnessState:
    """What the witness keeps between runs: the verifier key and each shard's checkpoint."""

    vkey: str | None = None
    checkpoints: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> WitnessState:
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data.get("vkey"), dict(data.get("checkpoints", {})))

    def save(self, path: Path) -> None:
        data = {"vkey": self.vkey, "checkpoints": self.checkpoints}
        temporary = path.with_suffix(path.suffix + ".tmp")
        temporary.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
        temporary.replace(path)


def _get(http: httpx.Client, path: str) -> httpx.Response:
    try:
        response = http.get(path)
    except httpx.HTTPError as error:
        raise Unreachable(f"GET {path}: {error}") from error
    disagrees = response.headers.get("content-type", "").startswith("application/problem+json")
    if response.status_code >= 500 and not (disagrees and "log-tree" in response.text):
        raise Unreachable(f"GET {path}: HTTP {response.status_code}")
    return response


def _checkpoint(http: httpx.Client, shard: int, verifier: Verifier) -> tuple[str, Checkpoint]:
    response = _get(http, f"/v1/log/{shard}/checkpoint")
    if response.status_code != 200:
        raise Caught(
            f"shard {shard}: the log refuses to give a checkpoint "
            f"(HTTP {response.status_code}): {response.text}"
        )
    try:
        return response.text, open_checkpoint(response.text, [verifier])
    except NoteRefused as error:
        raise Caught(
            f"shard {shard}: the checkpoint does not verify with {verifier.vkey}: {error}\n"
            f"--- checkpoint served ---\n{response.text}"
        ) from error


def _extends(
    http: httpx.Client, shard: int, kept: tuple[str, Checkpoint], new: tuple[str, Checkpoint]
) -> None:
    (old_note, old), (new_note, latest) = kept, new
    both = f"--- kept ---\n{old_note}--- served ---\n{new_note}"
    if latest.origin != old.origin:
        raise Caught(f"shard {shard}: the origin changed from {old.origin!r}\n{both}")
    if latest.size < old.size:
        raise Caught(
            f"shard {shard}: the tree shrank from {old.size} to {latest.size} leaves: "
            f"events were removed\n{both}"
        )
    path = f"/v1/log/{shard}/consistency?first={old.size}&second={latest.size}"
    response = _get(http, path)
    if response.status_code != 200:
        raise Caught(
            f"shard {shard}: the log refuses to prove that {latest.size} leaves extend the "
            f"{old.size} kept (HTTP {response.status_code}): {response.text}\n{both}"
        )
    hashes = [base64.b64decode(h) for h in response.json()["hashes"]]
    if not verify_consistency(old.size, latest.size, old.root, latest.root, hashes):
        raise Caught(
            f"shard {shard}: the consistency proof from {old.size} to {latest.size} leaves "
            f"fails: the log was rewritten\n{both}--- proof ---\n"
            + "\n".join(base64.b64encode(h).decode() for h in hashes)
        )


def _head_size(http: httpx.Client, shard: int) -> int | None:
    heads: list[dict[str, Any]] = _get(http, "/v1/log/head").json()["heads"]
    size = next((h.get("tree_size") for h in heads if h["shard"] == shard), None)
    return size if isinstance(size, int) else None


def witness_shard(
    http: httpx.Client,
    shard: int,
    verifier: Verifier,
    kept_note: str | None,
    *,
    delay: float,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """The newest checkpoint of `shard`, once proved an extension of `kept_note`."""
    kept = None if kept_note is None else (kept_note, open_checkpoint(kept_note, [verifier]))
    served = _checkpoint(http, shard, verifier)
    if kept is not None:
        _extends(http, shard, kept, served)
    head = _head_size(http, shard)
    if head is not None and head > served[1].size:
        sleep(delay)  # a checkpoint may lag the head by the signing delay, no more
        later = _checkpoint(http, shard, verifier)
        _extends(http, shard, served, later)
        if later[1].size < head:
            raise Caught(
                f"shard {shard}: the log holds {head} events, but {delay:g} s later its "
                f"checkpoint still covers {later[1].size}: it stopped signing\n{later[0]}"
            )
        served = later
    return served[0]


def run_witness(
    http: httpx.Client,
    state_path: Path,
    vkey: str | None,
    echo: Callable[[str], None],
    delay: float = 1.0,
) -> int:
    """One witness run over every shard; the exit code (0, 1 caught, 3 unreachable)."""
    state = WitnessState.load(state_path)
    try:
        keys = _get(http, "/v1/log/key").json()
        trusted = vkey or state.vkey or keys["vkeys"][-1]  # given, kept, or trusted on first use
        verifier = parse_vkey(trusted)
        state.vkey = trusted
        failed = False
        for shard, origin in enumerate(keys["origins"]):
            try:
                kept = state.checkpoints.get(str(shard))
                note = witness_shard(http, shard, verifier, kept, delay=delay)
            except Caught as caught:
                echo(f"FAIL {caught}")
                failed = True
                continue
            state.checkpoints[str(shard)] = note
            size = note.split("\n")[1]
            echo(f"ok   shard {shard} ({origin}): {size} leaves, consistent with what was kept")
    except Unreachable as error:
        echo(f"UNREACHABLE {error}")
        return UNREACHABLE
    except NoteRefused as error:
        echo(f"FAIL the verifier key: {error}")
        return FAILED
    state.save(state_path)
    return FAILED if failed else OK
