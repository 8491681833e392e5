"""Checkpoints as C2SP signed notes (`signed-note`, `tlog-checkpoint`), signed with Ed25519.

The log's keys are derived from the master key, one per key name, and never stored: a
rotation adds a name (the newest signs), and the older names' verifier keys stay published
so checkpoints signed before the rotation still verify.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = b"\x01"  # the signature type byte signed-note assigns to Ed25519
_LABEL = b"senki/log-key/v1/"
_DASH = "\u2014 "


class NoteRefused(ValueError):
    """A note, checkpoint or verifier key that does not verify; the message says why."""


def key_id(name: str, public: bytes) -> bytes:
    """SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ public key)[:4], as signed-note recommends."""
    return hashlib.sha256(name.encode() + b"\n" + ED25519 + public).digest()[:4]


@dataclass(frozen=True)
class Verifier:
    name: str
    public: bytes

    @property
    def vkey(self) -> str:
        """`<name>+<hex key ID>+<base64(0x01 ‖ public key)>`."""
        material = base64.b64encode(ED25519 + self.public).decode()
        return f"{self.name}+{key_id(self.name, self.public).hex()}+{material}"

    def verifies(self, text: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, text)
        except InvalidSignature:
            return False
        return True


def parse_vkey(vkey: str) -> Verifier:
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3 or not parts[0]:
        raise NoteRefused(f"{vkey!r} is not NAME+KEYID+KEY")
    name, hex_id, material = parts
    try:
        raw = base64.b64decode(material, validate=True)
    except ValueError as error:
        raise NoteRefused(f"the key of {vkey!r} is not base64") from error
    if len(raw) != 33 or raw[:1] != ED25519:
        raise NoteRefused(f"{vkey!r} is not an Ed25519 verifier key")
    verifier = Verifier(name, raw[1:])
    if key_id(name, verifier.public).hex() != hex_id:
        raise NoteRefused(f"the key ID of {vkey!r} does not match its key")
    return verifier


@dataclass(frozen=True)
class Signer:
    name: str
    private: Ed25519PrivateKey

    @property
    def verifier(self) -> Verifier:
        return Verifier(self.name, self.private.public_key().public_bytes_raw())

    def sign(self, text: str) -> str:
        """The signed note: the text, a blank line, this key's signature line."""
        return sign_note(text, [self])

    def line(self, text: str) -> str:
        signature = self.private.sign(text.encode())
        blob = base64.b64encode(key_id(self.name, self.verifier.public) + signature).decode()
        return f"{_DASH}{self.name} {blob}\n"


def sign_note(text: str, signers: list[Signer]) -> str:
    """The text signed by every signer: a witness that trusts any one of the keys verifies it,
    so a key rotation (a new name appended) does not strand the witnesses of the old key."""
    if not text.endswith("\n"):
        raise ValueError("a note's text ends with a newline")
    return text + "\n" + "".join(signer.line(text) for signer in signers)


def derive_signer(master_key: bytes, name: str) -> Signer:
    """The Ed25519 key of `name`: its seed is HMAC-SHA256(master key, label ‖ name)."""
    seed = hmac.new(master_key, _LABEL + name.encode(), hashlib.sha256).digest()
    return Signer(name, Ed25519PrivateKey.from_private_bytes(seed))


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    @property
    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


def open_checkpoint(note: str, verifiers: list[Verifier]) -> Checkpoint:
    """The checkpoint a note carries, if one of `verifiers` signed it (else NoteRefused)."""
    return _parsed(_verified_text(note, verifiers))


def unverified_checkpoint(note: str) -> Checkpoint:
    """The checkpoint a note says, its signature not checked (no key to check it with)."""
    text, blank, _ = note.rpartition("\n\n")
    if not blank:
        raise NoteRefused("not a signed note: no blank line before the signatures")
    return _parsed(text + "\n")


def _parsed(text: str) -> Checkpoint:
    lines = text.split("\n")
    if len(lines) < 4 or not lines[0]:
        raise NoteRefused("a checkpoint's text is an origin, a tree size and a root hash")
    origin, size, root = lines[0], lines[1], lines[2]
    if not size.isdigit() or (size != "0" and size.startswith("0")):
        raise NoteRefused(f"tree size {size!r} is not a decimal number")
    try:
        raw = base64.b64decode(root, validate=True)
    except ValueError as error:
        raise NoteRefused(f"root hash {root!r} is not base64") from error
    if len(raw) != 32:
        raise NoteRefused("the root hash is not 32 bytes")
    return Checkpoint(origin, int(size), raw)


def _verified_text(note: str, verifiers: list[Verifier]) -> str:
    if not note.endswith("\n") or any(ord(c) < 0x20 and c != "\n" for c in note):
        raise NoteRefused("not a signed note: control characters, or no final newline")
    text, blank, signatures = note.rpartition("\n\n")
    if not blank:
        raise NoteRefused("not a signed note: no blank line before the signatures")
    text += "\n"
    known = {(v.name, key_id(v.name, v.public)): v for v in verifiers}
    verified = False
    for line in signatures[:-1].split("\n"):
        if not line.startswith(_DASH) or " " not in line[2:]:
            raise NoteRefused(f"not a signature line: {line!r}")
        name, _, blob = line[2:].partition(" ")
        try:
            raw = base64.b64decode(blob, validate=True)
        except ValueError as error:
            raise NoteRefused(f"the signature of {name} is not base64") from error
        verifier = known.get((name, raw[:4]))
        if verifier is None:
            continue  # signed-note: an unknown key's signature is ignored
        if not verifier.verifies(text.encode(), raw[4:]):
            raise NoteRefused(f"the signature of {verifier.vkey} does not verify: forged")
        verified = True
    if not verified:
        raise NoteRefused("no signature by a trusted key (a wrong key, or a forged note)")
    return text
