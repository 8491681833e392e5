"""k8s/ renders, validates against the Kubernetes and CloudNativePG schemas, and keeps policy.

Every overlay is rendered offline (tests/deploy/kustomize.py). Core objects are checked with
`kubernetes-validate` (strict: unknown fields are errors) for KUBERNETES_VERSION; the
CloudNativePG and Barman Cloud plugin resources with `jsonschema` against the CRD schemas
vendored in tests/deploy/schemas (source and licence in its README), so a clone passes this
suite with nothing beside it. Then the properties the deployment relies on are asserted one
by one.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest

from tests.deploy.rendered import (
    HOME_CLUSTER,
    OVERLAYS,
    Manifest,
    containers,
    env_of,
    named,
    of_kind,
    pod_templates,
    render,
)

SCHEMAS = Path(__file__).resolve().parent / "schemas"
KUBERNETES_VERSION = "1.33"
CLUSTER = HOME_CLUSTER
BARMAN_PLUGIN = "barman-cloud.cloudnative-pg.io"
# Kinds no schema is available for offline; each is checked by its own test below.
UNSCHEMED_KINDS = frozenset({"PodMonitor"})

pytestmark = [pytest.mark.deploy]


@pytest.fixture(params=OVERLAYS)
def overlay(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def objects(overlay: str) -> list[Manifest]:
    return copy.deepcopy(list(render(overlay)))


def is_custom(obj: Manifest) -> bool:
    group = obj["apiVersion"].rpartition("/")[0]
    return "." in group and not group.endswith(".k8s.io")


def crd_schema_path(obj: Manifest) -> Path:
    group, _, version = obj["apiVersion"].rpartition("/")
    return SCHEMAS / group / f"{obj['kind'].lower()}_{version}.json"


@cache
def _load_schema(path: Path) -> Manifest:
    schema: Manifest = json.loads(path.read_text(encoding="utf-8"))
    return schema


def crd_errors(obj: Manifest) -> list[str]:
    """Every violation of the resource's CRD schema, as readable lines."""
    schema = _load_schema(crd_schema_path(obj))
    validator_class = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
    validator = validator_class(schema)
    return [
        f"{'.'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in validator.iter_errors(obj)
    ]


# --- schemas ----------------------------------------------------------------------------------


def test_every_core_object_is_valid_kubernetes(objects: list[Manifest]) -> None:
    core = [o for o in objects if not is_custom(o)]
    assert core
    for obj in core:
        try:
            kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{obj['kind']}/{obj['metadata']['name']}: {error}")


def test_every_custom_resource_matches_its_crd_schema(objects: list[Manifest]) -> None:
    custom = [o for o in objects if is_custom(o) and o["kind"] not in UNSCHEMED_KINDS]
    assert {o["kind"] for o in custom} == {"Cluster", "ObjectStore", "ScheduledBackup"}
    for obj in custom:
        assert crd_schema_path(obj).is_file(), f"no schema for {obj['apiVersion']} {obj['kind']}"
        assert crd_errors(obj) == [], f"{obj['kind']}/{obj['metadata']['name']}"


def test_a_misspelled_cluster_field_fails_validation() -> None:
    cluster = named(copy.deepcopy(list(render("prod"))), "Cluster", CLUSTER)
    cluster["spec"]["walStorge"] = cluster["spec"].pop("walStorage")
    cluster["spec"]["postgresql"]["synchronous"]["methd"] = "any"

    errors = crd_errors(cluster)

    assert any("'walStorge' was unexpected" in e for e in errors), errors
    assert any("'methd' was unexpected" in e for e in errors), errors


def test_a_missing_required_cluster_field_fails_validation() -> None:
    cluster = named(copy.deepcopy(list(render("prod"))), "Cluster", CLUSTER)
    del cluster["spec"]["instances"]
    del cluster["spec"]["postgresql"]["synchronous"]["number"]

    errors = crd_errors(cluster)

    assert any("'instances' is a required property" in e for e in errors), errors
    assert any("'number' is a required property" in e for e in errors), errors


def test_a_misspelled_core_field_fails_validation() -> None:
    deployment = named(copy.deepcopy(list(render("prod"))), "Deployment", "senki-api")
    deployment["spec"]["replica"] = deployment["spec"].pop("replicas")

    with pytest.raises(kubernetes_validate.ValidationError, match="'replica' was unexpected"):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


