"""The offline Kustomize renderer does what `kustomize build` does for the features k8s/ uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.kustomize import KustomizeError, build, strategic_merge

pytestmark = pytest.mark.deploy

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web
          env:
            - {name: A, value: "1"}
            - {name: B, value: "2"}
        - name: sidecar
          image: registry:5000/tools/sidecar:1.0
"""
CLUSTER = """
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata:
  name: db
spec:
  instances: 3
  postgresql:
    synchronous: {method: any, number: 1}
  plugins:
    - name: one
    - name: two
"""


def write(directory: Path, files: dict[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def kustomization(**fields: object) -> str:
    return yaml.safe_dump({"apiVersion": "kustomize.config.k8s.io/v1beta1", **fields})


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return write(
        tmp_path / "base",
        {
            "kustomization.yaml": kustomization(resources=["web.yaml", "db.yaml"]),
            "web.yaml": DEPLOYMENT,
            "db.yaml": CLUSTER + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
        },
    )


def by_kind(objects: list[dict[str, Any]], kind: str) -> Any:
    (found,) = [o for o in objects if o["kind"] == kind]
    return found


def test_resources_load_files_and_nested_kustomizations(tmp_path: Path, base: Path) -> None:
    overlay = write(
        tmp_path / "overlay", {"kustomization.yaml": kustomization(resources=["../base"])}
    )

    kinds = [o["kind"] for o in build(overlay)]

    assert kinds == ["Deployment", "Cluster", "Namespace"]


def test_namespace_is_set_on_namespaced_objects_only(tmp_path: Path, base: Path) -> None:
    overlay = write(
        tmp_path / "overlay",
        {"kustomization.yaml": kustomization(resources=["../base"], namespace="prod")},
    )

    objects = build(overlay)

    assert by_kind(objects, "Deployment")["metadata"]["namespace"] == "prod"
    assert by_kind(objects, "Cluster")["metadata"]["namespace"] == "prod"
    assert "namespace" not in by_kind(objects, "Namespace")["metadata"]


def test_labels_without_selectors_touch_metadata_only(tmp_path: Path, base: Path) -> None:
    overlay = write(
        tmp_path / "overlay",
        {
            "kustomization.yaml": kustomization(
                resources=["../base"], labels=[{"pairs": {"team": "senki"}}]
            )
        },
    )

    deployment = by_kind(build(overlay), "Deployment")

    assert deployment["metadata"]["labels"] == {"app": "web", "team": "senki"}
    assert deployment["spec"]["selector"]["matchLabels"] == {"app": "web"}
    assert deployment["spec"]["template"]["metadata"]["labels"] == {"app": "web"}


def test_labels_with_selectors_reach_selectors_and_templates(tmp_path: Path, base: Path) -> None:
    labels = [{"pairs": {"team": "senki"}, "includeSelectors": True}]
    overlay = write(
        tmp_path / "overlay",
        {"kustomization.yaml": kustomization(resources=["../base"], labels=labels)},
    )

    spec = by_kind(build(overlay), "Deployment")["spec"]

    assert spec["selector"]["matchLabels"]["team"] == "senki"
    assert spec["template"]["metadata"]["labels"]["team"] == "senki"


def test_images_replace_name_and_tag_of_matching_containers(tmp_path: Path, base: Path) -> None:
    images = [
        {"name": "web", "newName": "registry.example/web", "newTag": "1.2"},
        {"name": "registry:5000/tools/sidecar", "digest": "sha256:abc"},
    ]
    overlay = write(
        tmp_path / "overlay",
        {"kustomization.yaml": kustomization(resources=["../base"], images=images)},
    )

    containers = by_kind(build(overlay), "Deployment")["spec"]["template"]["spec"]["containers"]

    assert [c["image"] for c in containers] == [
        "registry.example/web:1.2",
        "registry:5000/tools/sidecar@sha256:abc",
    ]


def test_replicas_set_the_named_workload(tmp_path: Path, base: Path) -> None:
    overlay = write(
        tmp_path / "overlay",
        {
            "kustomization.yaml": kustomization(
                resources=["../base"], replicas=[{"name": "web", "count": 4}]
            )
        },
    )

    assert by_kind(build(overlay), "Deployment")["spec"]["replicas"] == 4


def test_builtin_patches_merge_containers_and_env_by_name(tmp_path: Path, base: Path) -> None:
    patch = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: web
          env:
            - {name: B, value: "20"}
            - {name: C, value: "3"}
"""
    overlay = write(
        tmp_path / "overlay",
        {
            "kustomization.yaml": kustomization(
                resources=["../base"], patches=[{"path": "p.yaml"}]
            ),
            "p.yaml": patch,
        },
    )

    containers = by_kind(build(overlay), "Deployment")["spec"]["template"]["spec"]["containers"]

    assert [c["name"] for c in containers] == ["web", "sidecar"]
    assert containers[0]["image"] == "web"
    assert containers[0]["env"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "value": "20"},
        {"name": "C", "value": "3"},
    ]


def test_custom_resource_patches_replace_lists_and_null_deletes(tmp_path: Path, base: Path) -> None:
    patch = {
        "apiVersion": "postgresql.cnpg.io/v1",
        "kind": "Cluster",
        "metadata": {"name": "db"},
        "spec": {"instances": 1, "postgresql": {"synchronous": None}, "plugins": [{"name": "x"}]},
    }
    overlay = write(
        tmp_path / "overlay",
        {
            "kustomization.yaml": kustomization(
                resources=["../base"], patches=[{"patch": yaml.safe_dump(patch)}]
            )
        },
    )

    spec = by_kind(build(overlay), "Cluster")["spec"]

    assert spec == {"instances": 1, "postgresql": {}, "plugins": [{"name": "x"}]}


def test_a_patch_with_an_explicit_target(tmp_path: Path, base: Path) -> None:
    patches = [{"patch": "spec: {instances: 5}", "target": {"kind": "Cluster", "name": "db"}}]
    overlay = write(
        tmp_path / "overlay",
        {"kustomization.yaml": kustomization(resources=["../base"], patches=patches)},
    )

    assert by_kind(build(overlay), "Cluster")["spec"]["instances"] == 5


def test_strategic_merge_leaves_its_inputs_alone() -> None:
    base = {"a": {"b": [1, 2]}, "c": 1}

    merged = strategic_merge(base, {"a": {"b": [3]}, "c": None}, builtin=True)

    assert merged == {"a": {"b": [3]}}
    assert base == {"a": {"b": [1, 2]}, "c": 1}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"commonAnnotations": {"a": "b"}}, "unsupported kustomization fields"),
        ({"patches": [{"path": "p.yaml"}]}, "matches no resource"),
        ({"replicas": [{"name": "nope", "count": 2}]}, "no workload named"),
        ({"resources": ["missing.yaml"]}, "does not exist"),
        ({"resources": ["../base", "../base"]}, "defined twice"),
    ],
)
def test_what_it_cannot_render_is_an_error(
    tmp_path: Path, base: Path, fields: dict[str, object], message: str
) -> None:
    fields.setdefault("resources", ["../base"])
    overlay = write(
        tmp_path / "overlay",
        {
            "kustomization.yaml": kustomization(**fields),
            "p.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: absent}\n",
        },
    )

    with pytest.raises(KustomizeError, match=message):
        build(overlay)
