"""Every setting Senki reads, in one place (SENKI_* environment variables or a .env file)."""

from __future__ import annotations

from functools import cached_property
from ipaddress import ip_address
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["debug", "info", "warning", "error"]


class Settings(BaseSettings):
    """Effective configuration; `senki config` prints it with secrets masked."""

    model_config = SettingsConfigDict(
        env_prefix="SENKI_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    data_dir: Path = Field(
        default=Path(".senki"),
        description="Where the embedded PostgreSQL and the generated dice key live.",
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="External PostgreSQL URL the service writes with (low-privilege role). "
        "Unset: an embedded PostgreSQL is started in the data directory.",
    )
    migration_database_url: SecretStr | None = Field(
        default=None,
        description="URL of the owning role used by `senki db migrate` (defaults to database_url).",
    )
    app_role: str = Field(
        default="senki_app",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="The low-privilege role the service writes with; migrations grant it "
        "INSERT/SELECT only on the event tables.",
    )
    database_name: str = Field(
        default="senki",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="Database name on the embedded server.",
    )
    dice_master_key: SecretStr | None = Field(
        default=None,
        description="Hex master key (32+ bytes) the dice seeds and tokens are derived from. "
        "Generated into the data directory on the first embedded run; required to serve with "
        "an external database (not to migrate).",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    log_level: LogLevel = "info"
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Serve Prometheus /metrics on this port (same host) instead of the API's, so "
        "a NetworkPolicy can admit only the monitoring system to it; unset: /metrics on the API "
        "port.",
    )
    shards: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Number of event-log shards; with SENKI_SHARD_URLS it may be omitted (it is "
        "then the list's length) or must equal that length.",
    )
    shard_urls: list[SecretStr] = Field(
        default_factory=list,
        description="One postgresql:// URL (service role) per shard, as a JSON list; entry i is "
        "the cluster holding shard i's events, snapshots and idempotency rows (it may be the "
        "home database_url). Empty: every shard lives in the home database (docs/scaling.md).",
    )
    shard_migration_urls: list[SecretStr] = Field(
        default_factory=list,
        description="Owner-role URLs `senki db migrate` uses per shard, as a JSON list of the "
        "same length as shard_urls (default: each shard's URL).",
    )
    pool_size: int = Field(default=8, ge=1, le=200)
    # Below Kubernetes' default 30 s grace period, less the 5 s preStop sleep (k8s/base/api.yaml).
    graceful_timeout: int = Field(
        default=10,
        ge=0,
        le=600,
        description="Seconds `senki serve` waits on SIGTERM for open requests before cancelling "
        "them (also --graceful-timeout); open event streams end at once.",
    )
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Origins (e.g. https://sheets.example) whose browsers may call the API, as a "
        "JSON list in SENKI_CORS_ORIGINS; empty: no CORS.",
    )
    projection_stall_s: float = Field(
        default=60.0,
        gt=0,
        le=86_400,
        description="A read model behind its log that has not moved for this many seconds is "
        "`degraded` (stalled) in /readyz, /metrics and `senki projections status`.",
    )

    # What one client may hold or ask at once, so that no one floods the server for anyone
    # else (issue 33 §2; README "Settings", api/limits.py). "Exposed" below means listening
    # beyond loopback (SENKI_HOST or `serve --host` other than 127.0.0.1, ::1 or localhost).
    operator_token: SecretStr | None = Field(
        default=None,
        description="The operator's credential: `Authorization: Bearer <it>` on POST "
        "/v1/campaigns (and on the API port's /metrics when exposed). Set, it is always needed "
        "to open a campaign; unset, opening one is open on loopback and refused when exposed.",
    )
    streams_per_token: int = Field(
        default=8, ge=1, description="Live event streams one token may hold open at once."
    )
    streams_per_process: int = Field(
        default=4096, ge=1, description="Live event streams one server process holds at most."
    )
    heavy_reads_per_token: int = Field(
        default=2,
        ge=1,
        description="What-if replays, procedure points and time travels one token may have "
        "computed at once.",
    )
    heavy_reads_per_process: int = Field(
        default=4, ge=1, description="Such reads one server process computes at once."
    )
    replay_cache_entries: int = Field(
        default=256,
        ge=0,
        description="Replay, points and time-travel answers kept per process, each valid until "
        "its encounter is appended to; 0: none.",
    )
    anonymous_rate: float = Field(
        default=5.0,
        gt=0,
        description="When exposed: requests per second one client address may send without a "
        "token (a token bucket, refilled at this rate).",
    )
    anonymous_burst: int = Field(
        default=40, ge=1, description="When exposed: the bucket's size (a burst it allows)."
    )
    keep_alive_s: int = Field(
        default=5, ge=1, le=300, description="An idle kept-alive connection is closed after this."
    )
    body_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="A request body must arrive within this long of its headers (else 408).",
    )
    forwarded_allow_ips: list[str] = Field(
        default_factory=lambda: ["127.0.0.1"],
        description="Proxies whose X-Forwarded-For names the client address (the rate limit's "
        "key), as a JSON list; behind an Ingress, its pods' addresses.",
    )

    @field_validator("database_url", "migration_database_url")
    @classmethod
    def _must_be_postgres(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError("must be a postgresql:// URL (or unset for the embedded server)")
        return value

    @field_validator("shard_urls", "shard_migration_urls")
    @classmethod
    def _every_shard_is_postgres(cls, value: list[SecretStr]) -> list[SecretStr]:
        for index, url in enumerate(value):
            if not url.get_secret_value().startswith(("postgresql://", "postgres://")):
                raise ValueError(
                    f"entry {index} must be a postgresql:// URL (one per shard, index = shard)"
                )
        return value

    @model_validator(mode="after")
    def _shard_lists_agree(self) -> Settings:
        urls, owners = len(self.shard_urls), len(self.shard_migration_urls)
        if owners and owners != urls:
            raise ValueError(
                f"SENKI_SHARD_MIGRATION_URLS has {owners} entries but SENKI_SHARD_URLS has "
                f"{urls}: give one owner URL per shard URL, or leave it unset"
            )
        if not urls:
            return self
        if self.database_url is None:
            raise ValueError(
                "SENKI_SHARD_URLS needs SENKI_DATABASE_URL (the home database holding the "
                "placement directory and the read models); the embedded server holds every "
                "shard itself"
            )
        if "shards" in self.model_fields_set and self.shards != urls:
            raise ValueError(
                f"SENKI_SHARDS is {self.shards} but SENKI_SHARD_URLS names {urls} shards: "
                "leave SENKI_SHARDS unset or make it equal the list's length"
            )
        if urls > 64:
            raise ValueError("SENKI_SHARD_URLS names more than 64 shards")
        self.shards = urls
        return self

    def shard_count(self) -> int:
        """How many shards the log has (the URL list's length when one is given)."""
        return len(self.shard_urls) or self.shards

    @field_validator("dice_master_key")
    @classmethod
    def _key_must_be_hex(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        try:
            raw = bytes.fromhex(value.get_secret_value())
        except ValueError:
            raise ValueError(
                "must be hexadecimal (e.g. the output of `openssl rand -hex 32`)"
            ) from None
        if len(raw) < 32:
            raise ValueError("must be at least 32 bytes (64 hex characters)")
        return value

    @property
    def embedded(self) -> bool:
        """True when Senki runs its own PostgreSQL in the data directory."""
        return self.database_url is None

    @property
    def exposed(self) -> bool:
        """Listening beyond loopback: opening a campaign needs the operator token, requests
        without a token are rate-limited, and the API port's /metrics needs the token."""
        if self.host == "localhost":
            return False
        try:
            return not ip_address(self.host).is_loopback
        except ValueError:  # a host name: it may resolve to anything
            return True

    @cached_property
    def dice_key_file(self) -> Path:
        return self.data_dir / "dice-master.key"

    def masked(self) -> dict[str, object]:
        """The effective settings as plain values, secrets replaced by a mask."""
        shown: dict[str, object] = {}
        for name, value in self.model_dump().items():
            if isinstance(value, SecretStr):
                shown[name] = _mask_url(value.get_secret_value()) if "url" in name else "********"
            elif isinstance(value, list) and "url" in name:
                shown[name] = [
                    _mask_url(v.get_secret_value()) if isinstance(v, SecretStr) else v
                    for v in value
                ]
            else:
                shown[name] = str(value) if isinstance(value, Path) else value
        if self.dice_master_key is None and self.embedded:
            # The embedded default keeps the key in the data directory: say so, never blank.
            where = self.dice_key_file
            shown["dice_master_key"] = (
                f"******** (in {where})"
                if where.exists()
                else f"(not set: generated into {where} on the first start)"
            )
        return shown

    # --- issue 37: signed checkpoints of each shard's Merkle tree (docs/witnesses.md) ---
    log_origin: str | None = Field(
        default=None,
        pattern=r"^[^\s+]+$",
        description="The name checkpoints give this deployment's log, e.g. senki.example.org; "
        "shard i's origin is `<log_origin>/shard/<i>`. Unset: `<host>:<port>`.",
    )
    log_key_names: list[str] = Field(
        default_factory=list,
        description="Names of the log's signing keys, oldest first, as a JSON list; each key is "
        "derived from the master key by its name, each signs every new checkpoint and every "
        "verifier key is published (append a name to rotate, remove one to retire it). Empty: "
        "one key named after the origin.",
    )
    log_signing_delay: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="Seconds within which a checkpoint covers every event appended (what a "
        "witness allows before it reports a log that stopped signing).",
    )

    def log_origin_base(self) -> str:
        return self.log_origin or f"{self.host}:{self.port}"

    def log_keys(self) -> list[str]:
        return self.log_key_names or [self.log_origin_base()]


def _mask_url(url: str) -> str:
    """Hide the password of a URL but keep where it points, so an operator can check it."""
    scheme, _, rest = url.partition("://")
    credentials, at, location = rest.rpartition("@")
    if not at:
        return url
    user, colon, _ = credentials.partition(":")
    return f"{scheme}://{user}:********@{location}" if colon else url
