"""The hidden-number check the visibility tests use (tests/support/leaks.py): it finds a
number wherever a reader could read it, and not inside random hex, ids or timestamps."""

from __future__ import annotations

import pytest

from tests.support.leaks import shows_number


@pytest.mark.parametrize(
    "shown",
    [
        {"stats": {"hp": 321}},
        {"summary_en": "grunt has 321 HP"},
        "HP 321/400",
        '<text x="4">321</text>',
        {"inputs": {"hp_before": 321.0}},
    ],
)
def test_a_hidden_number_shown_to_a_reader_is_found(shown: object) -> None:
    assert shows_number(shown, 321)


@pytest.mark.parametrize(
    "shown",
    [
        {"commitment": "9f3321ab" + "0" * 56},  # the fight's public commitment, by chance
        {"campaign_id": "1b2c3d4e-3210-4abc-8def-0123456789ab"},
        {"at": "2026-12-06T04:01:20.321464Z"},
        {"hp": 3210, "roll": 1321},
    ],
)
def test_random_hex_ids_and_other_numbers_are_not_taken_for_it(shown: object) -> None:
    assert not shows_number(shown, 321)
