from __future__ import annotations

import pytest

from domain.rules.glorious_drive.options import GloriousDriveOptions


@pytest.fixture
def options() -> GloriousDriveOptions:
    """The digest's default interpretations."""
    return GloriousDriveOptions()
