"""Test harness: a real nats-server per test, the shared data folder, database URLs."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared.events import SummaryData
from shared.natsserver import EmbeddedNats

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
IN_CI = bool(os.environ.get("CI"))
POSTGRES_URL = os.environ.get(
    "REPODIGEST_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def require_shared_data(*parts: str) -> Path:
    """Path inside ../shared/data: skip where it is absent (a fresh clone), fail in CI."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        message = f"{path} is absent: the real recorded data lives beside the repository"
        if IN_CI:
            pytest.fail(message + " (CI must have it)")
        pytest.skip(message)
    return path


@pytest.fixture
def shared_data() -> Path:
    return require_shared_data()


def history_prs() -> dict[int, dict]:
    """The real merged PRs of vllm-project/vllm-ascend with their descriptions, by number
    (../shared/data/vllm-ascend-history/merged_prs_with_bodies.jsonl): skip where absent, fail
    in CI; read once per test session."""
    return _history_prs(require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl"))


@functools.lru_cache(maxsize=1)
def _history_prs(path: Path) -> dict[int, dict]:
    with path.open(encoding="utf-8") as f:
        return {r["pr_number"]: r for r in map(json.loads, f) if r.get("pr_number")}


HISTORY_REPO = "vllm-project/vllm-ascend"


class RealReports:
    """Reports of the real vllm-ascend history (merged_prs_with_bodies.jsonl), written by the CLI
    the way a user runs it (Asia/Shanghai, json and md, zh-CN and en), each window once per test
    session over one ingest of the history: `dir("week:2026-W27")` is that window's r1 folder
    (en/, zh-CN/)."""

    def __init__(self, root: Path) -> None:
        self.out = root / "out"
        self.data = root / "data"  # one ingest of the history for every window
        self.done: dict[str, Path] = {}

    def dir(self, window: str) -> Path:
        if window not in self.done:
            history = require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl")
            # fmt: off
            args = [
                sys.executable, "-m", "repodigest.cli", "report", HISTORY_REPO,
                "--window", window, "--tz", "Asia/Shanghai", "--source", f"replay:{history}",
                "--formats", "json,md", "--lang", "zh-CN,en",
                "--out", str(self.out), "--data-dir", str(self.data), "--quiet",
            ]
            # fmt: on
            done = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=ROOT)
            assert done.returncode == 0, done.stderr[-2000:]
            label = window.split(":", 1)[1]
            self.done[window] = self.out / HISTORY_REPO.replace("/", "__") / label / "r1"
        return self.done[window]

    def md(self, window: str, lang: str) -> str:
        return (self.dir(window) / lang / "report.md").read_text(encoding="utf-8")


def summary_of(path: Path) -> SummaryData:
    """The SummaryData a report.json holds (the artifact adds fields of its own)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return SummaryData.model_validate(
        {k: v for k, v in raw.items() if k in SummaryData.model_fields}
    )


@pytest.fixture(scope="session")
def real_reports(tmp_path_factory) -> RealReports:
    return RealReports(tmp_path_factory.mktemp("real-reports"))


@pytest.fixture
async def nats_server(tmp_path):
    """A real `nats-server -js` on a free port with its own store; stoppable and killable."""
    server = EmbeddedNats(store_dir=tmp_path / "nats")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def postgres_available() -> str | None:
    try:
        import sqlalchemy as sa

        engine = sa.create_engine(POSTGRES_URL)
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
        return None
    except Exception as exc:  # noqa: BLE001 - turned into a skip / failure reason
        return f"PostgreSQL at {POSTGRES_URL} is not reachable: {type(exc).__name__}"


@pytest.fixture
def postgres_schema():
    """A fresh PostgreSQL schema for one test, dropped after it (skipped where PostgreSQL is not
    running, a failure in CI)."""
    problem = postgres_available()
    if problem:
        if IN_CI:
            pytest.fail(problem)
        pytest.skip(problem)
    import uuid

    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(POSTGRES_URL)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f'create schema "{schema}"'))
        yield schema
        with engine.begin() as conn:
            conn.execute(sa.text(f'drop schema "{schema}" cascade'))
    finally:
        engine.dispose()


def postgres_url_for(schema: str) -> str:
    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request, tmp_path) -> str:
    """One test body, two databases: a SQLite file and PostgreSQL (a fresh schema per test)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'projections.db'}"
    return postgres_url_for(request.getfixturevalue("postgres_schema"))


@pytest.fixture
def finished_spans():
    """An in-memory exporter on the process's SDK tracer provider (installed once if absent)."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from shared.telemetry import new_tracer_provider

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        # the kind setup_telemetry installs: each service's spans carry its own service.name
        trace.set_tracer_provider(new_tracer_provider("repodigest-test"))
        provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider), "another library installed a foreign provider"
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()  # spans of later tests are not kept


@pytest.fixture(scope="module")
def moto_s3():
    """A real S3 API over HTTP on a free port (moto's threaded server); yields its endpoint URL."""
    from moto.server import ThreadedMotoServer

    # port 0: a port of its own (one found free first could be taken before moto binds it,
    # and moto's start() then waits for ever)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    finally:
        server.stop()
