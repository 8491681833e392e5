"""A batch's rows go to PostgreSQL in chunks of a few fixed sizes, each prepared once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from infra.projector.rows import CHUNKS, chunk_sizes


@given(st.integers(min_value=0, max_value=5_000))
def test_every_row_goes_out_once_in_a_known_chunk_size(rows: int) -> None:
    sizes = chunk_sizes(rows)

    assert sum(sizes) == rows
    assert set(sizes) <= set(CHUNKS)
    assert sizes == sorted(sizes, reverse=True)
    # Below the largest size, each smaller size is used at most once (binary digits).
    assert len(sizes) <= rows // CHUNKS[0] + len(CHUNKS) - 1


def test_a_typical_batch_is_a_handful_of_statements() -> None:
    assert chunk_sizes(300) == [128, 128, 32, 8, 4]
    assert chunk_sizes(0) == []
