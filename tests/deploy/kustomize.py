"""A small offline Kustomize renderer: exactly the features `k8s/` uses, nothing more.

`kubectl` and the `kustomize` binary are not available in CI, and no package on PyPI renders a
kustomization in pure Python (`kustomize` there is a Python DSL that emits manifests,
`pytest-kustomize` shells out to the binary). This module follows the Kustomize reference for:

- `resources`: YAML files and directories holding a `kustomization.yaml` (rendered first);
- `namespace`: set on every namespaced object (cluster-scoped kinds are left alone);
- `labels`: `pairs` added to `metadata.labels`; with `includeSelectors` also to selectors and
  pod templates, with `includeTemplates` to pod templates;
- `images`: `newName`, `newTag`, `digest` for containers whose image name matches;
- `patches`: strategic-merge patches from `path` or inline `patch`, the target taken from
  `target` (kind, name) or from the patch's own kind and name. Built-in kinds merge the lists
  Kubernetes merges by name (containers, env, volumes, ...); custom resources follow JSON merge
  patch (lists replaced), as Kustomize does without their OpenAPI schema; `null` deletes;
- `replicas`: `count` for the named workload.

Any other field of a kustomization is an error, so the renderer never silently ignores
something a real `kustomize build` would apply.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

Manifest = dict[str, Any]

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
SUPPORTED_FIELDS = frozenset(
    {"apiVersion", "kind", "resources", "namespace", "labels", "images", "patches", "replicas"}
)
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Namespace",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "PersistentVolume",
        "StorageClass",
        "PriorityClass",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
    }
)
# apiVersions whose kinds have a Kubernetes OpenAPI schema, hence strategic-merge list keys.
BUILTIN_GROUPS = frozenset(
    {"v1", "apps/v1", "batch/v1", "policy/v1", "autoscaling/v2", "networking.k8s.io/v1"}
)
# Lists Kubernetes' strategic merge patch merges by `name` (patchMergeKey) rather than replaces.
MERGE_BY_NAME = frozenset(
    {"containers", "initContainers", "ephemeralContainers", "env", "volumes", "volumeMounts"}
)
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job"})


class KustomizeError(ValueError):
    """The kustomization uses something this renderer does not support, or is malformed."""


def build(directory: Path) -> list[Manifest]:
    """Render the kustomization in `directory`, like `kustomize build DIRECTORY`."""
    kustomization = _load_kustomization(directory)
    unknown = set(kustomization) - SUPPORTED_FIELDS
    if unknown:
        raise KustomizeError(f"{directory}: unsupported kustomization fields {sorted(unknown)}")
    objects: list[Manifest] = []
    for entry in kustomization.get("resources", []):
        objects.extend(_load_resource(directory / entry))
    for patch in kustomization.get("patches", []):
        _apply_patch_entry(objects, directory, patch)
    if "namespace" in kustomization:
        set_namespace(objects, kustomization["namespace"])
    for label in kustomization.get("labels", []):
        add_labels(objects, label)
    for image in kustomization.get("images", []):
        set_image(objects, image)
    for replica in kustomization.get("replicas", []):
        set_replicas(objects, replica["name"], int(replica["count"]))
    _check_unique(objects, directory)
    return objects


def load_yaml_documents(path: Path) -> list[Manifest]:
    """Every non-empty YAML document of a file, each a mapping."""
    documents = []
    for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if document is None:
            continue
        if not isinstance(document, dict):
            raise KustomizeError(f"{path}: a document is not a mapping")
        documents.append(document)
    return documents


def _load_kustomization(directory: Path) -> Manifest:
    for name in KUSTOMIZATION_FILES:
        path = directory / name
        if path.is_file():
            documents = load_yaml_documents(path)
            if len(documents) != 1:
                raise KustomizeError(f"{path}: expected one YAML document")
            return documents[0]
    raise KustomizeError(f"{directory}: no kustomization.yaml")


def _load_resource(path: Path) -> list[Manifest]:
    if path.is_dir():
        return build(path)
    if path.is_file():
        return load_yaml_documents(path)
    raise KustomizeError(f"resource {path} does not exist (remote resources are not supported)")


def _apply_patch_entry(objects: list[Manifest], directory: Path, entry: Manifest) -> None:
    if "path" in entry:
        patches = load_yaml_documents(directory / entry["path"])
    elif "patch" in entry:
        patches = [doc for doc in yaml.safe_load_all(entry["patch"]) if doc is not None]
    else:
        raise KustomizeError(f"{directory}: a patch needs `path` or `patch`")
    if set(entry) - {"path", "patch", "target"}:
        raise KustomizeError(f"{directory}: unsupported patch fields {sorted(entry)}")
    for patch in patches:
        if isinstance(patch, list):
            raise KustomizeError(f"{directory}: JSON 6902 patches are not supported")
        target = entry.get("target") or {
            "kind": patch.get("kind"),
            "name": patch.get("metadata", {}).get("name"),
        }
        if set(target) - {"kind", "name"}:
            raise KustomizeError(f"{directory}: patch targets select by kind and name only")
        matches = [obj for obj in objects if _matches(obj, target)]
        if not matches:
            raise KustomizeError(f"{directory}: patch target {target} matches no resource")
        for obj in matches:
            body = {k: v for k, v in patch.items() if k not in ("apiVersion", "kind")}
            body.get("metadata", {}).pop("name", None)
            merged = strategic_merge(obj, body, builtin=obj.get("apiVersion") in BUILTIN_GROUPS)
            obj.clear()
            obj.update(merged)


def _matches(obj: Manifest, target: Manifest) -> bool:
    if "kind" in target and obj.get("kind") != target["kind"]:
        return False
    return "name" not in target or obj.get("metadata", {}).get("name") == target["name"]


def strategic_merge(base: Any, patch: Any, *, builtin: bool, field: str = "") -> Any:
    """`patch` merged into a copy of `base`: maps merge, `null` deletes, lists per `builtin`."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = copy.deepcopy(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = strategic_merge(merged[key], value, builtin=builtin, field=key)
            else:
                merged[key] = copy.deepcopy(value)
        return merged
    if builtin and field in MERGE_BY_NAME and isinstance(base, list) and isinstance(patch, list):
        return _merge_named_lists(base, patch)
    return copy.deepcopy(patch)