# --- the database -----------------------------------------------------------------------------


def test_production_runs_three_instances_with_a_synchronous_standby() -> None:
    spec = named(list(render("prod")), "Cluster", CLUSTER)["spec"]

    assert spec["instances"] == 3
    synchronous = spec["postgresql"]["synchronous"]
    assert synchronous["method"] in ("any", "first")
    assert 1 <= synchronous["number"] < spec["instances"]
    assert spec["affinity"]["enablePodAntiAffinity"] is True
    assert spec["affinity"]["topologyKey"] == "kubernetes.io/hostname"
    assert spec["affinity"]["podAntiAffinityType"] == "required"


def test_every_cluster_keeps_wal_apart_and_backs_up_through_the_plugin(
    objects: list[Manifest],
) -> None:
    clusters = of_kind(objects, "Cluster")
    assert CLUSTER in {c["metadata"]["name"] for c in clusters}
    schedules = of_kind(objects, "ScheduledBackup")
    for cluster in clusters:
        name, spec = cluster["metadata"]["name"], cluster["spec"]
        assert spec["walStorage"]["size"], name
        assert spec["storage"]["size"], name
        synchronous = spec.get("postgresql", {}).get("synchronous")
        assert synchronous is None or synchronous["number"] < spec["instances"], name

        (plugin,) = [p for p in spec["plugins"] if p["name"] == BARMAN_PLUGIN]
        assert plugin["isWALArchiver"] is True, name
        store = named(objects, "ObjectStore", plugin["parameters"]["barmanObjectName"])
        assert store["apiVersion"] == "barmancloud.cnpg.io/v1"
        for credential in store["spec"]["configuration"]["s3Credentials"].values():
            assert set(credential) == {"name", "key"}, "object store credentials by reference only"

        (backup,) = [b for b in schedules if b["spec"]["cluster"]["name"] == name]
        assert backup["spec"]["method"] == "plugin", name
        assert backup["spec"]["pluginConfiguration"]["name"] == BARMAN_PLUGIN, name
        # CloudNativePG's schedules have six fields, seconds first.
        assert len(backup["spec"]["schedule"].split()) == 6, name
    assert len(schedules) == len(clusters), "a ScheduledBackup for a Cluster that does not exist"


def test_the_service_role_is_low_privilege_and_the_owner_is_separate(
    objects: list[Manifest],
) -> None:
    spec = named(objects, "Cluster", CLUSTER)["spec"]
    config = named(objects, "ConfigMap", "senki-config")["data"]
    (role,) = [r for r in spec["managed"]["roles"] if r["name"] == config["SENKI_APP_ROLE"]]

    assert role["login"] is True
    assert role["ensure"] == "present"
    for privilege in ("superuser", "createdb", "createrole", "replication", "bypassrls"):
        assert role[privilege] is False, privilege
    assert role["passwordSecret"]["name"]
    initdb = spec["bootstrap"]["initdb"]
    assert initdb["owner"] != role["name"]
    assert initdb["database"] == "senki"
    assert spec["enableSuperuserAccess"] is False


# --- the workloads ----------------------------------------------------------------------------


def test_long_running_workloads_roll_without_losing_capacity(objects: list[Manifest]) -> None:
    deployments = of_kind(objects, "Deployment")
    assert {d["metadata"]["name"] for d in deployments} == {"senki-api", "senki-projector"}
    for deployment in deployments:
        spec = deployment["spec"]
        assert spec["replicas"] >= 2, deployment["metadata"]["name"]
        assert spec["strategy"]["type"] == "RollingUpdate"
        assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_every_container_has_resources(objects: list[Manifest]) -> None:
    for _, template in pod_templates(objects):
        for container in containers(template["spec"]):
            resources = container["resources"]
            assert resources["requests"]["cpu"]
            assert resources["requests"]["memory"]
            assert resources["limits"]["memory"]


