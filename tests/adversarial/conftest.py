"""The adversarial suite: each finding of an attacker's round kept as a test that failed before
its fix.

Callers are the ones an attacker can be: an anonymous client, a player, a viewer, a sheet site
and a roller-token holder. The HTTP fixtures are the API suite's (a real PostgreSQL behind them).
"""

from __future__ import annotations

from tests.api.conftest import client, runtime

__all__ = ["client", "runtime"]
