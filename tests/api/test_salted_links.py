"""A leaf is no guessing oracle (issue 37, schema 13): a player shown an event redacted gets its
chain hash, but cannot test guesses of the hidden value against it, for the link hashes a
secret salt the API never serves (the hidden-information matrix searches every answer for it).

Given a fight whose hidden grunt has HP 321, and a player who read the grunt's join redacted
(no sheet) with its `log.chain_hash`; when the player — granted the previous link and every
stored byte of the event but the HP — hashes each guess of the HP as the link formula says,
then no guess gives the chain hash; with the salt (which only the operator holds), exactly the
true HP would.
"""

from __future__ import annotations

import re
from uuid import UUID

import psycopg
import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from infra.store.chain import ChainRow, link
from tests.api.fight import open_fight
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres

HIDDEN_HP = 321
GUESSES = range(1, 1000)


def test_a_players_chain_hash_of_a_redacted_event_tests_no_guess_of_the_hidden_hp(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    fight = open_fight(client, sheet(4, 1, reaction=2, hp=HIDDEN_HP))
    shown = fight.get("/events", by="aoi").json()["events"]
    joined = next(
        e
        for e in shown
        if e["type"] == "CombatantJoined" and e["payload"]["combatant_id"] == "grunt"
    )
    assert joined["payload"]["sheet"] is None, "the player is shown the join redacted"
    served = bytes.fromhex(joined["log"]["chain_hash"])
    shard = joined["log"]["shard"]
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            f"SELECT e.topic, e.state, e.chain_salt, p.chain_hash FROM senki.events_{shard} e "
            f"LEFT JOIN senki.events_{shard} p ON p.notification_id = e.chain_prev "
            "WHERE e.notification_id = %s",
            (joined["position"],),
        ).fetchone()
    assert row is not None
    topic, state, salt, previous = str(row[0]), bytes(row[1]), bytes(row[2]), bytes(row[3])
    hp = re.compile(rb'("hp":\s*)' + str(HIDDEN_HP).encode() + rb"\b")
    assert len(hp.findall(state)) == 1, state  # the one hidden value in the stored bytes

    def hashed(guess: int, with_salt: bytes | None) -> bytes:
        guessed = hp.sub(rb"\g<1>" + str(guess).encode(), state)
        at = ChainRow(
            joined["position"],
            UUID(fight.id),
            joined["version"],
            topic,
            guessed,
            None,
            None,
            with_salt,
        )
        return link(previous, at)

    assert [g for g in GUESSES if hashed(g, None) == served] == []
    assert [g for g in GUESSES if hashed(g, salt) == served] == [HIDDEN_HP]
