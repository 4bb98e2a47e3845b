"""The Kubernetes manifests against what a cluster operator enforces (issue 17): the "restricted"
Pod Security level, disruption budgets for the autoscaled deployments, network policies that
open ingress only to the webhook and egress only to what the services talk to, and an image tag
that something builds.

The restricted checks are written from the Kubernetes Pod Security Standards documentation
(concepts/security/pod-security-standards): every Baseline control, then the Restricted ones.
"""

from __future__ import annotations

import copy
import tomllib

import pytest
import yaml

from tests.unit.deploy.test_deploy_files import K8S, ROOT, build

OVERLAYS = ("base", "overlays/production")

# ---------------------------------------------------------------- Pod Security Standards

BASELINE_CAPABILITIES = {
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
}
SAFE_SYSCTLS = {
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
RESTRICTED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}
VOLUME_META = {"name"}


def restricted_violations(pod: dict, annotations: dict | None = None) -> list[str]:
    """What keeps a pod spec from the "restricted" Pod Security level (empty: it passes)."""
    out: list[str] = []
    psc = pod.get("securityContext") or {}
    containers = (
        [("container", c) for c in pod.get("containers", [])]
        + [("initContainer", c) for c in pod.get("initContainers", [])]
        + [("ephemeralContainer", c) for c in pod.get("ephemeralContainers", [])]
    )

    # ---- Baseline
    if (psc.get("windowsOptions") or {}).get("hostProcess"):
        out.append("pod: hostProcess")
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(field):
            out.append(f"pod: {field}")
    for volume in pod.get("volumes", []):
        if "hostPath" in volume:
            out.append(f"volume {volume['name']}: hostPath")
    for key, value in (annotations or {}).items():
        if key.startswith("container.apparmor.security.beta.kubernetes.io/") and not (
            value == "runtime/default" or value.startswith("localhost/")
        ):
            out.append(f"annotation {key}: {value}")
    for where, ctx in [("pod", psc)] + [
        (f"{k} {c['name']}", c.get("securityContext") or {}) for k, c in containers
    ]:
        apparmor = (ctx.get("appArmorProfile") or {}).get("type")
        if apparmor not in (None, "RuntimeDefault", "Localhost"):
            out.append(f"{where}: appArmorProfile {apparmor}")
        selinux = ctx.get("seLinuxOptions") or {}
        if (
            selinux.get("type", "") not in SELINUX_TYPES
            or selinux.get("user")
            or selinux.get("role")
        ):
            out.append(f"{where}: seLinuxOptions {selinux}")
        if (ctx.get("seccompProfile") or {}).get("type") == "Unconfined":
            out.append(f"{where}: seccompProfile Unconfined")
        if ctx.get("runAsUser") == 0:
            out.append(f"{where}: runAsUser 0")
    for sysctl in psc.get("sysctls", []):
        if sysctl["name"] not in SAFE_SYSCTLS:
            out.append(f"pod: sysctl {sysctl['name']}")
    for kind, c in containers:
        where, ctx = f"{kind} {c['name']}", c.get("securityContext") or {}
        if (ctx.get("windowsOptions") or {}).get("hostProcess"):
            out.append(f"{where}: hostProcess")
        if ctx.get("privileged"):
            out.append(f"{where}: privileged")
        added = set((ctx.get("capabilities") or {}).get("add", []))
        if added - BASELINE_CAPABILITIES:
            out.append(f"{where}: adds {sorted(added - BASELINE_CAPABILITIES)}")
        for port in c.get("ports", []):
            if port.get("hostPort"):
                out.append(f"{where}: hostPort {port['hostPort']}")
        if ctx.get("procMount", "Default") != "Default":
            out.append(f"{where}: procMount {ctx['procMount']}")

    # ---- Restricted
    for volume in pod.get("volumes", []):
        kinds = set(volume) - VOLUME_META
        if not kinds <= RESTRICTED_VOLUMES:
            out.append(f"volume {volume['name']}: {sorted(kinds - RESTRICTED_VOLUMES)}")
    pod_nonroot = psc.get("runAsNonRoot") is True
    pod_seccomp = (psc.get("seccompProfile") or {}).get("type")
    for kind, c in containers:
        where, ctx = f"{kind} {c['name']}", c.get("securityContext") or {}
        if ctx.get("allowPrivilegeEscalation") is not False:
            out.append(f"{where}: allowPrivilegeEscalation is not false")
        if ctx.get("runAsNonRoot") is False or not (pod_nonroot or ctx.get("runAsNonRoot") is True):
            out.append(f"{where}: not runAsNonRoot")
        seccomp = (ctx.get("seccompProfile") or {}).get("type") or pod_seccomp
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"{where}: seccompProfile {seccomp} (RuntimeDefault or Localhost)")
        caps = ctx.get("capabilities") or {}
        if "ALL" not in caps.get("drop", []):
            out.append(f"{where}: capabilities.drop lacks ALL")
        if set(caps.get("add", [])) - {"NET_BIND_SERVICE"}:
            out.append(f"{where}: adds {sorted(set(caps['add']) - {'NET_BIND_SERVICE'})}")
    return out


