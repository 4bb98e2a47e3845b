"""The rule engine, table-driven: modules, fallback, risks, affiliations vs ecosystems, categories,
bots, rule ids, and the rule-set version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.classifier.domain.rules import title_tokens, words

from .factory import builtin, compile_yaml, item, names, rules


@pytest.mark.parametrize(
    "title,tokens",
    [
        ("[Bugfix][ROCm] Fix x", {"bugfix", "rocm"}),
        ("[Bugfix] [ROCm]: Fix x", {"bugfix", "rocm"}),
        ("[CI/Build] Pin x", {"ci/build", "ci", "build"}),
        ("[Spec Decode] x", {"specdecode"}),
        ("fix(ci): x", {"fix", "ci"}),
        ("feat!: drop py3.9", {"feat"}),
        ("ROCm: faster x", {"rocm"}),
        ("Fix the [ROCm] path", set()),  # only leading tokens are prefixes
    ],
)
def test_title_tokens(title, tokens):
    assert set(title_tokens(title)) == tokens


def test_words_split_on_separators_but_keep_versions():
    assert words("Fix fused_moe on DeepSeek-V3.2 (torch.compile)") == [
        "fix",
        "fused",
        "moe",
        "on",
        "deepseek",
        "v3.2",
        "torch.compile",
    ]


LLM = "llm-serving"
MODULE_CASES = [
    # (title, files, expected first modules (in order), expected rule of the first)
    ("[ROCm] Enable AITER MLA decode", [], ["rocm"], "module:rocm/title-prefix"),
    ("[rocm] lower case prefix", [], ["rocm"], "module:rocm/title-prefix"),
    (
        "[Spec Decode] Support EAGLE-3",
        [],
        ["speculative-decoding"],
        "module:speculative-decoding/title-prefix",
    ),
    (
        "[spec-decode] dashed prefix",
        [],
        ["speculative-decoding"],
        "module:speculative-decoding/title-prefix",
    ),
    ("[MoE] Tune configs", [], ["moe"], "module:moe/title-prefix"),
    ("[Bugfix][ROCm] Fix crash", [], ["rocm"], "module:rocm/title-prefix"),
    ("[Bugfix][Kernel][ROCm] Fix crash", [], ["kernels", "rocm"], "module:kernels/title-prefix"),
    (
        "Support streaming tool calls in the hermes parser",
        [],
        ["tool-calling"],
        "module:tool-calling/keyword",
    ),
    (
        "Refactor things",
        ["vllm/model_executor/layers/fused_moe/layer.py"],
        ["moe"],
        "module:moe/files",
    ),
    (
        "Refactor things",
        ["vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py"],
        ["kv-transfer"],
        "module:kv-transfer/files",
    ),
    (
        "Refactor things",
        ["vllm/distributed/parallel_state.py"],
        ["distributed"],
        "module:distributed/files",
    ),
    ("Split slow tests", [".buildkite/test-pipeline.yaml"], ["ci/build"], "module:ci/build/files"),
    ("Document options", ["docs/features/spec_decode.md"], ["docs"], "module:docs/files"),
]


@pytest.mark.parametrize(
    "title,files,expected,first_rule",
    MODULE_CASES,
    ids=[f"{c[0][:30]}|{','.join(c[1])[:40]}" for c in MODULE_CASES],
)
def test_llm_serving_modules(title, files, expected, first_rule):
    tags = builtin(LLM).classify(item(title, files))
    assert names(tags.modules)[: len(expected)] == expected
    assert tags.modules[0].rule == first_rule
    assert not tags.modules[0].fallback


def test_labels_and_title_regex_and_several_modules():
    tags = builtin(LLM).classify(
        item("Speed up things", ["vllm/v1/spec_decode/eagle.py"], labels=("rocm",))
    )
    assert names(tags.modules) == ["rocm", "speculative-decoding"]  # label outranks files
    assert rules(tags.modules) == ["module:rocm/label", "module:speculative-decoding/files"]


def test_docs_pages_do_not_make_code_modules():
    # `paths:` ignores documentation: a page under docs/.../rocm is a docs change
    tags = builtin(LLM).classify(
        item("Update install guide", ["docs/getting_started/rocm/install.md"])
    )
    assert names(tags.modules) == ["docs"]


FALLBACK_CASES = [
    # (profile, files, module)
    ("default", [("src/widgets/a.py", 100, 0), ("lib/b.py", 1, 0)], "widgets"),  # src/ skipped
    ("default", [("app/a.py", 1, 0), ("web/b.ts", 40, 2)], "web"),  # most-changed wins
    ("default", [("VERSION", 3, 0)], "other"),  # root files
    ("llm-serving", [("vllm/envs.py", 3, 1)], "envs"),  # vllm/ skipped: file names the area
    ("llm-serving", [("vllm/mystery/thing.py", 3, 1)], "mystery"),
]


@pytest.mark.parametrize("profile,files,module", FALLBACK_CASES)
def test_fallback_is_the_top_directory_of_the_most_changed_files(profile, files, module):
    tags = builtin(profile).classify(item("Tweak internals", files))
    assert [(t.name, t.rule, t.fallback) for t in tags.modules] == [
        (module, "module:fallback/top-dir", True)
    ]


def test_fallback_without_files():
    tags = builtin("default").classify(item("Something odd happens", kind="issue"))
    assert [(t.name, t.rule, t.fallback) for t in tags.modules] == [
        ("other", "module:fallback/no-files", True)
    ]


def risk(tags, name):
    found = [r for r in tags.risks if r.name == name]
    return found[0] if found else None


SCHED = "vllm/v1/core/sched/scheduler.py"
RISK_CASES = [
    # (id, item kwargs, risk name, fires, reason fragment, rule)
    (
        "core change",
        dict(title="Reduce overhead", files=[SCHED]),
        "core-change",
        True,
        f"changed {SCHED} (core)",
        "risk:core-change/files",
    ),
    (
        "core without tests",
        dict(title="Reduce overhead", files=[SCHED]),
        "core-without-tests",
        True,
        f"changed {SCHED} (core) and no file under tests/",
        "risk:core-without-tests/files",
    ),
    (
        "core with tests",
        dict(title="Reduce overhead", files=[SCHED, "tests/v1/core/test_scheduler.py"]),
        "core-without-tests",
        False,
        None,
        None,
    ),
    (
        "code without tests",
        dict(title="x", files=["vllm/entrypoints/openai/serving_chat.py"]),
        "code-without-tests",
        True,
        "changed vllm/entrypoints/openai/serving_chat.py (code) and no file under tests/",
        "risk:code-without-tests/files",
    ),
    (
        "code-without-tests is redundant next to core-without-tests",
        dict(title="x", files=[SCHED]),
        "code-without-tests",
        False,
        None,
        None,
    ),
    (
        "tests-only change",
        dict(title="Add tests", files=["tests/v1/test_a.py", "tests/v1/test_b.py"]),
        "code-without-tests",
        False,
        None,
        None,
    ),
    (
        "docs-only change",
        dict(title="Docs", files=["docs/a.md"]),
        "code-without-tests",
        False,
        None,
        None,
    ),
    # a tutorial on 310P that adds itself to the docs site's navigation (real #10703, 2026-W30):
    # documentation, neither a very large change nor a hardware-specific one
    (
        "docs site change",
        dict(
            title="[Doc] add qwen3_vl_embedding user guide on 310P",
            files=[
                ("docs/source/tutorials/models/Qwen3-Reranker.md", 900, 300),
                "docs/hooks/nav_titles.py",
                "mkdocs.yml",
            ],
        ),
        "large-change",
        False,
        None,
        None,
    ),
    (
        "docs site change on 310P",
        dict(
            title="[Doc] add qwen3_vl_embedding user guide on 310P",
            files=["docs/source/tutorials/a.md", "mkdocs.yml"],
        ),
        "hardware-specific",
        False,
        None,
        None,
    ),
    # a formatting batch (real: "[Style] Convert `vllm-ascend/` to ruff format (Batch 3)", 2026-W04)
    # carries no engineering risk, however large; a title that only mentions lint keeps them
    (
        "ruff batch",
        dict(
            title="[Style] Convert `vllm-ascend/` to ruff format(Batch 3)",
            files=[(SCHED, 900, 900)],
        ),
        "large-change",
        False,
        None,
        None,
    ),
    (
        "ruff batch on core",
        dict(title="[Style] Convert `vllm-ascend/` to ruff format(Batch 3)", files=[SCHED]),
        "core-without-tests",
        False,
        None,
        None,
    ),
    (
        "lint fix",
        dict(title="[CI]fix for lint CI", files=[SCHED]),
        "core-change",
        False,
        None,
        None,
    ),
    (
        "lint beside a feature",
        dict(title="Fix lint and add a scheduler", files=[SCHED]),
        "core-change",
        True,
        f"changed {SCHED} (core)",
        "risk:core-change/files",
    ),
    (
        "default enable",
        dict(title="[Feat] Default enable MLAPO"),
        "default-behaviour-change",
        True,
        "default enable",
        "risk:default-behaviour-change/title-regex",
    ),
    (
        "a default value named",
        dict(title="[Doc] describe the default scheduler"),
        "default-behaviour-change",
        False,
        None,
        None,
    ),
    (
        "mkdocs beside code",
        dict(title="x", files=[("vllm/a.py", 900, 300), "mkdocs.yml"]),
        "large-change",
        True,
        "in 2 files",
        "risk:large-change/lines",
    ),
    (
        "large by lines",
        dict(title="x", files=[("vllm/a.py", 900, 300)]),
        "large-change",
        True,
        "+900/-300 lines in 1 files",
        "risk:large-change/lines",
    ),
    (
        "large by files",
        dict(title="x", files=[f"vllm/m{i}.py" for i in range(45)]),
        "large-change",
        True,
        "in 45 files",
        "risk:large-change/file-count",
    ),
    ("small", dict(title="x", files=[("vllm/a.py", 10, 3)]), "large-change", False, None, None),
    (
        "revert",
        dict(title='Revert "[Core] Preempt lowest-priority requests first (#123)"'),
        "revert",
        True,
        'title says "Revert"',
        "risk:revert/title-regex",
    ),
    (
        "revert with prefix",
        dict(title="[Bugfix] Revert #123"),
        "revert",
        True,
        "Revert",
        "risk:revert/title-regex",
    ),
    ("not a revert", dict(title="Reverting is discussed in the RFC"), "revert", False, None, None),
    (
        "breaking in title",
        dict(title="[Frontend] Breaking change: rename the /v1/foo endpoint"),
        "breaking-change",
        True,
        "breaking change",
        "risk:breaking-change/keyword",
    ),
    (
        "deprecation in title",
        dict(title="Deprecate the `--disable-log-requests` flag"),
        "removal-deprecation",
        True,
        'title mentions "deprecate"',
        "risk:removal-deprecation/keyword",
    ),
    (
        "removed option in body",
        dict(title="Clean up arg parsing", body="This removes `--max-seq-len-to-capture`."),
        "removal-deprecation",
        True,
        "--max-seq-len-to-capture",
        "risk:removal-deprecation/body-regex",
    ),
    (
        "removed env var in body",
        dict(title="Tidy envs", body="We drop VLLM_USE_V1 since V0 is gone."),
        "removal-deprecation",
        True,
        "VLLM_USE_V1",
        "risk:removal-deprecation/body-regex",
    ),
    (
        "lower-case words are not env vars",
        dict(title="Tidy", body="We drop unused_helper_fn here."),
        "removal-deprecation",
        False,
        None,
        None,
    ),
    (
        "default change",
        dict(title="Enable chunked prefill by default"),
        "default-behaviour-change",
        True,
        "by default",
        "risk:default-behaviour-change/title-regex",
    ),
    (
        "default change 2",
        dict(title="Change the default attention backend to FlashInfer"),
        "default-behaviour-change",
        True,
        "default",
        "risk:default-behaviour-change/title-regex",
    ),
    (
        "dependency bump by title",
        dict(title="Bump torch to 2.9.0", files=["requirements/cuda.txt"]),
        "dependency-bump",
        True,
        'title says "Bump torch to"',
        "risk:dependency-bump/title-regex",
    ),
    (
        "dependency bump by file",
        dict(title="Pin things", files=["requirements/common.txt"]),
        "dependency-bump",
        True,
        "changed requirements/common.txt",
        "risk:dependency-bump/files",
    ),
    (
        "dependabot",
        dict(title="Weekly update", login="dependabot[bot]"),
        "dependency-bump",
        True,
        "author dependabot[bot]",
        "risk:dependency-bump/author",
    ),
    (
        "ci change",
        dict(title="x", files=[".buildkite/test-pipeline.yaml"]),
        "ci-build-change",
        True,
        "changed .buildkite/test-pipeline.yaml (CI or build)",
        "risk:ci-build-change/files",
    ),
    (
        "hardware by prefix",
        dict(title="[ROCm] x"),
        "hardware-specific",
        True,
        "title prefix [ROCm]",
        "risk:hardware-specific/title-prefix",
    ),
    (
        "hardware by path",
        dict(title="Tune", files=["csrc/rocm/skinny_gemms.cu", "tests/kernels/test_skinny.py"]),
        "hardware-specific",
        True,
        "changed csrc/rocm/skinny_gemms.cu",
        "risk:hardware-specific/files",
    ),
    (
        "a refactor touching the ROCm copy too is not hardware-specific",
        dict(
            title="Refactor",
            files=["csrc/rocm/skinny_gemms.cu", "vllm/model_executor/layers/linear.py"],
        ),
        "hardware-specific",
        False,
        None,
        None,
    ),
    (
        "no hardware",
        dict(title="Tune scheduler", files=[SCHED]),
        "hardware-specific",
        False,
        None,
        None,
    ),
    (
        "security path",
        dict(title="x", files=["vllm/entrypoints/auth/api_key.py"]),
        "security-sensitive",
        True,
        "vllm/entrypoints/auth/api_key.py",
        "risk:security-sensitive/files",
    ),
    (
        "security keyword",
        dict(title="Fix SSRF in media URL fetching"),
        "security-sensitive",
        True,
        "ssrf",
        "risk:security-sensitive/keyword",
    ),
    (
        "first-time contributor",
        dict(title="x", association="FIRST_TIME_CONTRIBUTOR"),
        "first-time-contributor",
        True,
        "is first time contributor",
        "risk:first-time-contributor/association",
    ),
    (
        "regular contributor",
        dict(title="x", association="MEMBER"),
        "first-time-contributor",
        False,
        None,
        None,
    ),
    (
        "cuda graph",
        dict(title="Enable full CUDA Graph capture for MLA"),
        "graph-capture",
        True,
        "cuda graph",
        "risk:graph-capture/keyword",
    ),
    (
        "concurrency",
        dict(title="Make async scheduling safe when a request is aborted"),
        "concurrency-change",
        True,
        "async scheduling",
        "risk:concurrency-change/keyword",
    ),
    (
        "interface",
        dict(title="x", files=["vllm/engine/arg_utils.py", "tests/engine/test_arg_utils.py"]),
        "interface-change",
        True,
        "changed vllm/engine/arg_utils.py",
        "risk:interface-change/files",
    ),
    (
        "issues carry no PR risks",
        dict(title="Revert everything", kind="issue"),
        "revert",
        False,
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    "kwargs,name,fires,reason,rule", [c[1:] for c in RISK_CASES], ids=[c[0] for c in RISK_CASES]
)
def test_risks(kwargs, name, fires, reason, rule):
    kwargs = dict(kwargs)
    tags = builtin(LLM).classify(item(kwargs.pop("title"), kwargs.pop("files", []), **kwargs))
    found = risk(tags, name)
    assert (found is not None) is fires, [(r.name, r.reason) for r in tags.risks]
    if fires:
        assert reason.lower() in found.reason.lower(), found.reason
        assert found.rule == rule


def test_risk_severity_comes_from_the_profile():
    tags = builtin(LLM).classify(item("x", [SCHED]))
    assert risk(tags, "core-without-tests").severity == "high"
    assert risk(tags, "core-change").severity == "medium"


AFFILIATION_CASES = [
    # (title, login, email domain, affiliations, first ecosystem or None)
    (
        "[ROCm] Enable AITER MLA",
        "yuki-attn",
        None,
        [],
        "ROCm",
    ),  # ROCm work by anyone: ecosystem only
    ("[Frontend] Fix streaming", "gshtras-amd", None, ["AMD"], None),  # AMD person, non-ROCm work
    ("[ROCm] x", "Chinmay-Kulkarni-AMD", None, ["AMD"], "ROCm"),  # login pattern, any case
    ("Fix x", "someone", "amd.com", ["AMD"], None),  # e-mail domain
    ("Fix x", "someone", "eng.amd.com", ["AMD"], None),  # sub-domain
    ("Fix x", "someone", "notamd.com", [], None),
    ("Tune for MI300X", "someone", None, [], "ROCm"),  # keyword
    ("[Hardware][Ascend] NPU graph", "someone", "huawei.com", ["Huawei"], "Ascend"),
]


@pytest.mark.parametrize("title,login,domain,affiliations,ecosystem", AFFILIATION_CASES)
def test_affiliation_is_about_people_ecosystem_about_work(
    title, login, domain, affiliations, ecosystem
):
    tags = builtin(LLM).classify(item(title, login=login, email_domain=domain))
    assert names(tags.affiliations) == affiliations
    assert (tags.ecosystems[0].name if tags.ecosystems else None) == ecosystem
    for t in tags.affiliations:
        assert t.rule.startswith(f"affiliation:{t.name}/")


def test_member_lists():
    rs = compile_yaml("""