def test_the_api_probes_liveness_and_readiness_separately(objects: list[Manifest]) -> None:
    pod = named(objects, "Deployment", "senki-api")["spec"]["template"]["spec"]
    (api,) = pod["containers"]
    ports = {p["name"]: p["containerPort"] for p in api["ports"]}

    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert api["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert api["startupProbe"]["httpGet"]["path"] == "/healthz"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert api[probe]["httpGet"]["port"] in ports
    assert api["args"][0] == "serve"
    assert ports[api["livenessProbe"]["httpGet"]["port"]] == int(api["args"][-1])
    keys = {c["topologyKey"] for c in pod["topologySpreadConstraints"]}
    assert "kubernetes.io/hostname" in keys


def test_the_api_is_served_scaled_and_protected_from_disruption(objects: list[Manifest]) -> None:
    deployment = named(objects, "Deployment", "senki-api")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    port_names = {
        p["name"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
    }

    service = named(objects, "Service", "senki-api")
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= port_names

    hpa = named(objects, "HorizontalPodAutoscaler", "senki-api")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "senki-api",
    }
    assert 2 <= hpa["spec"]["minReplicas"] <= deployment["spec"]["replicas"]
    assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]

    pdb = named(objects, "PodDisruptionBudget", "senki-api")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()


def test_the_projector_runs_active_and_standby_with_a_health_port(objects: list[Manifest]) -> None:
    deployment = named(objects, "Deployment", "senki-projector")
    (projector,) = deployment["spec"]["template"]["spec"]["containers"]
    args = projector["args"]
    ports = {p["name"]: p["containerPort"] for p in projector["ports"]}

    assert deployment["spec"]["replicas"] == 2
    assert args[0] == "project"
    health_port = int(args[args.index("--health-port") + 1])
    assert ports == {"health": health_port}
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert projector[probe]["httpGet"] == {"path": "/healthz", "port": "health"}


def test_the_projector_has_two_lanes_and_room_for_them(objects: list[Manifest]) -> None:
    deployment = named(objects, "Deployment", "senki-projector")
    (projector,) = deployment["spec"]["template"]["spec"]["containers"]
    args = projector["args"]

    assert int(args[args.index("--lanes") + 1]) == 2
    assert "cpu" not in projector["resources"]["limits"]  # a catch-up bursts on two cores