def workloads(overlay: str) -> list[dict]:
    return [
        r
        for r in build(K8S / overlay)
        if r["kind"] in {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}
    ]


def pod_template(resource: dict) -> dict:
    spec = resource["spec"]
    if resource["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_pod_passes_the_restricted_pod_security_level(overlay):
    found = workloads(overlay)
    assert {r["metadata"]["name"] for r in found} >= {
        "ingest",
        "classifier",
        "summarizer",
        "renderer",
        "notifier",
    }
    for resource in found:
        template = pod_template(resource)
        problems = restricted_violations(
            template["spec"], template.get("metadata", {}).get("annotations")
        )
        assert not problems, f"{resource['kind']} {resource['metadata']['name']}: {problems}"


def test_the_namespace_enforces_the_restricted_level():
    (namespace,) = [r for r in build(K8S / "base") if r["kind"] == "Namespace"]
    labels = namespace["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"


def test_the_restricted_check_refuses_what_the_standard_refuses():
    """The checker is no rubber stamp: each control, broken on a passing pod, is caught."""
    good = pod_template(next(r for r in workloads("base") if r["metadata"]["name"] == "renderer"))[
        "spec"
    ]
    assert restricted_violations(good) == []

    def broken(change) -> list[str]:
        pod = copy.deepcopy(good)
        change(pod, pod["containers"][0].setdefault("securityContext", {}))
        return restricted_violations(pod)

    cases = {
        "no drop ALL": lambda p, c: c["capabilities"].update(drop=["NET_RAW"]),
        "adds SYS_ADMIN": lambda p, c: c["capabilities"].update(add=["SYS_ADMIN"]),
        "adds CHOWN": lambda p, c: c["capabilities"].update(add=["CHOWN"]),
        "seccomp unset": lambda p, c: (
            p["securityContext"].pop("seccompProfile", None),
            c.pop("seccompProfile", None),
        ),
        "seccomp Unconfined": lambda p, c: c.update(seccompProfile={"type": "Unconfined"}),
        "escalation": lambda p, c: c.update(allowPrivilegeEscalation=True),
        "root": lambda p, c: c.update(runAsUser=0),
        "runAsNonRoot false": lambda p, c: c.update(runAsNonRoot=False),
        "privileged": lambda p, c: c.update(privileged=True),
        "hostNetwork": lambda p, c: p.update(hostNetwork=True),
        "hostPath": lambda p, c: p["volumes"].append({"name": "h", "hostPath": {"path": "/"}}),
        "nfs volume": lambda p, c: p["volumes"].append(
            {"name": "n", "nfs": {"server": "x", "path": "/"}}
        ),
        "hostPort": lambda p, c: p["containers"][0]["ports"][0].update(hostPort=8080),
        "unsafe sysctl": lambda p, c: p["securityContext"].update(
            sysctls=[{"name": "kernel.msgmax", "value": "1"}]
        ),
        "procMount": lambda p, c: c.update(procMount="Unmasked"),
    }
    for name, change in cases.items():
        assert broken(change), f"the check lets through: {name}"


# ---------------------------------------------------------------- disruption budgets


def test_autoscaled_deployments_have_disruption_budgets_that_allow_a_drain():
    resources = build(K8S / "overlays/production")
    hpas = {
        h["spec"]["scaleTargetRef"]["name"]: h
        for h in resources
        if h["kind"] == "HorizontalPodAutoscaler"
    }
    assert hpas
    deployments = {d["metadata"]["name"]: d for d in resources if d["kind"] == "Deployment"}
    pdbs = [p for p in resources if p["kind"] == "PodDisruptionBudget"]
    for name, hpa in hpas.items():
        labels = deployments[name]["spec"]["template"]["metadata"]["labels"]
        matching = [
            p for p in pdbs if p["spec"]["selector"]["matchLabels"].items() <= labels.items()
        ]
        assert len(matching) == 1, f"{name}: {len(matching)} disruption budgets select its pods"
        spec, floor = matching[0]["spec"], hpa["spec"]["minReplicas"]
        assert floor >= 2
        # at the autoscaler's floor one pod may be evicted (a node drains) and one stays up
        if "minAvailable" in spec:
            assert 1 <= spec["minAvailable"] < floor, spec
        else:
            assert 1 <= spec["maxUnavailable"] < floor, spec


# ---------------------------------------------------------------- network policies

DNS, NATS, POSTGRES, HTTPS, OTLP, WEBHOOK, HEALTH = 53, 4222, 5432, 443, 4318, 8000, 8080
SMTP = {587, 465}  # submission with STARTTLS, and implicit TLS
# what each service talks to: DNS, NATS and the collector all; GitHub (ingest), PostgreSQL
# (summarizer), S3 and the narrator's endpoint (renderer) over HTTPS; webhooks, GitHub and S3
# over HTTPS and mail servers (notifier)
EGRESS = {
    "ingest": {DNS, NATS, OTLP, HTTPS},
    "classifier": {DNS, NATS, OTLP},
    "summarizer": {DNS, NATS, OTLP, POSTGRES},
    "renderer": {DNS, NATS, OTLP, HTTPS},
    "notifier": {DNS, NATS, OTLP, HTTPS, *SMTP},
}


def _selects(policy: dict, labels: dict) -> bool:
    selector = policy["spec"]["podSelector"]
    assert not selector.get("matchExpressions"), "the test reads matchLabels only"
    return selector.get("matchLabels", {}).items() <= labels.items()


def _ports(rule: dict) -> set[int]:
    return {p["port"] for p in rule.get("ports", [])} if rule.get("ports") else {-1}  # -1: all


def _open_to_all(peers: list[dict] | None) -> bool:
    return not peers or any(
        p.get("ipBlock", {}).get("cidr") in {"0.0.0.0/0", "::/0"} and not p["ipBlock"].get("except")
        for p in peers
    )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_deny_by_default_and_open_only_what_each_service_uses(overlay):
    resources = build(K8S / overlay)
    policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
    default = [p for p in policies if p["spec"]["podSelector"] == {}]
    assert default and set(default[0]["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    assert not default[0]["spec"].get("ingress") and not default[0]["spec"].get("egress")
    for deployment in (r for r in resources if r["kind"] in {"Deployment", "StatefulSet"}):
        name = deployment["metadata"]["name"]
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        mine = [p for p in policies if p["spec"]["podSelector"] != {} and _selects(p, labels)]
        ingress = [r for p in mine for r in p["spec"].get("ingress", [])]
        egress = [r for p in mine for r in p["spec"].get("egress", [])]
        # from anywhere: only the webhook endpoint of ingest
        public = set().union(*[_ports(r) for r in ingress if _open_to_all(r.get("from"))])
        assert public == ({WEBHOOK} if name == "ingest" else set()), (name, public)
        # the health port (probes come from the kubelet, which policies do not filter; metrics
        # are scraped from the observability namespace): never from everywhere
        assert set().union(*[_ports(r) for r in ingress]) <= {WEBHOOK, HEALTH}, name
        allowed = set().union(*[_ports(r) for r in egress])
        assert allowed == EGRESS[name], (name, sorted(allowed))
        for rule in egress:  # in-cluster peers are named, only HTTPS leaves the cluster
            if _ports(rule) & {NATS, OTLP}:
                assert all("namespaceSelector" in peer for peer in rule["to"]), (name, rule)
            if _ports(rule) & ({HTTPS} | SMTP):
                blocks = [peer["ipBlock"] for peer in rule["to"]]
                assert blocks and all(
                    {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} <= set(b.get("except", []))
                    for b in blocks
                ), (name, rule)


# ---------------------------------------------------------------- the image


def test_the_production_image_is_the_one_the_documented_build_tags():
    kust = yaml.safe_load((K8S / "overlays/production/kustomization.yaml").read_text())
    (image,) = kust["images"]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert image["newTag"] == version, "the overlay's tag is the project version"
    reference = f"{image['newName']}:{image['newTag']}"
    doc = (K8S / "README.md").read_text()
    assert f"docker build -t {image['newName']}:" in doc and "docker push" in doc
    assert "newTag" in doc and "pyproject.toml" in doc, "how the tag follows the version"
    for resource in build(K8S / "overlays/production"):
        for c in (
            pod_template(resource)["spec"]["containers"]
            if resource["kind"] in {"Deployment", "StatefulSet", "Job", "CronJob"}
            else []
        ):
            assert c["image"] == reference, (resource["metadata"]["name"], c["image"])
