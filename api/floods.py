"""What one app holds to keep any one client from flooding it for everyone else (issue 33 §2).

Built from the running service's settings when the app starts (`create_app`'s lifespan):
the live streams' and the heavy reads' slots, the streams' wake-ups, the heavy reads' answers
kept, and the buckets of the clients that send no token, or made-up ones. README "Settings"
lists the bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from api.answers import Answers
from api.limits import Buckets, Slots
from api.live import LiveFeeds
from infra.services import Settings


@dataclass
class Floods:
    settings: Settings
    streams: Slots
    heavy_reads: Slots
    answers: Answers
    anonymous: Buckets
    refused_tokens: Buckets  # per address, charged by each made-up token's 401
    live: LiveFeeds = field(default_factory=LiveFeeds)

    @classmethod
    def of(cls, settings: Settings) -> Floods:
        return cls(
            settings=settings,
            streams=Slots(settings.streams_per_token, settings.streams_per_process),
            heavy_reads=Slots(settings.heavy_reads_per_token, settings.heavy_reads_per_process),
            answers=Answers(settings.replay_cache_entries),
            anonymous=Buckets(settings.anonymous_rate, settings.anonymous_burst),
            refused_tokens=Buckets(settings.anonymous_rate, settings.anonymous_burst),
        )


def floods_of(connection: HTTPConnection) -> Floods:
    floods: Floods = connection.app.state.floods
    return floods
