"""Issue 3's speed figures: rebuilding a 10,000-event encounter, and attacks per second.

Run: `python -m bench.encounter [--events 10000] [--attacks 100] [--json PATH] [--quick]`
(embedded PostgreSQL) or with SENKI_BENCH_DATABASE_URL set to a superuser URL of an external
server. `--quick` is a smoke run on a 300-event encounter (the suite's --quick).

1. Rebuild (with snapshots) of an encounter of ≥ 10,000 events, beside a plain SELECT of the
   same rows; aim ≤ 0.25× the SELECT time.
2. One attack decided and saved: the declaration (DeclareAttack) and the defender's reaction
   (Dodge: hit and dodge rolls, the rulings, damage, injury check) are two commands — in Glorious
   Drive the defender chooses the reaction after the declaration, so they cannot share one
   transaction. Reported as commands/s beside raw psycopg one-row-per-transaction inserts.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import psycopg

from bench.common import Figure, fresh_runtime, median_seconds, report, server
from bench.options import parser, write_figures
from domain.campaign.bounds import FIGURE
from domain.encounter import aggregate as encounter
from infra.services.encounters import Actor
from infra.services.executor import Executor
from infra.services.runtime import Runtime

GM = Actor("gm", is_gm=True)
TARGET_EVENTS = 10_000
# The largest HP an encounter sheet may carry: nobody falls, so the fight can go on for
# 10,000 events (about 90 damage an attack, one attack in ten events).
HUGE_HP = FIGURE


def sheet(x: int, reaction: int) -> dict[str, Any]:
    return {
        "position": {"x": x, "y": 0},
        "stats": {
            "phys_atk": 100,
            "phys_def": 30,
            "perc_atk": 80,
            "perc_def": 40,
            "evasion": 40,
            "melee_hit": 50,
            "ranged_hit": 60,
            "move": 5,
            "hp": HUGE_HP,
            "reaction": reaction,
            "resistance": 5,
        },
        "weapons": [
            {
                "name": "rifle",
                "attack_type": "physical",
                "reach": "ranged",
                "range": 8,
                "attack": 20,
            }
        ],
        "main_weapon": "rifle",
    }


def open_fight(runtime: Runtime, campaign_id: uuid.UUID | None = None) -> uuid.UUID:
    """A two-combatant Glorious Drive fight (in a campaign, when given: on its shard)."""
    opened = runtime.encounters.open(
        GM, ruleset_id="glorious_drive", options={}, battle_map={}, campaign_id=campaign_id
    )
    fight = uuid.UUID(opened.id)
    for name, x, reaction in (("ace", 0, 10), ("brute", 3, 2)):
        runtime.encounters.command(
            fight,
            GM,
            "JoinCombatant",
            {
                "combatant_id": name,
                "name": name,
                "side": name,
                "controller": "gm",
                "sheet": sheet(x, reaction),
            },
        )
    return fight


def one_turn(runtime: Runtime, fight: uuid.UUID) -> int:
    """Initiative, then each combatant cleans up, attacks the other, who dodges."""
    service = runtime.encounters
    version = service.command(fight, GM, "RollInitiative", {}).version
    for attacker, defender in (("ace", "brute"), ("brute", "ace")):
        service.command(fight, GM, "Cleanup", {"combatant_id": attacker})
        service.command(fight, GM, "DeclareAttack", {"combatant_id": attacker, "target": defender})
        version = service.command(fight, GM, "Dodge", {"combatant_id": defender}).version
    return int(version)


def grow(runtime: Runtime, fight: uuid.UUID, events: int) -> int:
    version = 0
    while version < events:
        version = one_turn(runtime, fight)
    return version


def raw_insert_rate(url: str, count: int = 500) -> float:
    """One row per transaction, straight psycopg: the floor any write path pays."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TEMP TABLE bench_raw (id bigserial PRIMARY KEY, body bytea)")
        start = time.perf_counter()
        for _ in range(count):
            with conn.transaction():
                conn.execute("INSERT INTO bench_raw (body) VALUES (%s)", (b"x" * 400,))
        return count / (time.perf_counter() - start)


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--events", type=int, default=TARGET_EVENTS, help="encounter size")
    options.add_argument("--attacks", type=int, default=100, help="attacks timed")
    args = options.parse_args()
    events, attacks = (300, 20) if args.quick else (args.events, args.attacks)
    with server() as superuser, fresh_runtime(superuser) as runtime:
        fight = open_fight(runtime)
        size = grow(runtime, fight, events)
        select = runtime.urls.service

        def plain_select() -> None:
            with psycopg.connect(select) as conn:
                conn.execute(
                    "SELECT * FROM senki.events_0 WHERE originator_id = %s "
                    "ORDER BY originator_version",
                    (fight,),
                ).fetchall()

        def rebuild() -> None:  # a cold load: no cached state, snapshot + newer events
            Executor(runtime.ledger).load(encounter.KIND, fight)

        select_s = median_seconds(plain_select)
        rebuild_s = median_seconds(rebuild)
        full_s = median_seconds(
            lambda: encounter.KIND.rebuild(fight, (r.event for r in runtime.ledger.read(fight))),
            repeat=3,
        )

        start = time.perf_counter()
        for index in range(attacks):
            attacker, defender = ("ace", "brute") if index % 2 == 0 else ("brute", "ace")
            if index % 2 == 0:
                runtime.encounters.command(fight, GM, "RollInitiative", {})
            runtime.encounters.command(fight, GM, "Cleanup", {"combatant_id": attacker})
            runtime.encounters.command(
                fight, GM, "DeclareAttack", {"combatant_id": attacker, "target": defender}
            )
            runtime.encounters.command(fight, GM, "Dodge", {"combatant_id": defender})
        commands = attacks * 3 + attacks // 2
        command_rate = commands / (time.perf_counter() - start)
        raw = raw_insert_rate(select)
    figures = [
        Figure(
            "rebuild with snapshots",
            rebuild_s * 1000,
            "ms",
            "plain SELECT of its rows",
            select_s * 1000,
            "≤ 0.25×",
        ),
        Figure(
            "rebuild from every event (no snapshot)",
            full_s * 1000,
            "ms",
            "plain SELECT of its rows",
            select_s * 1000,
            "(for information)",
        ),
        Figure(
            "encounter commands decided and saved",
            command_rate,
            "/s",
            "raw one-row transactions",
            raw,
            "(report)",
        ),
    ]
    report("encounter", f"Encounter ({size} events)", figures)
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
