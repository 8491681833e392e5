"""The table page is a witness (issue 37): api/web/static/witness.js, run by node with the
WebCrypto a browser has, checks RFC 6962's reference proofs, the Go reference note's key, the
server's own checkpoints and proofs, and catches a rewritten log, a shrunk one, a forged
checkpoint and an event not in the log — keeping what it saw in the browser's storage."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from infra.store.merkle import Tree
from infra.store.note import Checkpoint, derive_signer
from tests.unit.witness.test_merkle import CONSISTENCY, INCLUSION, LEAVES, ROOTS
from tests.unit.witness.test_note import GO_VKEY, go_signer

NODE = shutil.which("node")
ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.requires("node")
ORIGIN = "senki.example/shard/0"


def page(cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    assert NODE is not None
    done = subprocess.run(
        [
            NODE,
            str(Path(__file__).with_name("page_witness.mjs")),
            str(ROOT / "api/web/static/witness.js"),
        ],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_the_page_checks_the_rfc_6962_reference_proofs() -> None:
    cases: dict[str, dict[str, Any]] = {}
    for index, size, proof in INCLUSION:
        common = {"kind": "inclusion", "index": index, "size": size, "proof": proof}
        cases[f"in {index}/{size}"] = common | {"leaf": LEAVES[index].hex(), "root": ROOTS[size]}
        cases[f"in {index}/{size} forged"] = common | {"leaf": "ff", "root": ROOTS[size]}
    for first, second, proof in CONSISTENCY:
        common = {"kind": "consistency", "first": first, "second": second, "proof": proof}
        cases[f"co {first}/{second}"] = common | {"old": ROOTS[first], "new": ROOTS[second]}
        cases[f"co {first}/{second} forged"] = common | {
            "old": ROOTS[0][::-1],
            "new": ROOTS[second],
        }
    found = page(cases)
    assert {k: v for k, v in found.items() if v != ("forged" not in k)} == {}


def signed(size: int, leaves: list[bytes], signer: Any = None) -> str:
    tree = Tree(leaves)
    checkpoint = Checkpoint(ORIGIN, size, tree.root(size))
    return (signer or go_signer()).sign(checkpoint.text)


def test_the_page_opens_checkpoints_signed_with_the_go_reference_key_and_refuses_others() -> None:
    leaves = [bytes([i]) * 32 for i in range(9)]
    note = signed(9, leaves)
    other = derive_signer(bytes(32), "PeterNeumann")
    found = page(
        {
            "real": {"kind": "open", "note": note, "vkey": GO_VKEY},
            "other key": {"kind": "open", "note": signed(9, leaves, other), "vkey": GO_VKEY},
            "edited": {"kind": "open", "note": note.replace("\n9\n", "\n8\n"), "vkey": GO_VKEY},
        }
    )
    root = base64.b64encode(Tree(leaves).root()).decode()
    assert found["real"] == {"ok": True, "value": [ORIGIN, 9, root]}
    assert "no signature by" in found["other key"]["error"]
    assert "forged" in found["edited"]["error"]


def answers(tree: Tree, first: int, second: int, note: str) -> dict[str, Any]:
    proof = [base64.b64encode(h).decode() for h in tree.consistency(first, second)]
    return {
        "/v1/log/key": {"vkeys": [GO_VKEY], "origins": [ORIGIN]},
        "/v1/log/0/checkpoint": note,
        f"/v1/log/0/consistency?first={first}&second={second}": {"hashes": proof},
    }


def kept(note: str) -> dict[str, str]:
    state = {"vkey": GO_VKEY, "since": "2026-12-07T00:00:00Z", "checkpoints": {"0": note}}
    return {"senki.witness": json.dumps(state)}


def test_the_page_follows_an_honest_log_and_says_since_when() -> None:
    leaves = [bytes([i]) * 32 for i in range(20)]
    tree = Tree(leaves)
    found = page(
        {
            "honest": {
                "kind": "page",
                "answers": answers(tree, 7, 20, signed(20, leaves)),
                "storage": kept(signed(7, leaves)),
            }
        }
    )["honest"]
    assert found["ok"], found
    assert found["since"] == "2026-12-07T00:00:00Z"
    assert json.loads(found["storage"]["senki.witness"])["checkpoints"]["0"] == signed(20, leaves)


def test_the_page_catches_a_rewritten_log_a_shrunk_one_and_an_event_not_in_it() -> None:
    leaves = [bytes([i]) * 32 for i in range(20)]
    rewritten = [*leaves[:3], b"\xee" * 32, *leaves[4:]]
    tree, forged = Tree(leaves), Tree(rewritten)
    event = {
        "version": 4,
        "log": {"shard": 0, "position": 9, "leaf_index": 3, "chain_hash": leaves[3].hex()},
    }
    proof = [base64.b64encode(h).decode() for h in forged.inclusion(3, 20)]
    shown = answers(forged, 20, 20, signed(20, rewritten)) | {
        "/v1/log/0/inclusion?position=9&size=20": {"leaf_index": 3, "hashes": proof},
    }
    found = page(
        {
            "rewritten": {
                "kind": "page",
                "answers": answers(forged, 7, 20, signed(20, rewritten)),
                "storage": kept(signed(7, leaves)),
            },
            "shrunk": {
                "kind": "page",
                "answers": answers(tree, 20, 20, signed(12, leaves)),
                "storage": kept(signed(20, leaves)),
            },
            "event": {"kind": "page", "answers": shown, "events": [event]},
        }
    )
    assert "it was rewritten" in found["rewritten"]["message"]
    assert "--- kept ---" in found["rewritten"]["evidence"]
    assert "shrank from 20 to 12" in found["shrunk"]["message"]
    assert "position 9 (version 4) is not in the signed log" in found["event"]["message"]
    # What failed is never kept: the browser keeps the last checkpoint it could verify.
    assert found["rewritten"]["storage"] == kept(signed(7, leaves))
    assert found["shrunk"]["storage"] == kept(signed(20, leaves))
    assert found["event"]["storage"] == {}