profile: members
affiliations:
  - name: Acme
    members: ["@Alice", bob]
""")
    assert rules(rs.classify(item("x", login="alice")).affiliations) == ["affiliation:Acme/member"]
    assert names(rs.classify(item("x", login="carol")).affiliations) == []


BOT_CASES = [
    ("dependabot[bot]", False, True, "bot:known-login"),
    ("mergify[bot]", False, True, "bot:known-login"),
    ("some-app[bot]", False, True, "bot:login-suffix"),
    ("app-with-flag", True, True, "bot:actor-flag"),
    ("human", False, False, None),
    # a CI account named after its project (real: "vllm-ascend-ci", 56 merges of vllm-ascend)
    ("vllm-ascend-ci", False, True, "bot:login-regex"),
    ("release_bot", False, True, "bot:login-regex"),
    ("cici", False, False, None),
    ("ci-lover", False, False, None),
]


@pytest.mark.parametrize("login,flag,bot,rule", BOT_CASES)
def test_bots(login, flag, bot, rule):
    tags = builtin("default").classify(item("x", login=login, is_bot=flag))
    assert (tags.bot, tags.bot_rule) == (bot, rule)


def test_configurable_bot_regex():
    rs = compile_yaml(
        "profile: b\nbots: {login_regex: ['^ci-runner-\\d+$'], trust_actor_flag: false}\n"
    )
    assert rs.classify(item("x", login="ci-runner-7")).bot_rule == "bot:login-regex"
    assert rs.classify(item("x", login="app", is_bot=True)).bot is False


CATEGORY_CASES = [
    ("[Perf] Batch KV cache swap copies", [], "performance"),
    ("[Bugfix] Fix NaN outputs", [], "bugfix"),
    ("Fix a hang at start-up", [], "bugfix"),
    ("[Feature] Add TurboQuant", [], "feature"),
    ("Add support for Phi-4", [], "feature"),
    ("[CI] Split tests", [], "platform-ci"),
    ("[Releases] [ROCm] Enable nightly wheels", [], "release"),
    ("[Doc] Document EAGLE-3", [], "docs"),
    ("[Refactor] Move helpers", [], "refactor"),
    # via the rocm module, when the change is CI configuration: AMD's CI is ROCm work
    ("Something about AITER", [".buildkite/scripts/hardware_ci/run-amd-test.sh"], "platform-ci"),
    ("[ROCm][Perf] Faster MLA", [], "performance"),
]


@pytest.mark.parametrize("title,files,category", CATEGORY_CASES)
def test_first_category(title, files, category):
    tags = builtin(LLM).classify(item(title, files))
    assert tags.categories and tags.categories[0].name == category, rules(tags.categories)


def test_a_ci_kind_needs_most_of_the_change_in_ci_build_test_or_docs_configuration():
    """ROCm code is ROCm work, not CI (the rocm module alone no longer makes it platform-ci);
    a [CI] title over a source change made for CI's sake is code too."""
    rocm = builtin(LLM).classify(item("Something about AITER", ["csrc/rocm/attention.cu"]))
    assert "platform-ci" not in names(rocm.categories)
    ci = [(".github/workflows/ci.yml", 30, 0), ("vllm/worker/runner.py", 40, 5)]
    assert "platform-ci" not in names(builtin(LLM).classify(item("[CI] Fix CI", ci)).categories)
    ci = [(".github/workflows/ci.yml", 30, 0), ("tests/test_x.py", 60, 0), ("vllm/a.py", 2, 1)]
    assert "platform-ci" in names(builtin(LLM).classify(item("[CI] Fix CI", ci)).categories)


