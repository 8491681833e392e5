"""A verifier of Senki's checkpoints and proofs that shares no code with the server.

Written from the texts: RFC 9162 §2.1 (the tree, PATH and PROOF, read backwards to rebuild
the roots a proof commits to) and C2SP signed-note / tlog-checkpoint (the note, the key ID,
the vkey). Ed25519 is checked with pycryptodome, not the `cryptography` package the server
signs with, so not even the curve arithmetic is shared.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from Crypto.Signature import eddsa


class Refused(ValueError):
    """What the texts say a verifier must reject."""


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) exactly as RFC 9162 §2.1.1 defines it, over the raw leaves."""
    if not leaves:
        return _h(b"")
    if len(leaves) == 1:
        return _h(b"\x00" + leaves[0])
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return _h(b"\x01" + mth(leaves[:k]) + mth(leaves[k:]))


def _k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: list[bytes]) -> bytes:
    """The root that PATH(index, D[size]) commits `leaf` to (§2.1.3.1 read backwards)."""
    if not 0 <= index < size:
        raise Refused(f"leaf {index} is outside a tree of {size}")
    if size == 1:
        if proof:
            raise Refused("a one-leaf tree has an empty inclusion proof")
        return _h(b"\x00" + leaf)
    if not proof:
        raise Refused("the proof is too short")
    k, last = _k(size), proof[-1]
    if index < k:
        return _h(b"\x01" + root_from_inclusion(index, k, leaf, proof[:-1]) + last)
    return _h(b"\x01" + last + root_from_inclusion(index - k, size - k, leaf, proof[:-1]))


def roots_from_consistency(
    first: int, second: int, first_root: bytes, proof: list[bytes]
) -> tuple[bytes, bytes]:
    """The (old, new) roots PROOF(first, D[second]) commits to (§2.1.4.1 read backwards)."""
    if not 0 < first <= second:
        raise Refused(f"no consistency proof from {first} to {second}")

    def sub(m: int, n: int, whole: bool, path: list[bytes]) -> tuple[bytes, bytes]:
        if m == n:
            if whole:
                if path:
                    raise Refused("the proof is too long")
                return first_root, first_root
            if len(path) != 1:
                raise Refused("the proof has the wrong length")
            return path[0], path[0]
        if not path:
            raise Refused("the proof is too short")
        k, last = _k(n), path[-1]
        if m <= k:
            old, new = sub(m, k, whole, path[:-1])
            return old, _h(b"\x01" + new + last)
        old, new = sub(m - k, n - k, False, path[:-1])
        return _h(b"\x01" + last + old), _h(b"\x01" + last + new)

    return sub(first, second, True, proof)


def consistent(first: int, second: int, old: bytes, new: bytes, proof: list[bytes]) -> bool:
    try:
        return roots_from_consistency(first, second, old, proof) == (old, new)
    except Refused:
        return False


@dataclass(frozen=True)
class Vkey:
    name: str
    key_id: bytes
    public: bytes


def parse_vkey(text: str) -> Vkey:
    """`<name>+<hex key ID>+<base64(type ‖ key)>` (signed-note, "Verifier keys")."""
    name, key_id, material = text.split("+", 2)
    raw = base64.b64decode(material, validate=True)
    if raw[:1] != b"\x01" or len(raw) != 33:
        raise Refused("not an Ed25519 vkey")
    expected = _h(name.encode() + b"\n" + raw)[:4]
    if bytes.fromhex(key_id) != expected or len(key_id) != 8:
        raise Refused("the key ID does not match the key")
    return Vkey(name, expected, raw[1:])


def open_note(note: str, vkey: Vkey) -> str:
    """The note's text if `vkey` signed it, else Refused (signed-note, "Format")."""
    if not note.endswith("\n") or any(ord(c) < 0x20 and c != "\n" for c in note):
        raise Refused("malformed note")
    text, sep, signatures = note.rpartition("\n\n")
    if not sep:
        raise Refused("no blank line before the signatures")
    text += "\n"
    verified = False
    for line in signatures.removesuffix("\n").split("\n"):
        if not line.startswith("\u2014 "):
            raise Refused(f"not a signature line: {line!r}")
        name, _, blob = line[2:].partition(" ")
        sig = base64.b64decode(blob, validate=True)
        if name != vkey.name or sig[:4] != vkey.key_id:
            continue  # an unknown key: ignored, as the text says
        try:
            eddsa.new(eddsa.import_public_key(vkey.public), "rfc8032").verify(
                text.encode(), sig[4:]
            )
        except ValueError as error:
            raise Refused("a known key's signature does not verify") from error
        verified = True
    if not verified:
        raise Refused("no signature by the trusted key")
    return text


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes


def open_checkpoint(note: str, vkey: Vkey) -> Checkpoint:
    """tlog-checkpoint: origin, decimal size without leading zeros, base64 root."""
    lines = open_note(note, vkey).split("\n")
    if len(lines) < 4 or not lines[0]:
        raise Refused("a checkpoint has an origin, a size and a root")
    size = lines[1]
    if not size.isdigit() or (size != "0" and size.startswith("0")):
        raise Refused(f"tree size {size!r} is not decimal without leading zeros")
    root = base64.b64decode(lines[2], validate=True)
    if len(root) != 32:
        raise Refused("the root is not 32 bytes")
    return Checkpoint(lines[0], int(size), root)
