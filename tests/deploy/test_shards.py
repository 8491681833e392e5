"""Each shard's PostgreSQL cluster, as every overlay wires it (issue #18 item 4).

`overlays/shards` puts the event log on three CloudNativePG clusters: `senki-db` (the home
database: placement directory and read models, and shard 0), `senki-shard-1` and
`senki-shard-2`. The other overlays keep every shard on `senki-db`. For every overlay these
tests read where each shard lives from what the pods will see (the kubelet's `$(VAR)`
expansion, tests/deploy/semantics.py) and check that the cluster exists, is highly available
and backed up, that each URL is put together from a Secret of that very cluster, and that the
NetworkPolicies admit exactly the traffic each cluster needs.
"""

from __future__ import annotations

import copy
import json
import os
import re
from typing import Any

import pytest

from tests.deploy.rendered import (
    HOME_CLUSTER,
    OVERLAYS,
    REPO,
    Manifest,
    named,
    of_kind,
    only_container,
    pod_templates,
    render,
)
from tests.deploy.semantics import SECRET_TOKEN, Pod, allowed, expand_env, secret_token

pytestmark = pytest.mark.deploy

SHARDED = "shards"
SERVICE_URL = re.compile(
    r"postgresql://(?P<user>\w+):SECRET\[(?P<secret>[\w.-]+)/password\]"
    r"@(?P<cluster>[\w-]+)-rw:5432/senki"
)
SERVICES = (("Deployment", "senki-api"), ("Deployment", "senki-projector"))
MIGRATION = ("Job", "senki-migrate")


@pytest.fixture(params=OVERLAYS)
def objects(request: pytest.FixtureRequest) -> list[Manifest]:
    return copy.deepcopy(list(render(request.param)))


@pytest.fixture
def sharded() -> list[Manifest]:
    return copy.deepcopy(list(render(SHARDED)))


def config(objects: list[Manifest]) -> dict[str, str]:
    data: dict[str, str] = named(objects, "ConfigMap", "senki-config")["data"]
    return data


def environment(objects: list[Manifest], kind: str, name: str) -> dict[str, str]:
    """The workload's environment as its process sees it (Secrets as SECRET[name/key])."""
    container = only_container(objects, kind, name)
    return expand_env(container, lambda config_map: named(objects, "ConfigMap", config_map)["data"])


def shard_urls(objects: list[Manifest], kind: str, name: str) -> list[str]:
    """Shard i's URL for this workload; with no SENKI_SHARD_URLS every shard is the home URL."""
    env = environment(objects, kind, name)
    if "SENKI_SHARD_URLS" not in env:
        return [env["SENKI_DATABASE_URL"]] * int(config(objects).get("SENKI_SHARDS", "1"))
    urls = json.loads(env["SENKI_SHARD_URLS"])
    assert isinstance(urls, list), urls
    assert all(isinstance(u, str) for u in urls), urls
    return urls


def cluster_of(url: str) -> str:
    match = SERVICE_URL.fullmatch(url)
    assert match, f"not a service-role URL on a cluster's rw Service: {url}"
    return match["cluster"]


def shard_clusters(objects: list[Manifest]) -> list[str]:
    """The Cluster holding each shard, index = shard number (as the API sees it)."""
    return [cluster_of(url) for url in shard_urls(objects, *SERVICES[0])]


def service_secret(cluster: Manifest, role: str) -> str:
    (managed,) = [r for r in cluster["spec"]["managed"]["roles"] if r["name"] == role]
    name: str = managed["passwordSecret"]["name"]
    return name


# --- where each shard lives ---------------------------------------------------------------------


def migrated_clusters(objects: list[Manifest]) -> list[str]:
    """The Cluster the migration Job prepares for each shard, index = shard number."""
    env = environment(objects, *MIGRATION)
    if "SENKI_SHARD_MIGRATION_URLS" not in env:
        return shard_clusters(objects)
    owners = json.loads(env["SENKI_SHARD_MIGRATION_URLS"])
    found = []
    for shard, owner in enumerate(owners):
        match = re.fullmatch(r"SECRET\[([\w-]+)-app/uri\]", owner)
        assert match, f"shard {shard}: not an operator-generated owner URI: {owner}"
        found.append(match[1])
    return found