def test_rfc_category_only_for_issues():
    assert "rfc" in names(
        builtin(LLM).classify(item("[RFC]: Expert offloading", kind="issue")).categories
    )
    assert "rfc" not in names(builtin(LLM).classify(item("[RFC] Expert offloading")).categories)


def test_every_tag_names_the_rule_that_fired():
    tags = builtin(LLM).classify(item("[Bugfix][ROCm] Fix AITER crash", [SCHED], login="x-amd"))
    for t in (*tags.modules, *tags.categories, *tags.ecosystems, *tags.affiliations):
        section = t.rule.split(":", 1)[0]
        assert section in {"module", "category", "ecosystem", "affiliation"}
        assert t.rule.split(":", 1)[1].startswith(t.name + "/")
    for r in tags.risks:
        assert r.rule.startswith(f"risk:{r.name}/")


_DETERMINISM_SCRIPT = """
import sys
from tests.unit.classifier.factory import builtin, item
it = item("[Bugfix][ROCm] Fix AITER crash", [sys.argv[1], "csrc/rocm/x.cu"], login="x-amd")
print(builtin(sys.argv[2]).classify(it).model_dump_json())
"""


@pytest.mark.parametrize("seed", ["0", "4242"])
def test_classification_is_deterministic(seed):
    """The same tags, in the same order, in another process whose str hashes differ (set and
    dict-of-set iteration orders change with PYTHONHASHSEED); and the order is the documented
    one: a title prefix before files, the modules in the profile's order."""
    it = item("[Bugfix][ROCm] Fix AITER crash", [SCHED, "csrc/rocm/x.cu"], login="x-amd")
    here = builtin(LLM).classify(it)
    assert [(t.name, t.rule) for t in here.modules] == [
        ("rocm", "module:rocm/title-prefix"),
        ("scheduler/core", "module:scheduler/core/files"),
        ("kernels", "module:kernels/files"),
    ]
    # (no platform-ci: the change is code, not CI configuration)
    assert [t.name for t in here.categories] == ["bugfix"]
    assert [r.name for r in here.risks] == [
        "core-change",
        "core-without-tests",
        "hardware-specific",
    ]
    root = Path(__file__).resolve().parents[3]
    other = subprocess.run(
        [sys.executable, "-c", _DETERMINISM_SCRIPT, SCHED, LLM],
        cwd=root,
        env={**os.environ, "PYTHONHASHSEED": seed},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout) == json.loads(here.model_dump_json())


