"""The offline emulation of `$(VAR)` expansion and NetworkPolicy admission behaves as Kubernetes.

The shard checks (test_shards.py) lean on these two; here each rule of the Kubernetes docs they
follow is shown on a small example, including what is refused.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.deploy.semantics import Pod, allowed, expand, expand_env, selects

pytestmark = pytest.mark.deploy


def test_a_reference_expands_to_a_variable_defined_earlier() -> None:
    container = {
        "env": [
            {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "pw"}}},
            {"name": "URL", "value": "postgresql://app:$(PASSWORD)@db-rw:5432/senki"},
            {"name": "URLS", "value": '["$(URL)"]'},
        ]
    }

    env = expand_env(container)

    assert env["URL"] == "postgresql://app:SECRET[db/pw]@db-rw:5432/senki"
    assert env["URLS"] == '["postgresql://app:SECRET[db/pw]@db-rw:5432/senki"]'


def test_a_reference_to_a_later_or_unknown_variable_stays_literal() -> None:
    container = {
        "env": [
            {"name": "URL", "value": "postgresql://app:$(PASSWORD)@db/senki $(NOWHERE)"},
            {"name": "PASSWORD", "value": "late"},
        ]
    }

    assert expand_env(container)["URL"] == "postgresql://app:$(PASSWORD)@db/senki $(NOWHERE)"


def test_double_dollar_escapes_and_config_maps_come_first() -> None:
    container = {
        "envFrom": [{"configMapRef": {"name": "config"}}],
        "env": [{"name": "SHOWN", "value": "$(ROLE) $$(ROLE) $$"}],
    }

    env = expand_env(container, {"config": {"ROLE": "senki_app"}}.__getitem__)

    assert env["SHOWN"] == "senki_app $(ROLE) $"
    assert expand("$(A)$(B)", {"A": "1"}) == "1$(B)"


def test_selectors_match_labels_and_expressions() -> None:
    labels = {"app.kubernetes.io/name": "senki", "app.kubernetes.io/component": "api"}
    components = {"key": "app.kubernetes.io/component", "operator": "In"}

    assert selects({}, labels)
    assert selects({"matchExpressions": [components | {"values": ["api", "migrate"]}]}, labels)
    assert not selects({"matchExpressions": [components | {"values": ["projector"]}]}, labels)
    assert not selects({"matchLabels": {"app.kubernetes.io/name": "other"}}, labels)
    assert selects({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, labels)
    assert not selects({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, labels)


def policy(name: str, spec: dict[str, Any], namespace: str = "senki") -> dict[str, Any]:
    return {
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


DENY = policy("deny", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]})
WEB = Pod("senki", {"app": "web"})
DB = Pod("senki", {"app": "db"})
OPERATOR = Pod("cnpg-system", {"app": "operator"})


def test_with_no_policy_everything_is_open_and_a_default_deny_closes_it() -> None:
    assert allowed([], WEB, DB, 5432)
    assert not allowed([DENY], WEB, DB, 5432)


def test_both_the_egress_and_the_ingress_side_must_admit() -> None:
    egress = policy(
        "web",
        {
            "podSelector": {"matchLabels": {"app": "web"}},
            "policyTypes": ["Egress"],
            "egress": [
                {
                    "to": [{"podSelector": {"matchLabels": {"app": "db"}}}],
                    "ports": [{"protocol": "TCP", "port": 5432}],
                }
            ],
        },
    )
    ingress = policy(
        "db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}]}],
        },
    )

    assert not allowed([DENY, egress], WEB, DB, 5432)
    assert not allowed([DENY, ingress], WEB, DB, 5432)
    assert allowed([DENY, egress, ingress], WEB, DB, 5432)
    assert not allowed([DENY, egress, ingress], WEB, DB, 8000)  # not that port
    assert not allowed([DENY, egress, ingress], DB, WEB, 5432)  # not that way round


def test_a_bare_pod_selector_stays_in_the_policy_namespace() -> None:
    ingress = policy(
        "db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "policyTypes": ["Ingress"],
            "ingress": [
                {"from": [{"podSelector": {}}]},
                {
                    "from": [
                        {
                            "namespaceSelector": {
                                "matchLabels": {"kubernetes.io/metadata.name": "cnpg-system"}
                            }
                        }
                    ],
                    "ports": [{"port": 8000}],
                },
            ],
        },
    )

    assert allowed([ingress], WEB, DB, 5432)
    assert not allowed([ingress], OPERATOR, DB, 5432)
    assert allowed([ingress], OPERATOR, DB, 8000)
    assert not allowed([ingress], Pod("elsewhere", {"app": "web"}), DB, 5432)