def test_the_shards_overlay_puts_each_shard_on_a_cluster_of_its_own(
    sharded: list[Manifest],
) -> None:
    clusters = shard_clusters(sharded)

    assert len(clusters) >= 2
    # Shard 0 beside the placement directory, shard N on `senki-shard-N`.
    assert clusters == [HOME_CLUSTER] + [f"senki-shard-{n}" for n in range(1, len(clusters))]
    # The shard count is the list's length; a SENKI_SHARDS beside it would have to agree.
    assert config(sharded).get("SENKI_SHARDS", str(len(clusters))) == str(len(clusters))


def test_the_other_overlays_keep_every_shard_on_the_home_cluster() -> None:
    for overlay in set(OVERLAYS) - {SHARDED}:
        objects = list(render(overlay))
        assert set(shard_clusters(objects)) == {HOME_CLUSTER}, overlay
        assert [c["metadata"]["name"] for c in of_kind(objects, "Cluster")] == [HOME_CLUSTER]


def test_every_cluster_holds_a_shard_and_every_shard_a_cluster(objects: list[Manifest]) -> None:
    clusters = {c["metadata"]["name"] for c in of_kind(objects, "Cluster")}
    served, migrated = shard_clusters(objects), migrated_clusters(objects)

    assert served[0] == HOME_CLUSTER  # shard 0 stays beside the placement directory
    assert set(served) <= clusters, "a shard URL names a cluster that is not deployed"
    assert clusters == set(migrated), "every cluster deployed is migrated, and only those"
    # While a cluster is being added (k8s/README.md) the Job already migrates it and the
    # services do not name it yet: theirs must be the same shards, in the same order, so far.
    assert served == migrated[: len(served)], "the services and the Job disagree on a shard"


# --- each URL from a Secret of the cluster it names ---------------------------------------------


def test_every_service_url_is_built_from_its_own_clusters_secret(objects: list[Manifest]) -> None:
    clusters = {c["metadata"]["name"]: c for c in of_kind(objects, "Cluster")}
    role = config(objects)["SENKI_APP_ROLE"]
    for kind, name in SERVICES:
        env = environment(objects, kind, name)
        # A `$(VAR)` left over names a variable defined later in the list, or nowhere:
        # Kubernetes leaves it in the value, and the URL would be wrong at run time.
        unresolved = {k: v for k, v in env.items() if "$(" in v}
        assert unresolved == {}, f"{name}: references not defined earlier: {unresolved}"
        urls = shard_urls(objects, kind, name)
        # Entry 0 is the home URL character for character: the ledger shares the home pool
        # (and the home database is known as home) only for an equal URL.
        assert urls[0] == env["SENKI_DATABASE_URL"], name
        for shard, url in enumerate(urls):
            match = SERVICE_URL.fullmatch(url)
            assert match, f"{name}: shard {shard}: {url}"
            assert match["user"] == role, f"{name}: shard {shard} connects as {match['user']}"
            cluster = clusters[match["cluster"]]
            assert match["secret"] == service_secret(cluster, role), f"{name}: shard {shard}"


def test_each_cluster_has_a_service_password_of_its_own(sharded: list[Manifest]) -> None:
    role = config(sharded)["SENKI_APP_ROLE"]
    secrets = [service_secret(c, role) for c in of_kind(sharded, "Cluster")]

    assert len(set(secrets)) == len(secrets), "one leaked password must open one cluster only"


def test_the_migration_job_migrates_every_shard_as_its_owner(objects: list[Manifest]) -> None:
    env = environment(objects, *MIGRATION)
    clusters = {c["metadata"]["name"]: c for c in of_kind(objects, "Cluster")}

    unresolved = {k: v for k, v in env.items() if "$(" in v}
    assert unresolved == {}, f"references not defined earlier: {unresolved}"
    home_owner = env["SENKI_MIGRATION_DATABASE_URL"]
    assert home_owner == secret_token(f"{HOME_CLUSTER}-app", "uri")
    if set(shard_clusters(objects)) == {HOME_CLUSTER}:
        assert "SENKI_SHARD_MIGRATION_URLS" not in env  # every shard is in the home database
        return
    owners = json.loads(env["SENKI_SHARD_MIGRATION_URLS"])
    # As for the services: entry 0 equal to the home owner URL is how migrate knows it is home.
    assert owners[0] == home_owner
    home_initdb = clusters[HOME_CLUSTER]["spec"]["bootstrap"]["initdb"]
    for shard, cluster in enumerate(migrated_clusters(objects)):
        # The operator writes `<cluster>-app` for the initdb owner: the same owner everywhere.
        assert clusters[cluster]["spec"]["bootstrap"]["initdb"] == home_initdb, f"shard {shard}"
    # The settings want a shard list of the same length beside the owner list.
    assert len(json.loads(env["SENKI_SHARD_URLS"])) == len(owners)


