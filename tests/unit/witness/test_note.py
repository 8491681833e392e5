"""Checkpoints are C2SP signed notes: the reference note of golang.org/x/mod/sumdb/note is
reproduced byte for byte, Senki's own checkpoints open with the verifier written apart from
the server, and a wrong key, an edited note or a rotated-out key behave as signed-note says."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from infra.settings import Settings
from infra.store.merkle import Tree
from infra.store.note import (
    Checkpoint,
    NoteRefused,
    Signer,
    derive_signer,
    open_checkpoint,
    parse_vkey,
)
from tests.support import transparency as independent

# The example key and note of the Go reference implementation (sumdb/note's note_test.go).
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
GO_NOTE = (
    GO_TEXT + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2"
    "pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)
MASTER = bytes(range(32))


def go_signer() -> Signer:
    raw = base64.b64decode(GO_SKEY.split("+", 4)[4])
    assert raw[0] == 1
    return Signer("PeterNeumann", Ed25519PrivateKey.from_private_bytes(raw[1:]))


def test_the_reference_note_is_signed_byte_for_byte_and_its_vkey_is_the_same() -> None:
    signer = go_signer()
    assert signer.verifier.vkey == GO_VKEY
    assert signer.sign(GO_TEXT) == GO_NOTE
    assert parse_vkey(GO_VKEY) == signer.verifier
    assert independent.open_note(GO_NOTE, independent.parse_vkey(GO_VKEY)) == GO_TEXT


def senki_checkpoint(signer: Signer, size: int = 5) -> tuple[str, Checkpoint]:
    tree = Tree([bytes([i]) * 32 for i in range(size)])
    checkpoint = Checkpoint("senki.example.org/shard/0", size, tree.root())
    return signer.sign(checkpoint.text), checkpoint


def test_a_checkpoint_opens_with_a_verifier_that_shares_no_code_with_the_server() -> None:
    signer = derive_signer(MASTER, "senki.example.org")
    note, checkpoint = senki_checkpoint(signer)
    opened = independent.open_checkpoint(note, independent.parse_vkey(signer.verifier.vkey))
    assert (opened.origin, opened.size, opened.root) == (
        checkpoint.origin,
        checkpoint.size,
        checkpoint.root,
    )
    assert note.split("\n")[:4] == ["senki.example.org/shard/0", "5", opened_b64(opened), ""]


def opened_b64(checkpoint: independent.Checkpoint) -> str:
    return base64.b64encode(checkpoint.root).decode()


def test_a_checkpoint_signed_with_another_key_is_refused() -> None:
    real = derive_signer(MASTER, "senki.example.org")
    forger = derive_signer(bytes(32), "senki.example.org")  # same name, another master key
    note, _ = senki_checkpoint(forger)
    with pytest.raises(NoteRefused):
        open_checkpoint(note, [real.verifier])
    with pytest.raises(independent.Refused):
        independent.open_checkpoint(note, independent.parse_vkey(real.verifier.vkey))


def test_an_edited_checkpoint_is_refused() -> None:
    signer = derive_signer(MASTER, "senki.example.org")
    note, _ = senki_checkpoint(signer, 5)
    edited = note.replace("\n5\n", "\n6\n", 1)
    with pytest.raises(NoteRefused, match="forged"):
        open_checkpoint(edited, [signer.verifier])
    with pytest.raises(independent.Refused):
        independent.open_checkpoint(edited, independent.parse_vkey(signer.verifier.vkey))


def test_the_key_is_derived_by_name_so_a_rotation_keeps_the_old_vkey_verifying() -> None:
    settings = Settings(log_origin="senki.example.org", log_key_names=["log-2025", "log-2026"])
    old, new = (derive_signer(MASTER, name) for name in settings.log_keys())
    assert derive_signer(MASTER, "log-2025").verifier == old.verifier  # nothing stored
    note, _ = senki_checkpoint(old)
    assert open_checkpoint(note, [old.verifier, new.verifier]).size == 5
    assert old.verifier.vkey != new.verifier.vkey


def test_the_default_origin_and_key_name_come_from_the_host() -> None:
    settings = Settings(host="table.example", port=8443)
    assert settings.log_origin_base() == "table.example:8443"
    assert settings.log_keys() == ["table.example:8443"]
