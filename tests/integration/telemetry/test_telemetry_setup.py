"""What setup_telemetry installs from the environment (each case in a fresh interpreter: the
providers are process-global): nothing exported when unset, the console on request."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPT = """
from opentelemetry import trace
from shared.telemetry import prometheus_text, setup_telemetry, shutdown_telemetry, tracer
provider = setup_telemetry("repodigest-probe")
with tracer("probe").start_as_current_span("probe-span"):
    pass
shutdown_telemetry()
print("provider", type(provider).__name__, "prometheus", prometheus_text() is not None)
"""


def run(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "REPODIGEST_"))}
    return subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


@pytest.mark.parametrize(
    "env,provider,console,prometheus",
    [
        ({}, "NoneType", False, True),
        ({"REPODIGEST_OTEL_CONSOLE": "1"}, "ServiceTracerProvider", True, True),
        ({"OTEL_TRACES_EXPORTER": "console"}, "ServiceTracerProvider", True, True),
        ({"OTEL_SDK_DISABLED": "true", "REPODIGEST_OTEL_CONSOLE": "1"}, "NoneType", False, False),
    ],
)
def test_providers_follow_the_environment(env, provider, console, prometheus):
    out = run(**env)
    assert f"provider {provider} prometheus {prometheus}" in out.stdout, out.stderr
    assert ('"name": "probe-span"' in out.stderr) is console, out.stderr
    assert '"service.name": "repodigest-probe"' in out.stderr if console else True
