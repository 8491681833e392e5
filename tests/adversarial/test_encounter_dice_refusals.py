"""Issue 33 §1, the encounter surface: no answer, and no word of it, depends on a die that is
not on the record.

An attacker who can make an encounter command refuse *after* its server dice were drawn used
to learn something for nothing: the refusal's words could quote the die, which refusal came
could depend on it, and since nothing was recorded the next command drew the same sequence
again (a free peek at the next die, and a re-roll of a die the table never saw). Now such a
refusal is recorded with its dice and answered with the rule and a fixed sentence.

As properties (test-only ruleset, tests/unit/encounter/risky_toss.py): given any commands,
some refused before their dice, some after, some with faces entered by hand, when the next
flip is decided, then its die is the seed's die of the next sequence; every refusal's answer
says the same whatever the dice and quotes no number but its rule's; after the reveal every
die verifies. Over HTTP: a GM who rerolls by refusal gets the same answer for every seed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from domain.dice import fair_die
from domain.encounter import aggregate
from domain.encounter.commands import RevealSeed
from domain.encounter.record import issued
from domain.events import DomainEvent
from domain.rules.records import CommandRefusedAfterDice, EncounterDiceRolled
from domain.rules.ruleset import Command
from infra.services.encounter_answers import command_answer
from infra.services.encounters import RefusedAfterDice
from tests.api.fight import open_fight
from tests.unit.encounter.risky_toss import (
    Bet,
    Dare,
    Flip,
    Peek,
    glorious_drive_refusing_first_dice,
    registered,
    risky_toss,
)
from tests.unit.encounter.table import ENCOUNTER, GM, SEED
from tests.unit.encounter.test_refused_after_dice import Toss

COMMANDS = st.sampled_from([Flip(), Bet(), Dare(), Peek()])
SEEDS = st.one_of(st.none(), st.text(alphabet="abc123", max_size=4))
HAND = st.one_of(st.none(), st.lists(st.integers(1, 6), min_size=1, max_size=2))
STEPS = st.lists(st.tuples(COMMANDS, SEEDS, HAND), max_size=6)
OTHER_SEEDS = ("x", "y", "z", "w")  # a flip's coin shows both faces among them
SLOW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _risky_toss() -> Iterator[None]:
    with registered(risky_toss()):
        yield


def _said(toss: Toss, events: list[DomainEvent]) -> str:
    """What the API answers a command refused after its dice: the problem's detail."""
    answer = command_answer(toss.state, toss.state.version, events)
    return str(RefusedAfterDice(answer))


def _refused_alike_whatever_the_dice(
    toss: Toss, command: Command, faces: list[int] | None, refused: ValueError
) -> None:
    """A refusal that recorded nothing must not depend on the dice: under any other client
    seed (other server dice) the command is refused with the very same words."""
    for other in OTHER_SEEDS:
        ctx = GM.model_copy(update={"client_seed": other})
        with pytest.raises(type(refused)) as again:
            issued(toss.state, command, ctx, server_seed=SEED, hand_faces=faces)
        assert str(again.value) == str(refused)


@SLOW
@given(STEPS)
@example([(Flip(), "a", None), (Bet(), "b", None), (Dare(), None, None), (Peek(), None, None)])
def test_the_next_flip_shows_the_next_sequences_die_whatever_was_refused_before(
    steps: list[tuple[Flip | Bet | Dare | Peek, str | None, list[int] | None]],
) -> None:
    toss = Toss()
    said: dict[tuple[str, str | None], set[str]] = {}
    for command, client_seed, faces in steps:
        ctx = GM.model_copy(update={"client_seed": client_seed})
        try:
            events = toss.do(command, by=ctx, faces=faces)
        except ValueError as refused:
            _refused_alike_whatever_the_dice(toss, command, faces, refused)
            continue
        refusal = events[-1]
        if isinstance(refusal, CommandRefusedAfterDice):
            text = _said(toss, events)
            rule = refusal.rule_id or ""
            assert not re.findall(r"\d", text.replace(rule, "")), text
            said.setdefault((refusal.command_type, refusal.rule_id), set()).add(text)
    # One refusal, one answer: what a die showed never changes the words.
    assert all(len(texts) == 1 for texts in said.values()), said
    recorded = toss.state.roll_count
    assert recorded == len(aggregate.rolls_of(toss.events))
    nxt = GM.model_copy(update={"client_seed": "peek"})
    outcome = issued(toss.state, Flip(), nxt, server_seed=SEED)
    (rolled,) = [e for e in outcome.events if isinstance(e, EncounterDiceRolled)]
    assert rolled.result.roll_seq == recorded
    assert rolled.result.total == fair_die(SEED, ENCOUNTER, recorded, 0, 2, "peek")
    toss.do(RevealSeed(server_seed=SEED.hex()))
    rolls = aggregate.rolls_of(toss.events)
    checks = aggregate.audit(toss.state, rolls)
    assert not [check for check in checks if check.problems], checks
    # Every die from the seed recomputes; one entered by hand is the table's, not the seed's.
    assert all(c.verified for c, r in zip(checks, rolls, strict=True) if r.source == "server")


@SLOW
@given(st.lists(st.text(alphabet="xyz", min_size=1, max_size=3), min_size=2, max_size=2))
def test_which_refusal_a_bet_gets_may_depend_on_its_dice_but_the_record_holds_them(
    seeds: list[str],
) -> None:
    """A bet is refused by RT-2 whatever happens, after one or two dice: how many dice it drew
    depends on the first, and every one of them is on the record before the answer."""
    for seed in seeds:
        toss = Toss()
        events = toss.do(Bet(), by=GM.model_copy(update={"client_seed": seed}))
        refusal = events[-1]
        assert isinstance(refusal, CommandRefusedAfterDice)
        rolled = [e.result.roll_seq for e in events if isinstance(e, EncounterDiceRolled)]
        assert list(refusal.roll_seqs) == rolled == list(range(toss.state.roll_count))
        assert _said(toss, events).startswith("RT-2: Bet was refused after its dice were drawn")


@pytest.mark.postgres
def test_a_gm_who_rerolls_initiative_by_refusal_learns_nothing_and_uses_up_the_dice(
    client: TestClient,
) -> None:
    """Before: the refusal quoted the die and recorded nothing, so the same sequence came
    again. Now each refused roll says the same and its dice are on the record."""
    details = set()
    with registered(glorious_drive_refusing_first_dice()):
        for client_seed in ("a", "b", "c"):
            fight = open_fight(client)
            refused = fight.command({"command": "RollInitiative", "client_seed": client_seed})
            assert refused.status_code == 422, refused.text
            details.add(refused.json()["detail"])
            assert fight.get().json()["roll_count"] == 3
    assert len(details) == 1, details