# pull requests from the seed daily report's AMD/ROCm section: (title, author, in the section
# because of affiliation and/or ecosystem, group the report puts it in)
SEED_AMD = [
    (
        "[ROCm] AITER fusion kernels for MLA: RoPE + KV cache",
        "khairulkabir1661",
        False,
        True,
        "performance",
    ),
    (
        "[ROCm][Perf] Refactor AITER FP8 attention kernel to take q_scale natively",
        "divakar-amd",
        True,
        True,
        "performance",
    ),
    (
        "[Bugfix] Fix Quark MoE draft model prefix mismatch in MTP/Eagle",
        "vecheruk-amd",
        True,
        True,
        "bugfix",
    ),
    (
        "[Bugfix][ROCm] Fix undefined variable in the ROCm nightly release pipeline",
        "tjtanaa",
        False,
        True,
        "bugfix",
    ),
    (
        "[CPU] Update AMD Zen CPU backend dtypes and switch to zentorch-weekly",
        "Chinmay-Kulkarni-AMD",
        True,
        True,
        "platform-ci",
    ),
    (
        "[CI][AMD] Remove host GPU state steps from the AMD CI scripts",
        "dhonnappa-amd",
        True,
        True,
        "platform-ci",
    ),
    (
        "[Releases] [ROCm] Enable Nightly Docker Image and Wheel Releases for ROCm",
        "tjtanaa",
        False,
        True,
        "release",
    ),
]


