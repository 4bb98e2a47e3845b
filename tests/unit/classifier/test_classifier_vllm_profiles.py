"""The `vllm` and `vllm-ascend` profiles: what each adds to the shared `llm-serving` base, and that
the base itself no longer carries one repository's specifics."""

from __future__ import annotations

import pytest

from .factory import builtin, item, names

CASES = [
    # (profile, title, files, expected first modules in order, rule of the first)
    ("vllm", "[Rust] Add a Rust frontend for tokenization", [], ["rust-frontend"], "title-prefix"),
    ("vllm", "Refactor the tokenizer bindings", ["rust/src/lib.rs"], ["rust-frontend"], "files"),
    ("vllm", "[Deprecation] Remove --disable-log-requests", [], ["deprecation"], "title-prefix"),
    (
        "vllm",
        "[Core] Remove the V0 engine and its tests",
        ["vllm/engine/llm_engine.py"],
        ["scheduler/core", "deprecation"],
        "title-prefix",
    ),
    (
        "vllm",
        "[Frontend] Support embeddings API for Qwen3 reranker",
        [],
        ["frontend/openai-api", "pooling"],
        "title-prefix",
    ),
    ("vllm", "[Metrics] Add prometheus histogram for TTFT", [], ["observability"], "title-prefix"),
    (
        "vllm",
        "[Bugfix] Fix hermes tool parser streaming",
        ["vllm/tool_parsers/hermes_tool_parser.py"],
        ["tool-calling"],
        "keyword",
    ),
    (
        "vllm",
        "[Model] Add reasoning parser for MiniMax",
        [],
        ["models", "tool-calling"],
        "title-prefix",
    ),
    (
        "vllm",
        "[V1][Scheduler] Preempt",
        ["vllm/v1/core/sched/scheduler.py"],
        ["v1-engine", "scheduler/core"],
        "title-prefix",
    ),
    ("vllm", "[KV Connector] NIXL handshake", [], ["kv-transfer"], "title-prefix"),
    ("vllm", "[ROCm] AITER MLA", [], ["rocm"], "title-prefix"),
    ("vllm", "[torch.compile] fusion pass", [], ["compilation/graphs"], "title-prefix"),
    ("vllm-ascend", "[BugFix][xlite] Fix DP metadata", [], ["xlite"], "title-prefix"),
    ("vllm-ascend", "[Feature] Xlite MiniMaxM2 Support", [], ["xlite"], "keyword"),
    (
        "vllm-ascend",
        "[CI] main2main vllm 0814 cdc4824",
        [".github/workflows/x.yaml"],
        ["ci/build", "upstream-sync"],
        "title-prefix",
    ),
    (
        "vllm-ascend",
        "[310P] Fix attention",
        [],
        ["platform/ascend-310p", "attention"],
        "title-prefix",
    ),
    (
        "vllm-ascend",
        "[Bugfix] use truthy check for enforce_eager",
        ["vllm_ascend/ascend_config.py"],
        ["config"],
        "files",
    ),
    (
        "vllm-ascend",
        "[Profiler][Misc] Update AI Core metrics",
        [],
        ["observability"],
        "title-prefix",
    ),
    (
        "vllm-ascend",
        "Keep the upstream behaviour",
        ["vllm_ascend/patch/worker/patch_sampler.py"],
        ["patches"],
        "files",
    ),
    ("vllm-ascend", "[P/D] mooncake connector", [], ["kv-transfer"], "title-prefix"),
]


@pytest.mark.parametrize(
    "profile,title,files,expected,how", CASES, ids=[f"{c[0]}|{c[1][:40]}" for c in CASES]
)
def test_repository_specific_modules(profile, title, files, expected, how):
    tags = builtin(profile).classify(item(title, files))
    assert names(tags.modules)[: len(expected)] == expected
    assert tags.modules[0].rule == f"module:{expected[0]}/{how}" and not tags.modules[0].fallback


@pytest.mark.parametrize(
    "module,profile",
    [
        ("xlite", "vllm-ascend"),
        ("platform/ascend-310p", "vllm-ascend"),
        ("upstream-sync", "vllm-ascend"),
        ("patches", "vllm-ascend"),
        ("rust-frontend", "vllm"),
        ("deprecation", "vllm"),
        ("pooling", "vllm"),
    ],
)
def test_specific_modules_live_in_their_repository_profile(module, profile):
    base = {n for n, _ in builtin("llm-serving").modules}
    assert module not in base
    assert module in {n for n, _ in builtin(profile).modules}


def test_both_extend_the_shared_base_and_keep_its_modules():
    from services.classifier.adapters.profiles import read_profiles

    base = [n for n, _ in builtin("llm-serving").modules]
    raws = read_profiles()
    for profile in ("vllm", "vllm-ascend"):
        rs = builtin(profile)
        assert rs.profile.extends == "llm-serving"
        own = {r["name"] for r in raws[profile][1].get("modules", [])}  # defined or redefined here
        mine = [n for n, _ in rs.modules]
        assert set(base) <= set(mine)
        assert [n for n in mine if n in base and n not in own] == [n for n in base if n not in own]
    assert builtin("vllm").ref.version != builtin("vllm-ascend").ref.version
