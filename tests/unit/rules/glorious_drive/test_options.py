"""The ruleset options: one per interpretation in RULES.md section GD."""

from __future__ import annotations

import pydantic
import pytest

from domain.rules.glorious_drive.options import GloriousDriveOptions


def test_given_no_house_rules_then_the_defaults_are_the_digests_calls() -> None:
    assert GloriousDriveOptions().model_dump() == {
        "piloting_rounding": "floor",
        "hps_rounding": "floor",
        "hps_zero_floor": "at_least_one",
        "occupy_threshold": "at_least",
        "skill_cost_clamps_hp": True,
        "status_recovery_difficulty": 100,
        "status_resistance_default_difficulty": None,
        "situation_bonus_applies_to": "attack",
        "faint_rule": "example",
        "line_of_fire": "every_shortest_path",
    }


def test_given_every_option_then_its_description_cites_a_rule_id() -> None:
    for name, field in GloriousDriveOptions.model_fields.items():
        assert (field.description or "").startswith("GD-"), name


def test_when_an_unknown_option_or_value_is_given_then_it_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError):
        GloriousDriveOptions.model_validate({"faint_rule": "lenient"})
    with pytest.raises(pydantic.ValidationError):
        GloriousDriveOptions.model_validate({"no_such_option": True})


def test_given_options_then_they_are_frozen() -> None:
    options = GloriousDriveOptions()
    with pytest.raises(pydantic.ValidationError):
        options.faint_rule = "text"  # type: ignore[misc]
