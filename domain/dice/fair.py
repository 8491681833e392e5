"""Commit–reveal dice: every die is a pure function of a secret seed that is published later.

An encounter (event stream) publishes `commitment(server_seed)` when it opens and reveals
`server_seed` when it closes; anyone can then recompute every die with the layout below.

Seed: `server_seed = HMAC-SHA256(key=master_key, msg=b"senki/dice-seed/v1/" || stream_id.bytes)`
where `stream_id.bytes` is the 16-byte big-endian UUID. Commitment: lower-case hex SHA-256 of
`server_seed`.

Die: `HMAC-SHA256(key=server_seed, msg=M(attempt))` for attempt = 0, 1, 2, ..., where ``||``
is concatenation, `u32(n)` is 4 bytes big-endian, `u64(n)` 8 bytes big-endian, and
`field(b) = u32(len(b)) || b`::

    M(attempt) = field(b"senki/die/v1")
              || field(stream_id.bytes)                 # 16 bytes
              || field(u64(roll_seq))
              || field(u64(die_index))
              || (b"\\x00"                               # no client seed
                  | b"\\x01" || field(client_seed.encode("utf-8")))
              || field(u64(attempt))

Take the first 8 bytes of the digest as a big-endian unsigned integer `x`. Let
`limit = 2**64 - (2**64 mod sides)`, the largest multiple of `sides` not above 2**64. If
`x < limit` the die shows `x mod sides + 1`; otherwise reject `x` and try attempt + 1. Every
residue then has exactly `limit / sides` preimages, so there is no modulo bias.

Every field is length-prefixed and the client seed carries a presence byte, so no two distinct
inputs share a message (an absent client seed differs from an empty one).
"""

from __future__ import annotations

import hashlib
import hmac
from uuid import UUID

SEED_TAG = b"senki/dice-seed/v1/"
DIE_TAG = b"senki/die/v1"
MIN_MASTER_KEY = 32  # bytes: a shorter key makes every encounter's seed guessable
_U64 = 2**64


def derive_server_seed(master_key: bytes, stream_id: UUID) -> bytes:
    """The encounter's secret seed, derived so that no seed needs storing in the event log."""
    if len(master_key) < MIN_MASTER_KEY:
        raise ValueError(f"the dice master key must be at least {MIN_MASTER_KEY} bytes")
    return hmac.digest(master_key, SEED_TAG + stream_id.bytes, "sha256")


def commitment(server_seed: bytes) -> str:
    """The public promise published before any die is rolled: hex SHA-256 of the seed."""
    return hashlib.sha256(server_seed).hexdigest()


def verify_commitment(server_seed: bytes, commitment_hex: str) -> bool:
    """True when a revealed seed is the one promised (hex compared case-insensitively)."""
    claimed = commitment_hex.strip().lower()
    if not claimed.isascii():  # compare_digest refuses non-ASCII str; such text cannot match
        return False
    return hmac.compare_digest(commitment(server_seed), claimed)


def fair_die(  # noqa: PLR0917  # the agreed signature; its order mirrors the message layout
    server_seed: bytes,
    stream_id: UUID,
    roll_seq: int,
    die_index: int,
    sides: int,
    client_seed: str | None,
) -> int:
    """One die face in 1..sides, recomputable by anyone who knows the revealed seed."""
    return die_from(
        server_seed, die_message_prefix(stream_id, roll_seq, die_index, client_seed), sides
    )


def die_from(server_seed: bytes, prefix: bytes, sides: int) -> int:
    """The die whose message starts with `prefix` (`M(attempt)` without its attempt field)."""
    if not 2 <= sides <= _U64:
        raise ValueError(f"a die has 2 to 2**64 sides, not {sides}")
    limit = _U64 - _U64 % sides
    attempt = 0
    while True:  # ends: each attempt is rejected with probability below 1/2
        last = _FIRST_ATTEMPT if attempt == 0 else _field(_u64(attempt))
        digest = hmac.digest(server_seed, prefix + last, "sha256")
        value = int.from_bytes(digest[:8], "big")
        if value < limit:
            return value % sides + 1
        attempt += 1


def die_message_prefix(
    stream_id: UUID, roll_seq: int, die_index: int, client_seed: str | None
) -> bytes:
    """`M(attempt)` without its final attempt field (see the module docstring)."""
    return roll_message_head(stream_id, roll_seq) + die_message_tail(die_index, client_seed)


def roll_message_head(stream_id: UUID, roll_seq: int) -> bytes:
    """The part of `M(attempt)` every die of one roll shares (computed once for a roll's dice)."""
    return _field(DIE_TAG) + _field(stream_id.bytes) + _field(_u64(roll_seq))


def die_message_tail(die_index: int, client_seed: str | None) -> bytes:
    """The die's own part of `M(attempt)` before the attempt: its index and the client seed."""
    return die_index_field(die_index) + client_seed_field(client_seed)


def die_index_field(die_index: int) -> bytes:
    """`field(u64(die_index))`, built without the general helpers (every die pays for it)."""
    if not 0 <= die_index < _U64:
        raise ValueError(f"{die_index} does not fit in an unsigned 64-bit field")
    return _U64_FIELD_LENGTH + die_index.to_bytes(8, "big")


def client_seed_field(client_seed: str | None) -> bytes:
    return b"\x00" if client_seed is None else b"\x01" + _field(client_seed.encode("utf-8"))


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def _u64(number: int) -> bytes:
    if not 0 <= number < _U64:
        raise ValueError(f"{number} does not fit in an unsigned 64-bit field")
    return number.to_bytes(8, "big")


_U64_FIELD_LENGTH = (8).to_bytes(4, "big")
_FIRST_ATTEMPT = _field(_u64(0))  # nearly every die takes its first attempt: built once
