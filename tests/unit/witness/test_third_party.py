"""A maintained implementation no one here wrote agrees with Senki's tree: pymerkle (PyPI,
RFC 9162 mode, SHA-256) gives the same root at every size, the same inclusion paths, and
finds the roots Senki signs consistent with each other — and a rewritten history's not."""

from __future__ import annotations

import pytest

from infra.store.merkle import Tree

pymerkle = pytest.importorskip("pymerkle", reason="pymerkle is a test-only dependency (.[dev])")


def chain_hashes(n: int) -> list[bytes]:
    return [bytes([i % 251, 7]) * 16 for i in range(n)]


def theirs(leaves: list[bytes]) -> object:
    tree = pymerkle.InmemoryTree(algorithm="sha256")
    for leaf in leaves:
        tree.append_entry(leaf)
    return tree


def test_pymerkle_builds_the_same_roots_and_inclusion_paths() -> None:
    leaves = chain_hashes(37)
    ours, other = Tree(leaves), theirs(leaves)
    for size in range(1, 38):
        assert other.get_root(size) == ours.root(size)
        for index in range(0, size, 5):
            proof = other.prove_inclusion(index + 1, size)  # pymerkle counts leaves from 1
            assert proof.path[1:] == ours.inclusion(index, size)
            pymerkle.verify_inclusion(other.get_leaf(index + 1), ours.root(size), proof)


def test_pymerkle_finds_the_roots_senki_signs_consistent_and_a_rewrite_not() -> None:
    leaves = chain_hashes(30)
    ours, other = Tree(leaves), theirs(leaves)
    for first in range(1, 30, 3):
        proof = other.prove_consistency(first, 30)
        pymerkle.verify_consistency(ours.root(first), ours.root(30), proof)
    rewritten = Tree([*leaves[:4], b"\xee" * 32, *leaves[5:]])
    with pytest.raises(pymerkle.InvalidProof):
        pymerkle.verify_consistency(
            ours.root(11), rewritten.root(30), other.prove_consistency(11, 30)
        )
