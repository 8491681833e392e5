"""The metric families the API records as it answers, on one registry per app."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram

# From 1 ms (a cached GET) to 10 s (a slow rebuild read); Prometheus adds +Inf.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True)
class Families:
    """Every counter and histogram of one app. Labels only ever take values the server
    chooses (route templates, command names of the rulesets, problem types), never ids or
    text from a request, so the number of series stays bounded."""

    latency: Histogram
    commands: Counter
    conflicts: Counter
    dice: Counter

    @classmethod
    def on(cls, registry: CollectorRegistry) -> Families:
        return cls(
            latency=Histogram(
                "senki_http_request_duration_seconds",
                "Time to answer a request (to the first byte for event streams), by method, "
                "route template and status code.",
                ["method", "route", "status"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            commands=Counter(
                "senki_commands",
                "Writes by ruleset (none outside encounter commands), command and outcome "
                "(accepted, replayed, refused_by_rule, refused_by_state, conflict, rejected, "
                "error).",
                ["ruleset", "command", "outcome"],
                registry=registry,
            ),
            conflicts=Counter(
                "senki_write_conflicts",
                "Writes refused because of another write: stale_if_match (412), "
                "concurrent_append (409), if_match_missing (428), idempotency_key_reused.",
                ["reason"],
                registry=registry,
            ),
            dice=Counter(
                "senki_dice_rolls",
                "Dice rolls recorded (one per expression such as 2D6+3), by who rolled them: "
                "the server, or a GM entering faces rolled by hand.",
                ["source"],
                registry=registry,
            ),
        )
