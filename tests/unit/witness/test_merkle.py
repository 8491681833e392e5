"""The tree is RFC 9162's: the reference roots and proofs of the RFC 6962 test data, every
proof of every small tree checked by a verifier written apart from the server's
(tests/support/transparency.py), and a changed leaf, size or proof refused."""

from __future__ import annotations

import pytest

from infra.store.merkle import EMPTY_ROOT, ProofError, Tree, verify_consistency, verify_inclusion
from tests.support import transparency as independent

# The leaves and tree heads of RFC 6962's reference implementation (certificate-transparency
# merkle_tree_test), which every RFC 9162 log reproduces.
LEAVES = [
    bytes.fromhex(h)
    for h in (
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    )
]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
INCLUSION = [  # (leaf index, tree size, proof)
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]
CONSISTENCY = [  # (first size, second size, proof)
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]


def hexes(proof: list[bytes]) -> list[str]:
    return [p.hex() for p in proof]


def test_the_tree_heads_are_rfc_6962s_for_every_size() -> None:
    tree = Tree(LEAVES)
    assert EMPTY_ROOT.hex() == ROOTS[0]
    assert [tree.root(n).hex() for n in range(9)] == ROOTS


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION)
def test_inclusion_proofs_are_the_reference_ones(index: int, size: int, proof: list[str]) -> None:
    tree = Tree(LEAVES)
    assert hexes(tree.inclusion(index, size)) == proof
    root = bytes.fromhex(ROOTS[size])
    assert verify_inclusion(index, size, LEAVES[index], tree.inclusion(index, size), root)


@pytest.mark.parametrize(("first", "second", "proof"), CONSISTENCY)
def test_consistency_proofs_are_the_reference_ones(
    first: int, second: int, proof: list[str]
) -> None:
    tree = Tree(LEAVES)
    assert hexes(tree.consistency(first, second)) == proof
    old, new = bytes.fromhex(ROOTS[first]), bytes.fromhex(ROOTS[second])
    assert verify_consistency(first, second, old, new, tree.consistency(first, second))


def chain_hashes(n: int) -> list[bytes]:
    return [bytes([i % 251, i // 251]) * 16 for i in range(n)]


def test_every_proof_of_every_small_tree_checks_with_a_verifier_written_apart() -> None:
    leaves = chain_hashes(37)
    tree = Tree(leaves)
    for size in range(1, 38):
        root = tree.root(size)
        assert root == independent.mth(leaves[:size])
        for index in range(size):
            proof = tree.inclusion(index, size)
            assert independent.root_from_inclusion(index, size, leaves[index], proof) == root
            assert verify_inclusion(index, size, leaves[index], proof, root)
        for first in range(1, size + 1):
            proof = tree.consistency(first, size)
            assert independent.consistent(first, size, tree.root(first), root, proof)
            assert verify_consistency(first, size, tree.root(first), root, proof)


def test_a_changed_leaf_fails_its_inclusion_proof() -> None:
    leaves = chain_hashes(21)
    tree = Tree(leaves)
    proof = tree.inclusion(13, 21)
    forged = b"\xff" * 32
    assert not verify_inclusion(13, 21, forged, proof, tree.root())
    assert independent.root_from_inclusion(13, 21, forged, proof) != tree.root()
    assert not verify_inclusion(12, 21, leaves[13], proof, tree.root())
    assert not verify_inclusion(13, 21, leaves[13], proof[:-1], tree.root())


def test_a_rewritten_history_cannot_prove_itself_consistent_with_an_old_root() -> None:
    leaves = chain_hashes(30)
    kept = Tree(leaves[:11]).root()
    rewritten = [*leaves[:5], b"\xee" * 32, *leaves[6:]]
    tree = Tree(rewritten)
    proof = tree.consistency(11, 30)
    assert not verify_consistency(11, 30, kept, tree.root(), proof)
    assert not independent.consistent(11, 30, kept, tree.root(), proof)


def test_proofs_of_sizes_the_tree_does_not_have_are_refused() -> None:
    tree = Tree(chain_hashes(5))
    with pytest.raises(ProofError):
        tree.inclusion(5, 5)
    with pytest.raises(ProofError):
        tree.consistency(3, 6)
    with pytest.raises(ProofError):
        tree.consistency(4, 3)
    assert tree.consistency(0, 5) == []
    assert not verify_consistency(4, 3, b"", b"", [])