@pytest.mark.parametrize("title,login,affiliated,ecosystem,group", SEED_AMD)
def test_seed_amd_section_items(title, login, affiliated, ecosystem, group):
    tags = builtin(LLM).classify(item(title, login=login))
    assert ("AMD" in names(tags.affiliations)) is affiliated
    assert ("ROCm" in names(tags.ecosystems)) is ecosystem
    # the first category is the strongest signal (a title prefix beats a keyword beats a module)
    assert tags.categories[0].name == group, rules(tags.categories)


def test_camel_case_titles_and_docker_images():
    tags = builtin(LLM).classify(item("MiniMaxM2ReasoningParser broken for M2.5", kind="issue"))
    assert names(tags.modules) == ["tool-calling"]
    assert "bugfix" in names(tags.categories)
    tags = builtin(LLM).classify(item("Publish the nightly Docker Image"))
    assert "multimodal" not in names(tags.modules) and "ci/build" in names(tags.modules)


def test_documentation_only_changes_carry_no_risk():
    tags = builtin(LLM).classify(
        item(
            "Document full CUDA Graph mode, deprecate the old page",
            ["docs/features/cuda_graphs.md", "docs/old.md"],
        )
    )
    assert tags.risks == ()
    # documentation alone is told as documentation, not as the code it documents
    assert names(tags.modules) == ["docs"]
    tags = builtin(LLM).classify(
        item("Document full CUDA Graph mode", ["docs/a.md", "vllm/compilation/x.py"])
    )
    assert "graph-capture" in [r.name for r in tags.risks]


