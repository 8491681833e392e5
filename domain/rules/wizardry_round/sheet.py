"""What a combatant brings into a WZ encounter, and the (empty) map: the seed uses no grid."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WzSheet(_Frozen):
    """A combatant's snapshot as it joins: the numbers the round procedure reads."""

    ini: int = Field(description="INI (先制力); WZ-5: a declared INI is at most this.")
    ac: int = Field(description="AC; WZ-3: fatigue raises it (a higher AC is worse).")
    endurance: int = Field(description="Endurance (持続力), WZ-3.")
    fatigue: int = Field(default=0, ge=0, description="Fatigue level (【疲労】Lv), WZ-3.")
    strategy: int = Field(default=0, ge=0, description="《Strategy》(ストラテジィ) Lv, WZ-2.")
    tactics: int = Field(default=0, ge=0, description="《Tactics》(タクティクス) Lv, WZ-7.")
    academic_skills: tuple[str, ...] = Field(default=(), description="WZ-4 (学術スキル).")
    formations: tuple[str, ...] = Field(default=(), description="WZ-6 Formation (陣形) skills.")
    weapons: tuple[str, ...] = Field(default=(), description="Weapons at hand, WZ-2.")
    ready_weapon: str | None = Field(
        default=None, description="WZ-2: the weapon readied at combat start (default: first)."
    )

    @property
    def weapon_to_ready(self) -> str | None:
        if self.ready_weapon is not None:
            return self.ready_weapon
        return self.weapons[0] if self.weapons else None

    @model_validator(mode="after")
    def _ready_is_at_hand(self) -> WzSheet:
        if self.ready_weapon is not None and self.ready_weapon not in self.weapons:
            raise ValueError(f"{self.ready_weapon!r} is not among the weapons {self.weapons}")
        return self


class WzMap(_Frozen):
    """The seed places nobody on a grid (distances are the GM's), so the map is empty."""
