"""The Kubernetes CronJob's container run against a deployment (issue #19 item 3).

deploy/kubernetes/base/report-cronjob.yaml, built as the production overlay, gives the command,
its arguments and its environment (the ConfigMap, the Secrets by reference); here they run
against what a cluster provides: a nats-server that requires the login of the Secret
`repodigest-nats`, the classifier, summarizer and renderer as the deployment runs them
(`repodigest serve`) storing artifacts in S3 (moto's real S3 API, the ConfigMap's bucket), and
the GitHub emulator serving recorded pull requests as `vllm-project/vllm`, copied into the last
complete week. The only rewrites are what the pod would see differently: the cluster's addresses
(NATS, S3, GitHub) and `/tmp`, the pod's emptyDir, as a directory of the test."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from datetime import timedelta

import pytest

from shared.natsserver import EmbeddedNats
from shared.windows import parse_window
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator
from tests.integration.ingest_github.test_github_sync import FILES
from tests.unit.deploy.test_deploy_files import K8S, build

pytestmark = [pytest.mark.shared_data, pytest.mark.timeout(600)]

CLI = [sys.executable, "-m", "repodigest"]
SECRETS = {
    ("repodigest-nats", "user"): "repodigest",
    ("repodigest-nats", "password"): "nats-password-of-the-cronjob-test",
    ("repodigest-s3", "access-key-id"): "cronjob-test-key",
    ("repodigest-s3", "secret-access-key"): "cronjob-test-secret",
}
PULLS = 6


def cronjob() -> tuple[dict, dict, dict]:
    resources = build(K8S / "overlays/production")
    (cron,) = [r for r in resources if r["kind"] == "CronJob"]
    config = next(r for r in resources if r["metadata"]["name"] == "repodigest-config")
    (container,) = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    return cron, container, config["data"]


def pod_env(container: dict, configmap: dict, secrets: dict, cluster: dict) -> dict[str, str]:
    """The container's environment as the kubelet makes it (envFrom, then env; secretKeyRef
    resolved), with the cluster's addresses in place of the in-cluster names."""
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        assert source["configMapRef"]["name"] == "repodigest-config"
        env |= configmap
    for entry in container.get("env", []):
        if "value" in entry:
            env[entry["name"]] = entry["value"]
        else:
            ref = entry["valueFrom"]["secretKeyRef"]
            env[entry["name"]] = secrets[(ref["name"], ref["key"])]
    return env | cluster


def in_pod(path: str, tmp: str) -> str:
    """A path of the pod's only writable mount, /tmp, as the test's directory."""
    return re.sub(r"^/tmp(?=/|$)", tmp, path)


@pytest.fixture
def github():
    files = [require_shared_data("github-rest-replay", f) for f in FILES]
    with GithubEmulator(files) as gh:
        last_week = parse_window("week:last", "UTC")
        # recorded pull requests as the CronJob's repository, opened (and merged) last week
        gh.synthesize_pulls("vllm-project/vllm", PULLS, start=last_week.start + timedelta(days=1))
        yield gh, last_week