def _merge_named_lists(base: list[Any], patch: list[Any]) -> list[Any]:
    merged = copy.deepcopy(base)
    positions = {item.get("name"): index for index, item in enumerate(merged)}
    for item in patch:
        name = item.get("name")
        if name is None:
            raise KustomizeError("a strategic-merge list item needs its `name`")
        if name in positions:
            merged[positions[name]] = strategic_merge(merged[positions[name]], item, builtin=True)
        else:
            merged.append(copy.deepcopy(item))
    return merged


def set_namespace(objects: list[Manifest], namespace: str) -> None:
    for obj in objects:
        if obj.get("kind") not in CLUSTER_SCOPED_KINDS:
            obj.setdefault("metadata", {})["namespace"] = namespace


def add_labels(objects: list[Manifest], spec: Manifest) -> None:
    if set(spec) - {"pairs", "includeSelectors", "includeTemplates"}:
        raise KustomizeError(f"unsupported labels fields {sorted(spec)}")
    pairs = {str(k): str(v) for k, v in spec.get("pairs", {}).items()}
    selectors = bool(spec.get("includeSelectors", False))
    templates = selectors or bool(spec.get("includeTemplates", False))
    for obj in objects:
        obj.setdefault("metadata", {}).setdefault("labels", {}).update(pairs)
        body = obj.get("spec", {})
        if templates and obj.get("kind") in WORKLOAD_KINDS:
            template = body.setdefault("template", {}).setdefault("metadata", {})
            template.setdefault("labels", {}).update(pairs)
        if selectors:
            if obj.get("kind") == "Service":
                body.setdefault("selector", {}).update(pairs)
            elif obj.get("kind") in WORKLOAD_KINDS - {"Job"}:
                body.setdefault("selector", {}).setdefault("matchLabels", {}).update(pairs)


def set_image(objects: list[Manifest], spec: Manifest) -> None:
    if set(spec) - {"name", "newName", "newTag", "digest"}:
        raise KustomizeError(f"unsupported images fields {sorted(spec)}")
    for container in _containers(objects):
        image = str(container.get("image", ""))
        name, tag = _split_image(image)
        if name != spec["name"]:
            continue
        name = spec.get("newName", name)
        if "digest" in spec:
            container["image"] = f"{name}@{spec['digest']}"
        elif "newTag" in spec:
            container["image"] = f"{name}:{spec['newTag']}"
        else:
            container["image"] = name + tag


def _split_image(image: str) -> tuple[str, str]:
    """`registry:5000/app:1.0` → (`registry:5000/app`, `:1.0`); a digest stays in the suffix."""
    if "@" in image:
        name, _, digest = image.partition("@")
        return name, "@" + digest
    slash = image.rfind("/")
    colon = image.rfind(":")
    if colon > slash:
        return image[:colon], image[colon:]
    return image, ""


def _containers(objects: list[Manifest]) -> Iterator[Manifest]:
    def walk(node: Any) -> Iterator[Manifest]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("containers", "initContainers") and isinstance(value, list):
                    yield from (c for c in value if isinstance(c, dict))
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    for obj in objects:
        yield from walk(obj.get("spec", {}))


def set_replicas(objects: list[Manifest], name: str, count: int) -> None:
    found = False
    for obj in objects:
        if obj.get("kind") in WORKLOAD_KINDS - {"Job", "DaemonSet"} and (
            obj.get("metadata", {}).get("name") == name
        ):
            obj.setdefault("spec", {})["replicas"] = count
            found = True
    if not found:
        raise KustomizeError(f"replicas: no workload named {name!r}")


def _check_unique(objects: list[Manifest], directory: Path) -> None:
    seen: set[tuple[str, str, str]] = set()
    for obj in objects:
        key = (
            str(obj.get("kind")),
            str(obj.get("metadata", {}).get("namespace", "")),
            str(obj.get("metadata", {}).get("name")),
        )
        if key in seen:
            raise KustomizeError(f"{directory}: {key} is defined twice")
        seen.add(key)