def test_every_secret_named_is_created_by_the_readme_or_by_the_operator(
    objects: list[Manifest],
) -> None:
    readme = (REPO / "k8s" / "README.md").read_text(encoding="utf-8")
    generated = {
        f"{c['metadata']['name']}-app"
        for c in of_kind(objects, "Cluster")
        if "initdb" in c["spec"].get("bootstrap", {})
    }
    for name in sorted(secrets_named(objects) - generated):
        assert f"create secret generic {name}" in readme, f"k8s/README.md never creates {name}"


def secrets_named(objects: list[Manifest]) -> set[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("secretKeyRef", "passwordSecret") and isinstance(value, dict):
                    found.add(value["name"])
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk([o["spec"] for o in objects if "spec" in o])
    for store in of_kind(objects, "ObjectStore"):
        found |= {c["name"] for c in store["spec"]["configuration"]["s3Credentials"].values()}
    return found


# --- each cluster highly available and backed up ------------------------------------------------


def test_every_shard_cluster_runs_three_instances_with_a_synchronous_standby(
    sharded: list[Manifest],
) -> None:
    for name in shard_clusters(sharded):
        spec = named(sharded, "Cluster", name)["spec"]
        assert spec["instances"] == 3, name
        synchronous = spec["postgresql"]["synchronous"]
        assert synchronous["method"] in ("any", "first"), name
        assert 1 <= synchronous["number"] < spec["instances"], name
        # Writes wait for a standby rather than acknowledge an event only one node holds.
        assert synchronous["dataDurability"] == "required", name
        assert spec["affinity"]["enablePodAntiAffinity"] is True, name
        assert spec["affinity"]["topologyKey"] == "kubernetes.io/hostname", name
        assert spec["affinity"]["podAntiAffinityType"] == "required", name
        (backup,) = [
            b for b in of_kind(sharded, "ScheduledBackup") if b["spec"]["cluster"]["name"] == name
        ]
        assert backup["spec"]["method"] == "plugin", name


def _without_names(obj: Manifest) -> Manifest:
    """A Cluster's spec with what must differ per cluster taken out."""
    spec = copy.deepcopy(obj["spec"])
    spec.pop("description", None)
    for role in spec.get("managed", {}).get("roles", []):
        role.pop("passwordSecret", None)
    for plugin in spec.get("plugins", []):
        plugin.get("parameters", {}).pop("barmanObjectName", None)
    return dict(spec)


def test_shard_clusters_are_shaped_like_the_home_cluster(sharded: list[Manifest]) -> None:
    home = named(sharded, "Cluster", HOME_CLUSTER)
    home_store = barman_store(sharded, home)
    home_backup = schedule_of(sharded, HOME_CLUSTER)["spec"]
    for name in shard_clusters(sharded)[1:]:
        cluster = named(sharded, "Cluster", name)
        # Same owner, service role, sizes, durability and placement: one edit, every cluster.
        assert _without_names(cluster) == _without_names(home), name
        assert barman_store(sharded, cluster)["spec"] == home_store["spec"], name
        backup = schedule_of(sharded, name)["spec"]
        assert {**backup, "cluster": None, "schedule": None} == {
            **home_backup,
            "cluster": None,
            "schedule": None,
        }, name


def barman_store(objects: list[Manifest], cluster: Manifest) -> Manifest:
    (plugin,) = [p for p in cluster["spec"]["plugins"] if p.get("isWALArchiver")]
    return named(objects, "ObjectStore", plugin["parameters"]["barmanObjectName"])


def schedule_of(objects: list[Manifest], cluster: str) -> Manifest:
    (backup,) = [
        b for b in of_kind(objects, "ScheduledBackup") if b["spec"]["cluster"]["name"] == cluster
    ]
    return backup


def test_no_two_clusters_archive_to_the_same_place(objects: list[Manifest]) -> None:
    places = []
    for cluster in of_kind(objects, "Cluster"):
        (plugin,) = [p for p in cluster["spec"]["plugins"] if p.get("isWALArchiver")]
        store = barman_store(objects, cluster)
        # The plugin keeps a cluster's WAL and base backups under destinationPath/serverName.
        server = plugin["parameters"].get("serverName", cluster["metadata"]["name"])
        places.append((store["spec"]["configuration"]["destinationPath"], server))

    assert len(set(places)) == len(places), places


def test_the_daily_backups_do_not_all_start_at_once(sharded: list[Manifest]) -> None:
    schedules = [b["spec"]["schedule"] for b in of_kind(sharded, "ScheduledBackup")]

    assert len(set(schedules)) == len(schedules), schedules


# --- the NetworkPolicies ------------------------------------------------------------------------


def namespace_of(objects: list[Manifest]) -> tuple[str, dict[str, str]]:
    (namespace,) = of_kind(objects, "Namespace")
    return namespace["metadata"]["name"], namespace["metadata"].get("labels", {})


def workload_pods(objects: list[Manifest]) -> dict[str, Pod]:
    name, labels = namespace_of(objects)
    return {
        owner["metadata"]["name"]: Pod(name, template["metadata"]["labels"], labels)
        for owner, template in pod_templates(objects)
    }


def instance(objects: list[Manifest], cluster: str) -> Pod:
    """An instance pod as CloudNativePG labels it."""
    name, labels = namespace_of(objects)
    return Pod(name, {"cnpg.io/cluster": cluster, "cnpg.io/podRole": "instance"}, labels)


OPERATOR = Pod("cnpg-system", {"app.kubernetes.io/name": "cloudnative-pg"})
OBJECT_STORE = Pod("object-store", {"app": "s3"})  # outside the namespace, as a bucket is


def test_network_policies_admit_each_cluster_to_what_it_needs(objects: list[Manifest]) -> None:
    policies = of_kind(objects, "NetworkPolicy")
    namespace, labels = namespace_of(objects)
    workloads = workload_pods(objects)
    assert set(workloads) == {"senki-api", "senki-projector", "senki-migrate"}
    for cluster in sorted({c["metadata"]["name"] for c in of_kind(objects, "Cluster")}):
        database = instance(objects, cluster)
        for workload, pod in workloads.items():
            assert allowed(policies, pod, database, 5432), f"{workload} -> {cluster}:5432"
            assert not allowed(policies, pod, database, 8000), f"{workload} -> {cluster}:8000"
        assert allowed(policies, database, database, 5432), f"{cluster}: replication"
        for port in (5432, 8000):
            assert allowed(policies, OPERATOR, database, port), f"operator -> {cluster}:{port}"
        assert allowed(policies, database, OBJECT_STORE, 443), f"{cluster}: backups"
        stranger = Pod(namespace, {"app.kubernetes.io/name": "stranger"}, labels)
        assert not allowed(policies, stranger, database, 5432), f"a stranger -> {cluster}"


def test_one_clusters_instances_cannot_reach_another(sharded: list[Manifest]) -> None:
    policies = of_kind(sharded, "NetworkPolicy")
    clusters = shard_clusters(sharded)
    for source in clusters:
        for target in clusters:
            if source != target:
                reach = allowed(
                    policies, instance(sharded, source), instance(sharded, target), 5432
                )
                assert not reach, f"{source} -> {target}"


# --- what the settings make of it -------------------------------------------------------------

HEX = "5e" * 32


def as_in_the_pod(value: str) -> str:
    """`value` with each Secret token replaced by a value of the shape that Secret holds."""

    def secret(match: re.Match[str]) -> str:
        name, key = match.groups()
        if key == "uri":  # CloudNativePG's `<cluster>-app`: the owner's URL, host qualified
            return f"postgresql://senki_owner:{HEX}@{name.removesuffix('-app')}-rw.senki:5432/senki"
        return HEX  # passwords and the dice key: hex (k8s/README.md)

    return SECRET_TOKEN.sub(secret, value)


@pytest.mark.parametrize("workload", [*SERVICES, MIGRATION], ids=lambda w: str(w[1]))
def test_the_settings_accept_every_workloads_environment(
    objects: list[Manifest], workload: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from infra.settings import Settings

    if "shard_urls" not in Settings.model_fields:
        pytest.skip("these settings have no SENKI_SHARD_URLS yet (issue #18, helper clusters)")
    env = environment(objects, *workload)
    for name in [n for n in os.environ if n.startswith("SENKI_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        if name.startswith("SENKI_"):
            monkeypatch.setenv(name, as_in_the_pod(value))

    settings = Settings(_env_file=None)

    home = settings.database_url
    assert home is not None
    urls = [u.get_secret_value() for u in settings.shard_urls]
    assert settings.shard_count() == (len(urls) or 1)
    if workload == MIGRATION:
        owners = [u.get_secret_value() for u in settings.shard_migration_urls]
        assert len(owners) == len(urls)
        assert settings.migration_database_url is not None
        assert owners[:1] in ([], [settings.migration_database_url.get_secret_value()])
    else:
        assert urls[:1] in ([], [home.get_secret_value()])
