"""`senki demo`: a short fight of each rule system played over the HTTP API, as a table tool
would: Glorious Drive (gd.py), the Wizardry-style round (wz.py), Armor Knights (ak.py); the
table they share is table.py."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from rich.console import Console

from infra.demo.ak import run_ak
from infra.demo.gd import run_gd
from infra.demo.table import default_url
from infra.demo.wz import run_wz

__all__ = ["RULESETS", "default_url", "run_demo"]

RULESETS = {"gd": "Glorious Drive", "wz": "Wizardry-style round", "ak": "Armor Knights"}
_DEMOS: dict[str, Callable[[httpx.Client, Console], bool]] = {
    "gd": run_gd,
    "wz": run_wz,
    "ak": run_ak,
}


def run_demo(http: httpx.Client, console: Console, ruleset: str = "gd") -> bool:
    """Play the demo of `ruleset` (gd, wz or ak) through `http` (a client on the running API);
    True when every die verifies."""
    demo = _DEMOS.get(ruleset)
    if demo is None:
        raise ValueError(f"no demo for ruleset {ruleset!r}: choose one of {', '.join(RULESETS)}")
    return demo(http, console)