@pytest.mark.parametrize(
    "path,not_module",
    [
        ("vllm/v1/structured_output/utils.py", "platform/tpu"),  # "ou-tpu-t"
        ("vllm/utils/waiter.py", "rocm"),  # "w-aiter"
        ("vllm/exploration.py", "lora"),  # "exp-lora-tion"
    ],
)
def test_globs_do_not_match_inside_words(path, not_module):
    assert not_module not in names(builtin(LLM).classify(item("Tweak", [path])).modules)


def test_dependency_upgrade_titles_make_the_dependencies_module():
    tags = builtin(LLM).classify(item("[Misc] Upgrade torch-npu to 2.10.0", ["CMakeLists.txt"]))
    assert tags.modules[0].rule == "module:dependencies/title-regex"


def test_body_keywords_and_kinds():
    rs = compile_yaml("""
profile: body
risks:
  - name: race
    kinds: [pull_request]
    body_keywords: [race condition]
    reason: "{evidence}: needs a stress test"
""")
    tags = rs.classify(item("Fix", body="This fixes a Race-Condition in the scheduler."))
    assert [(r.name, r.rule, r.reason) for r in tags.risks] == [
        ("race", "risk:race/body-keyword", 'body mentions "Race-Condition": needs a stress test')
    ]
    assert rs.classify(item("Fix", body="This fixes a race condition.", kind="issue")).risks == ()
    assert rs.classify(item("Fix", body="A racer conditions nothing.")).risks == ()


