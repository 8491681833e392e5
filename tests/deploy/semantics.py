"""What Kubernetes does with two parts of a rendered manifest, emulated offline for the checks.

- `expand_env`: the kubelet's `$(VAR)` expansion of a container's environment. A reference
  expands only to a variable defined *earlier* (envFrom first, then `env` in order); one to a
  later or unknown variable stays literally `$(VAR)`, silently, which is why the order of the
  shard URL variables matters. `$$` is an escaped `$`. Values from Secrets are not known
  offline: each becomes a token `SECRET[name/key]` that says where it comes from.
- `allowed`: whether NetworkPolicies admit a TCP connection from one pod to another: the
  source's egress and the destination's ingress must both allow it; a direction no policy
  selecting the pod restricts is open (Kubernetes' NetworkPolicy semantics, policies add up).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Manifest = dict[str, Any]


def secret_token(name: str, key: str) -> str:
    return f"SECRET[{name}/{key}]"


SECRET_TOKEN = re.compile(r"SECRET\[([\w.-]+)/([\w.-]+)\]")
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def expand(value: str, defined: dict[str, str]) -> str:
    """`value` with `$(NAME)` replaced from `defined`, as the kubelet does."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return defined.get(name, match.group(0))

    return _REFERENCE.sub(replace, value)


def expand_env(
    container: Manifest, config_maps: Callable[[str], dict[str, str]] = lambda name: {}
) -> dict[str, str]:
    """Every environment variable of `container` as the process sees it (Secrets as tokens)."""
    defined: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            prefix = source.get("prefix", "")
            data = config_maps(source["configMapRef"]["name"])
            defined.update({prefix + key: value for key, value in data.items()})
        elif "secretRef" in source:
            raise NotImplementedError("envFrom secretRef: list its keys with env instead")
    for entry in container.get("env", []):
        defined[entry["name"]] = _value_of(entry, defined, config_maps)
    return defined


def _value_of(
    entry: Manifest, defined: dict[str, str], config_maps: Callable[[str], dict[str, str]]
) -> str:
    if "value" in entry:
        return expand(str(entry["value"]), defined)
    source = entry.get("valueFrom", {})
    if "secretKeyRef" in source:
        return secret_token(source["secretKeyRef"]["name"], source["secretKeyRef"]["key"])
    if "configMapKeyRef" in source:
        reference = source["configMapKeyRef"]
        return config_maps(reference["name"])[reference["key"]]
    if "fieldRef" in source:
        return f"FIELD[{source['fieldRef']['fieldPath']}]"
    return ""  # `name` alone: an empty variable


@dataclass(frozen=True)
class Pod:
    """A pod as NetworkPolicies see it: its namespace (with that namespace's labels) and labels."""

    namespace: str
    labels: dict[str, str]
    namespace_labels: dict[str, str] = field(default_factory=dict)

    def namespace_labels_with_name(self) -> dict[str, str]:
        return {"kubernetes.io/metadata.name": self.namespace, **self.namespace_labels}


def selects(selector: Manifest, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels and matchExpressions; `{}` selects everything)."""
    for key, value in selector.get("matchLabels", {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions", []):
        key, operator = expression["key"], expression["operator"]
        values = expression.get("values", [])
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise ValueError(f"unknown selector operator {operator!r}")
    return True


def _peer_matches(peer: Manifest, policy_namespace: str, other: Pod) -> bool:
    if "ipBlock" in peer:
        return False  # CIDRs name no pod; pod-to-pod traffic never matches them
    namespaces = peer.get("namespaceSelector")
    pods = peer.get("podSelector")
    if namespaces is None and other.namespace != policy_namespace:
        return False  # a bare podSelector selects pods in the policy's own namespace
    if namespaces is not None and not selects(namespaces, other.namespace_labels_with_name()):
        return False
    return pods is None or selects(pods, other.labels)


def _port_matches(ports: list[Manifest] | None, port: int) -> bool:
    if not ports:
        return True  # no `ports`: every port
    for entry in ports:
        if entry.get("protocol", "TCP") != "TCP":
            continue
        number = entry.get("port")
        if number is None:
            return True
        if not isinstance(number, int):
            raise NotImplementedError(f"named port {number!r}: use numbers in k8s/ policies")
        if number <= port <= entry.get("endPort", number):
            return True
    return False


def _admits(policies: list[Manifest], pod: Pod, other: Pod, port: int, direction: str) -> bool:
    """Whether the policies selecting `pod` let it talk to `other` in `direction`."""
    rules_key, peers_key = ("egress", "to") if direction == "Egress" else ("ingress", "from")
    restricting = [
        p
        for p in policies
        if p["metadata"].get("namespace", "") == pod.namespace
        and selects(p["spec"]["podSelector"], pod.labels)
        and direction in _policy_types(p)
    ]
    if not restricting:
        return True
    for policy in restricting:
        namespace = policy["metadata"].get("namespace", "")
        for rule in policy["spec"].get(rules_key, []):
            peers = rule.get(peers_key)
            if peers is not None and not any(_peer_matches(p, namespace, other) for p in peers):
                continue
            if _port_matches(rule.get("ports"), port):
                return True
    return False


def _policy_types(policy: Manifest) -> list[str]:
    spec = policy["spec"]
    if "policyTypes" in spec:
        return list(spec["policyTypes"])
    return ["Ingress", *(["Egress"] if "egress" in spec else [])]


def allowed(policies: list[Manifest], source: Pod, destination: Pod, port: int) -> bool:
    """Whether a TCP connection from `source` to `destination:port` is admitted."""
    return _admits(policies, source, destination, port, "Egress") and _admits(
        policies, destination, source, port, "Ingress"
    )