def test_the_migration_job_runs_as_the_owner(objects: list[Manifest]) -> None:
    (job,) = of_kind(objects, "Job")
    (migrate,) = job["spec"]["template"]["spec"]["containers"]
    env = env_of(migrate)

    assert migrate["args"] == ["db", "migrate"]
    owner_secret = env["SENKI_MIGRATION_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    assert owner_secret == {"name": f"{CLUSTER}-app", "key": "uri"}
    assert job["spec"]["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure")


def test_services_write_with_the_service_role_on_the_rw_service(objects: list[Manifest]) -> None:
    cluster = named(objects, "Cluster", CLUSTER)["spec"]
    service_secrets = {r["passwordSecret"]["name"] for r in cluster["managed"]["roles"]}
    for name in ("senki-api", "senki-projector"):
        (container,) = named(objects, "Deployment", name)["spec"]["template"]["spec"]["containers"]
        env = env_of(container)
        url = env["SENKI_DATABASE_URL"]["value"]
        match = re.fullmatch(r"postgresql://(\w+):\$\((\w+)\)@([\w.-]+):5432/senki", url)
        assert match, url
        user, password_variable, host = match.groups()
        assert host == f"{CLUSTER}-rw"
        assert user == named(objects, "ConfigMap", "senki-config")["data"]["SENKI_APP_ROLE"]
        reference = env[password_variable]["valueFrom"]["secretKeyRef"]
        assert reference["name"] in service_secrets
        # Kubernetes expands $(VAR) only from variables defined earlier in the list.
        names = [e["name"] for e in container["env"]]
        assert names.index(password_variable) < names.index("SENKI_DATABASE_URL")


# --- security ---------------------------------------------------------------------------------


def test_every_pod_meets_the_restricted_pod_security_profile(objects: list[Manifest]) -> None:
    templates = list(pod_templates(objects))
    assert len(templates) == 3
    for owner, template in templates:
        pod = template["spec"]
        where = f"{owner['kind']}/{owner['metadata']['name']}"
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert pod["securityContext"]["runAsUser"] != 0, where
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", where
        assert pod["automountServiceAccountToken"] is False, where
        for host_namespace in ("hostNetwork", "hostPID", "hostIPC"):
            assert not pod.get(host_namespace), where
        volumes = {v["name"]: v for v in pod["volumes"]}
        for volume in volumes.values():
            assert set(volume) - {"name"} <= {"emptyDir", "configMap", "secret", "projected"}
        for container in containers(pod):
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["readOnlyRootFilesystem"] is True, where
            assert context["capabilities"]["drop"] == ["ALL"], where
            assert "add" not in context["capabilities"], where
            assert not context.get("privileged"), where
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            data_dir = named(objects, "ConfigMap", "senki-config")["data"]["SENKI_DATA_DIR"]
            for writable in ("/tmp", data_dir):
                assert "emptyDir" in volumes[mounts[writable]], f"{where}: {writable}"


def test_namespaces_enforce_the_restricted_profile(objects: list[Manifest]) -> None:
    (namespace,) = of_kind(objects, "Namespace")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    namespaced = [o for o in objects if o["kind"] != "Namespace"]
    assert {o["metadata"]["namespace"] for o in namespaced} == {namespace["metadata"]["name"]}


SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|KEY|_URL", re.IGNORECASE)


def test_no_secret_value_is_written_down(objects: list[Manifest]) -> None:
    assert of_kind(objects, "Secret") == [], "Secrets are created by the operator or by hand"
    for key in named(objects, "ConfigMap", "senki-config")["data"]:
        assert not SECRET_NAME.search(key), key
    for owner, template in pod_templates(objects):
        for container in containers(template["spec"]):
            for entry in container.get("env", []):
                where = f"{owner['metadata']['name']}: {entry['name']}"
                if "value" not in entry:
                    assert "valueFrom" in entry, where
                    continue
                value = entry["value"]
                assert not SECRET_NAME.search(entry["name"]) or "_URL" in entry["name"], where
                credentials = re.search(r"://[^:/@]+:([^@]*)@", value)
                if credentials:
                    assert re.fullmatch(r"\$\(\w+\)", credentials.group(1)), where
            dice = env_of(container)["SENKI_DICE_MASTER_KEY"]
            assert dice["valueFrom"]["secretKeyRef"] == {"name": "senki-dice", "key": "master-key"}


def test_network_policies_deny_by_default(objects: list[Manifest]) -> None:
    policies = of_kind(objects, "NetworkPolicy")
    default_deny = [
        p
        for p in policies
        if p["spec"]["podSelector"] == {}
        and set(p["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        and "ingress" not in p["spec"]
        and "egress" not in p["spec"]
    ]
    assert default_deny, "a policy selecting every pod with no rule denies all traffic"
    for policy in policies:
        if policy["spec"]["podSelector"] == {}:
            assert "ingress" not in policy["spec"], "no namespace-wide ingress allowance"


def test_only_senki_workloads_reach_postgresql(objects: list[Manifest]) -> None:
    db_selector = {"cnpg.io/cluster": CLUSTER}
    (policy,) = [
        p
        for p in of_kind(objects, "NetworkPolicy")
        if p["spec"]["podSelector"].get("matchLabels") == db_selector
    ]
    in_namespace = [
        rule
        for rule in policy["spec"]["ingress"]
        if all("namespaceSelector" not in peer for peer in rule["from"])
    ]
    (postgres_rule,) = in_namespace
    assert [p["port"] for p in postgres_rule["ports"]] == [5432]
    (workloads, peers) = postgres_rule["from"]
    (components,) = workloads["podSelector"]["matchExpressions"]
    assert components["key"] == "app.kubernetes.io/component"
    assert set(components["values"]) == {"api", "projector", "migrate"}
    assert peers == {"podSelector": {"matchLabels": db_selector}}  # replication between instances

    api = named(objects, "NetworkPolicy", "senki-api")["spec"]
    (ingress, metrics) = api["ingress"]
    assert "from" not in ingress
    assert [p["port"] for p in ingress["ports"]] == [8000]
    (monitoring,) = metrics["from"]
    assert set(monitoring) == {"namespaceSelector"}  # Prometheus only, not the world
    assert [p["port"] for p in metrics["ports"]] == [9102]
    assert [p["port"] for rule in api["egress"] for p in rule["ports"]] == [5432]


def test_the_pod_monitor_scrapes_the_api_metrics() -> None:
    objects = list(render("prod"))
    monitor = named(objects, "PodMonitor", "senki-api")
    deployment = named(objects, "Deployment", "senki-api")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    port_names = {
        p["name"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
    }

    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(monitor["spec"]) == {"selector", "podMetricsEndpoints"}
    assert monitor["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    assert endpoint["port"] in port_names
    assert endpoint["path"] == "/metrics"
