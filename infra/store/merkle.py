"""A shard's log as an RFC 9162 §2.1 Merkle tree: hashes, proofs and their checks. No I/O.

The leaves are the events' 32-byte chain hashes in log order; a leaf's index is its rank in
the shard's log. `Tree` keeps the hash of every complete subtree (level h, index i covers
leaves [i·2^h, (i+1)·2^h)), so any root or proof for any size reads O(log n) stored nodes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof asked of sizes or indexes the tree does not have."""


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1): where RFC 9162 splits a tree."""
    return 1 << ((n - 1).bit_length() - 1)


class Tree:
    """The complete subtrees of a growing log, one packed bytearray per level."""

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        self._levels: list[bytearray] = [bytearray()]
        for leaf in leaves:
            self.append(leaf)

    @property
    def size(self) -> int:
        return len(self._levels[0]) // HASH_SIZE

    def append(self, leaf: bytes) -> None:
        """Add the next leaf (a chain hash) and every subtree it completes."""
        node, level, index = leaf_hash(leaf), 0, self.size
        self._levels[0] += node
        while index % 2 == 1:
            node = node_hash(self.node(level, index - 1), node)
            level, index = level + 1, index // 2
            if level == len(self._levels):
                self._levels.append(bytearray())
            self._levels[level] += node

    def node(self, level: int, index: int) -> bytes:
        start = index * HASH_SIZE
        return bytes(self._levels[level][start : start + HASH_SIZE])

    def leaf(self, index: int) -> bytes:
        """The leaf hash at `index` (SHA-256(0x00 ‖ chain hash))."""
        return self.node(0, index)

    def subtree(self, start: int, n: int) -> bytes:
        """MTH(D[start:start+n]) for n ≥ 1 leaves within the tree."""
        if n & (n - 1) == 0 and start % n == 0:
            return self.node(n.bit_length() - 1, start // n)
        k = _split(n)
        return node_hash(self.subtree(start, k), self.subtree(start + k, n - k))

    def root(self, size: int | None = None) -> bytes:
        size = self.size if size is None else size
        self._within(size)
        return EMPTY_ROOT if size == 0 else self.subtree(0, size)

    def inclusion(self, index: int, size: int) -> list[bytes]:
        """PATH(index, D[0:size]), RFC 9162 §2.1.3.1."""
        self._within(size)
        if not 0 <= index < size:
            raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
        return self._path(index, 0, size)

    def _path(self, m: int, start: int, n: int) -> list[bytes]:
        if n == 1:
            return []
        k = _split(n)
        if m < k:
            return [*self._path(m, start, k), self.subtree(start + k, n - k)]
        return [*self._path(m - k, start + k, n - k), self.subtree(start, k)]

    def consistency(self, first: int, second: int) -> list[bytes]:
        """PROOF(first, D[0:second]), RFC 9162 §2.1.4.1 (empty for first 0 or first = second)."""
        self._within(second)
        if not 0 <= first <= second:
            raise ProofError(f"tree size {first} is larger than {second}")
        if first in (0, second):
            return []
        return self._subproof(first, 0, second, True)

    def _subproof(self, m: int, start: int, n: int, whole: bool) -> list[bytes]:
        if m == n:
            return [] if whole else [self.subtree(start, m)]
        k = _split(n)
        if m <= k:
            return [*self._subproof(m, start, k, whole), self.subtree(start + k, n - k)]
        return [*self._subproof(m - k, start + k, n - k, False), self.subtree(start, k)]

    def _within(self, size: int) -> None:
        if not 0 <= size <= self.size:
            raise ProofError(f"the tree has {self.size} leaves, not {size}")


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> bool:
    """RFC 9162 §2.1.3.2: does `proof` put the leaf (a chain hash) at `index` under `root`?"""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf_hash(leaf)
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 §2.1.4.2: is the tree of `second_root` an extension of that of `first_root`?"""
    if not 0 <= first <= second:
        return False
    if first == 0:
        return not proof and (second > 0 or second_root == EMPTY_ROOT)
    if first == second:
        return not proof and first_root == second_root
    if not proof:
        return False
    path = [first_root, *proof] if first & (first - 1) == 0 else list(proof)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == first_root and sr == second_root and sn == 0
