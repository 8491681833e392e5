"""Every overlay of k8s/, rendered once (tests/deploy/kustomize.py), and ways to look into it.

The deploy tests share these: `OVERLAYS` is read from the directory, so a new overlay is
rendered, validated and checked by every test without being listed anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from tests.deploy.kustomize import KUSTOMIZATION_FILES, build

REPO = Path(__file__).resolve().parents[2]
OVERLAYS_DIR = REPO / "k8s" / "overlays"
OVERLAYS = tuple(
    sorted(
        path.name
        for path in OVERLAYS_DIR.iterdir()
        if any((path / name).is_file() for name in KUSTOMIZATION_FILES)
    )
)
HOME_CLUSTER = "senki-db"

Manifest = dict[str, Any]


@cache
def render(overlay: str) -> tuple[Manifest, ...]:
    return tuple(build(OVERLAYS_DIR / overlay))


def of_kind(objects: list[Manifest], kind: str) -> list[Manifest]:
    return [o for o in objects if o["kind"] == kind]


def named(objects: list[Manifest], kind: str, name: str) -> Manifest:
    (found,) = [o for o in of_kind(objects, kind) if o["metadata"]["name"] == name]
    return found


def pod_templates(objects: list[Manifest]) -> Iterator[tuple[Manifest, Manifest]]:
    for obj in objects:
        if obj["kind"] in ("Deployment", "Job", "StatefulSet", "DaemonSet"):
            yield obj, obj["spec"]["template"]


def containers(pod_spec: Manifest) -> list[Manifest]:
    found: list[Manifest] = pod_spec["containers"] + pod_spec.get("initContainers", [])
    return found


def env_of(container: Manifest) -> dict[str, Manifest]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def only_container(objects: list[Manifest], kind: str, name: str) -> Manifest:
    (container,) = named(objects, kind, name)["spec"]["template"]["spec"]["containers"]
    return container
