"""Issue 33 §4 and §5: a what-if is not an oracle, no credential reaches a log line, and a
NUL or a lone surrogate is refused with a 4xx on every surface, never a 500."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, key
from tests.api.fight import ACE_JOIN, Fight, ace_join, ace_shoots_grunt
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres

# The attack as found: the grunt's HP + defence is 1110; ace's attack is 100 + her rifle's.
HP, DEFENCE, ACE_BASE = 1000, 110, 100


def _replay(fight: Fight, who: str, rifle: int) -> tuple[str, str]:
    """The replay's answer and its shape (as the attacker read it: complete, missing, which
    keys differ), to `who`, with ace's rifle attack amended."""
    body = {"amendment": {"command": ACE_JOIN, "payload": ace_join(rifle)}}
    headers = auth(fight.token(who)) | key()
    answer = fight.client.post(f"/v1/encounters/{fight.id}/replay", headers=headers, json=body)
    assert answer.status_code < 500, answer.text
    if answer.status_code != 200:
        return answer.text, str(answer.status_code)
    found = answer.json()
    keys = {c: sorted(d) for c, d in found["differences"].items()}
    return answer.text, f"{found['complete']} {found['missing']} {keys}"


def _bisect(fight: Fight, who: str) -> tuple[int, set[str]]:
    """The least rifle attack whose replay's shape is not rifle 0's, in 11 replays, and
    every answer seen on the way."""
    low, high = 0, 2048
    text, quiet = _replay(fight, who, low)
    seen = {text}
    while high - low > 1:
        middle = (low + high) // 2
        text, shape = _replay(fight, who, middle)
        seen.add(text)
        low, high = (low, middle) if shape != quiet else (middle, high)
    return high, seen


def test_a_player_bisecting_her_own_attack_over_replays_learns_nothing_of_the_hidden_grunt(
    client: TestClient,
) -> None:
    grunt = sheet(4, 1, reaction=2, hp=HP, stats={"phys_def": DEFENCE})
    fight = ace_shoots_grunt(client, grunt)
    by_gm, _ = _bisect(fight, "gm")
    assert ACE_BASE + by_gm - 1 == HP + DEFENCE  # the search works: the GM's answers tell it
    for who in ("aoi", "kai", "mio", "site"):
        _, seen = _bisect(fight, who)
        assert len(seen) == 1, f"{who} told apart {len(seen)} answers: an oracle"