def test_cached_classification_follows_what_the_rules_read():
    rs = compile_yaml("profile: memo\nextends: llm-serving\n")
    rs.memo_size = 2
    a = item("[ROCm] x", ["csrc/rocm/a.cu"])
    assert rs.classify_cached(a) is rs.classify_cached(
        a.model_copy(update={"comments": 7})
    )  # same inputs
    b = a.model_copy(update={"labels": ("documentation",)})
    assert rs.classify_cached(b) == rs.classify(b) != rs.classify(a)  # a label changes the tags
    c = a.model_copy(update={"title": "[MoE] y"})
    assert names(rs.classify_cached(c).modules)[0] == "moe"
    assert len(rs._memo) <= 2


def test_digest_is_remembered_by_what_it_reads():
    from services.classifier.domain.digest import digest_of

    rs = compile_yaml("profile: memo\nextends: llm-serving\n")
    rs.memo_size = 2
    body = (
        "### What this PR does / why we need it?\nFixes a hang when `max_num_seqs` is 1.\n\n"
        "Fixes #12\n\n### How was this patch tested?\nAdded unit tests."
    )
    a = item("[Bugfix] x", ["vllm/a.py"], body=body)
    # the same description in a fact whose labels changed: the tags differ, the digest is reused
    b = a.model_copy(update={"labels": ("documentation",)})
    assert rs.classify_cached(b).digest is rs.classify_cached(a).digest
    assert rs.classify(a).digest == digest_of(a.title, body, a.kind, repo=a.repo, number=a.number)
    # anything the digest reads changes it: the title, the description, the kind, the number
    for change in (
        {"title": 'Revert "[Bugfix] x"'},
        {"body_excerpt": "Adds a kernel."},
        {"kind": "issue"},
        {"number": 12},  # its own number is no reference
    ):
        c = a.model_copy(update=change)
        digest = rs.classify_cached(c).digest
        assert digest == digest_of(c.title, c.body_excerpt, c.kind, repo=c.repo, number=c.number)
        assert digest != rs.classify(a).digest, change
    assert len(rs._digests) <= 2