async def test_the_cronjob_reports_last_week_through_the_deployed_services(
    github, moto_s3, tmp_path
):
    import boto3

    gh, last_week = github
    secrets = {**SECRETS, ("repodigest-github", "token"): gh.token}
    cron, container, configmap = cronjob()
    bucket = re.match(r"s3://([^/]+)", configmap["REPODIGEST_ARTIFACTS_URL"]).group(1)
    s3_env = {"AWS_ENDPOINT_URL": moto_s3, "AWS_DEFAULT_REGION": "us-east-1"}
    boto3.client(
        "s3",
        endpoint_url=moto_s3,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="y",
    ).create_bucket(Bucket=bucket)

    # the rules ConfigMap's mount (configMapGenerator: README.txt, no profile of its own)
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    for name in ("README.txt",):
        (profiles / name).write_text((K8S / "base" / "rules" / name).read_text())

    nats = EmbeddedNats(
        store_dir=tmp_path / "nats",
        user=SECRETS[("repodigest-nats", "user")],
        password=SECRETS[("repodigest-nats", "password")],
    )
    await nats.start()
    # nothing but the cluster's own: no variable of this machine's repodigest or GitHub
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("REPODIGEST_", "OTEL_", "AWS_")) and k != "GITHUB_TOKEN"
    }
    # the cluster's addresses; one nats-server here, where the chart runs three (streams of
    # three replicas); no collector
    cluster = {
        "REPODIGEST_NATS_URL": nats.url,
        **s3_env,
        "REPODIGEST_JETSTREAM_REPLICAS": "1",
        "OTEL_SDK_DISABLED": "true",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "",
    }
    services = None
    try:
        # the deployment: classifier, summarizer and renderer, with the ConfigMap's object store
        service_env = {
            **base,
            **configmap,
            **cluster,
            "REPODIGEST_NATS_USER": SECRETS[("repodigest-nats", "user")],
            "REPODIGEST_NATS_PASSWORD": SECRETS[("repodigest-nats", "password")],
            "AWS_ACCESS_KEY_ID": SECRETS[("repodigest-s3", "access-key-id")],
            "AWS_SECRET_ACCESS_KEY": SECRETS[("repodigest-s3", "secret-access-key")],
            "REPODIGEST_DATABASE_URL": f"sqlite:///{tmp_path / 'projections.db'}",
            "REPODIGEST_HEALTH_PORT": "0",
            "REPODIGEST_LOG_LEVEL": "INFO",
            "REPODIGEST_LOG_JSON": "false",
            "REPODIGEST_PROFILES_DIR": str(profiles),
        }
        services = await asyncio.create_subprocess_exec(
            *CLI,
            "serve",
            "classifier",
            "summarizer",
            "renderer",
            env=service_env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        said: list[str] = []
        while not said or not re.search(r"started .*renderer", said[-1]):
            raw = await asyncio.wait_for(services.stdout.readline(), 120)
            assert raw, "the services exited:\n" + "\n".join(said)
            said.append(raw.decode(errors="replace").rstrip())

        async def run_the_job(name: str) -> tuple[subprocess.CompletedProcess, list]:
            tmp = str(tmp_path / name)  # the pod's emptyDir at /tmp
            env = {
                **base,
                **pod_env(container, configmap, secrets, cluster),
                "REPODIGEST_GITHUB_API_URL": gh.base_url,
                "TMPDIR": tmp,
            }
            env["REPODIGEST_PROFILES_DIR"] = str(profiles)
            command = container["command"] + [in_pod(a, tmp) for a in container["args"]]
            assert command[:2] == ["repodigest", "report"]
            seen = len(gh.seen)
            os.makedirs(tmp, exist_ok=True)
            result = await asyncio.to_thread(
                subprocess.run,
                CLI + command[1:],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            return result, [(s.path, s.status) for s in gh.seen[seen:]]

        # the first run: the sync fetches last week's pull requests, the deployment reports
        result, requests = await run_the_job("job-1")
        assert result.returncode == 0, result.stdout + result.stderr
        out = result.stdout
        assert f"vllm-project/vllm week {last_week.label} (UTC), revision 1" in out, out
        for (_, key), secret in secrets.items():  # the user names are not secret
            if key in ("password", "token", "secret-access-key"):
                assert secret not in out + result.stderr, key
        uris = re.findall(r"(s3://\S+)\s+sha256:", out)
        formats = container["args"][container["args"].index("--formats") + 1].split(",")
        langs = container["args"][container["args"].index("--lang") + 1].split(",")
        assert len(uris) == len(formats) * len(langs)
        assert all(
            u.startswith(f"s3://{bucket}/") and f"/vllm-project/vllm/{last_week.label}/r1/" in u
            for u in uris
        ), uris
        # the renderer stored them in S3, and the job copied them into its emptyDir
        stored = boto3.client(
            "s3",
            endpoint_url=moto_s3,
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="y",
        ).list_objects_v2(Bucket=bucket)["Contents"]
        assert {f"s3://{bucket}/{o['Key']}" for o in stored} >= set(uris)
        (report,) = (tmp_path / "job-1").rglob("en/report.json")
        counts = json.loads(report.read_text())["counts"]
        merged = sum(1 for pr in gh.body("/repos/vllm-project/vllm/pulls") if pr.get("merged_at"))
        assert counts["new_prs"] == PULLS and counts["merged_prs"] == merged
        assert ("/repos/vllm-project/vllm/pulls", 200) in requests

        # the next run: the KV state the sync keeps in the deployment's NATS makes an unchanged
        # repository four 304s, and the unchanged week is answered with its revision
        spent = gh.quota_used
        result, requests = await run_the_job("job-2")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "revision 1" in result.stdout
        assert gh.quota_used == spent and requests and all(s == 304 for _, s in requests), requests
        assert len(requests) == 4
    finally:
        if services is not None and services.returncode is None:
            services.terminate()
            await asyncio.wait_for(services.communicate(), 60)
        await nats.stop()
