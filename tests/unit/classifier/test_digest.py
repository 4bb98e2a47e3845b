"""`digest_of`: what a description says of its change, on real vllm-ascend descriptions (read by
hand: the expected values below were checked against each body) and on synthetic templates."""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from services.classifier.domain.digest import MAX_TEXT, digest_of, is_span
from shared.events.enriched import Digest, Reference
from tests.conftest import require_shared_data

REPO = "vllm-project/vllm-ascend"


def _rows() -> list[dict]:
    return _read(require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl"))


@lru_cache(maxsize=1)
def _read(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def real(number: int) -> tuple[dict, Digest]:
    (r,) = [r for r in _rows() if r["pr_number"] == number]
    return r, digest_of(r["title"], r["body"], repo=REPO, number=number)


def refs_of(d: Digest) -> set[tuple]:
    return {(r.kind, r.number, r.repo) for r in d.refs}


# number -> what was checked by reading the body: substrings of `what` ("" = empty), user_facing,
# tested kinds (exact), claims (kind, a figure), references (kind, number, repo), template_only
REAL = [
    # the template, filled in; a version line is no upstream reference
    (
        14760,
        dict(
            what=[
                "adds a new end-to-end weekly multi-node configuration file",
                "DeepSeek-V4-Flash-Memcache-PD-acc.yaml",
            ],
            uf="no",
            tested=("e2e", "benchmark", "accuracy"),
            tested_text="Tested via weekly multi-node E2E accuracy benchmarks",
            refs=set(),
        ),
    ),
    # the template with nothing filled in
    (14606, dict(what="", uf="unknown", tested=(), template_only=True, refs=set())),
    (12782, dict(what="", uf="unknown", tested=(), template_only=True)),
    # boilerplate only, but "no" to user-facing: not template-only
    (13896, dict(what="", uf="no", tested=(), template_only=False)),
    # empty bodies
    (14131, dict(what="", uf="unknown", tested=(), refs=set(), template_only=False)),
    (11586, dict(what="", uf="unknown", tested=(), refs=set())),
    # reverts: title with (#N) + "This reverts commit"
    (
        11366,
        dict(
            what=["because of image build failed"],
            refs={("reverts", 10891, None)},
            revert=dict(
                number=10891,
                sha="acad18fd7decb62ad704afd2834bd512dc270ffc",
                title="[Misc] Bump Mooncake to v0.3.11.post1 in Dockerfiles",
            ),
        ),
    ),
    (
        6227,
        dict(
            what=["It breaks the test"],
            revert=dict(
                number=6041,
                sha="8966a99710a4f67995d8f50d875f4e5298e14d8f",
                title="[Refactor] Unify full-graph parameter update logic",
            ),
        ),
    ),
    # a title without the number; the body says `Reverts owner/name#N` of this repository
    (
        13290,
        dict(
            what="",
            refs={("reverts", 12536, None)},
            revert=dict(
                number=12536,
                title="[Performance] remove D2H sync in QLIMetadata builder for DSA_CP",
            ),
        ),
    ),
    # `[Revert] Revert "..." (#N)` and "(reverts #N)" in a title
    (14287, dict(what=["enable a5 nightly multi test"], refs={("reverts", 14190, None)})),
    (
        12228,
        dict(
            what=["Manually reverts #11899 from main."], uf="yes", refs={("reverts", 11899, None)}
        ),
    ),
    # a fix-up of a change of this repository
    (
        4870,
        dict(
            what=[
                "fixes the AttentionMaskBuilder singleton initialization issue introduced in PR #4779"
            ],
            uf="no",
            refs={("fix_up", 4779, None)},
        ),
    ),
    # fixes caused by upstream changes: upstream syncs, not fix-ups
    (
        3612,
        dict(
            refs_include={
                ("upstream", 25075, "vllm-project/vllm"),
                ("upstream", None, "vllm-project/vllm"),
            },
            refs_exclude_kinds={"fix_up"},
            tested=("ci",),
        ),
    ),
    # follow-ups: a full URL of this repository, and "Follow-up #N"
    (12019, dict(what=["This PR is a follow-up to"], refs_include={("follow_up", 11875, None)})),
    (
        9444,
        dict(
            what=["lets main2main detect and refresh them automatically"],
            refs={("follow_up", 9232, None)},
            tested=("manual",),
        ),
    ),
    # backports: "Ports #N to main", "Forward-port #N to main"; "Fixes #N" beside it — a
    # reference, no what: the what is the sentence after it
    (
        14398,
        dict(
            what=["DeepSeek V4 reads config.swiglu_limit and already passes it to the shared"],
            uf="yes",
            uf_text=["restores the DeepSeek V4 routed-expert activation contract"],
            refs={("backport", 14364, None), ("fixes", 14363, None)},
        ),
    ),
    (
        13120,
        dict(
            what=["Restore the request_queue.join() barrier in AscendStore wait_for_save()."],
            uf="yes",
            refs_include={("backport", 13024, None)},
            tested=("unit", "manual"),
        ),
    ),
    # an upstream vLLM PR (a link in Chinese text); an upstream PR beside a performance claim
    (14433, dict(what=["同步上游更改"], refs={("upstream", 52311, "vllm-project/vllm")})),
    (
        12831,
        dict(
            what=["introduces SFAPDRD2HConnector"],
            uf="yes",
            claims=[("performance", "90%")],
            refs_include={("upstream", 48203, "vllm-project/vllm")},
        ),
    ),
    # a link into another repository
    (
        13901,
        dict(
            what=["upgrades the dependency stack"],
            refs_include={("related", 783, "triton-lang/triton-ascend")},
        ),
    ),
    # performance claims with their numbers
    (
        14198,
        dict(
            what=["adds two four-card performance guards"],
            uf="no",
            tested=("e2e",),
            claims=[("performance", "90%")],
        ),
    ),
    # its only figures are a pasted SpecDecoding log line ("(APIServer pid=…) INFO … [metrics.py:101]
    # … Accepted throughput: 0.47 tokens/s"): output, not a claim
    (10896, dict(what=["are deprecated"], uf="no", no_claims=True)),
    # accuracy claims
    (
        14200,
        dict(
            what=["adds two Qwen3-32B exit-scenario accuracy guards"],
            uf="no",
            claims=[("accuracy", "3.33pp"), ("accuracy", "3.0pp")],
        ),
    ),
    (
        11701,
        dict(
            what=["This PR replace dispatchFFNcombine with mega_moe."],
            uf="no",
            tested=("benchmark", "accuracy"),
            claims=[("accuracy", "91.998%"), ("performance", "~1.4%")],
        ),
    ),
    # user-facing: yes with the how
    (
        10342,
        dict(
            what=["adds Mooncake connector support for DeepSeek V4"],
            uf="yes",
            uf_text=["Mooncake connector can now correctly support DeepSeek V4"],
            tested=("unit",),
        ),
    ),
    (
        9772,
        dict(
            what=["introduces configuration options"],
            uf="yes",
            uf_text=["adds a new configuration block rejection_sampler_config"],
            refs={("fixes", 9047, None)},
        ),
    ),
    # each kind of test
    (14348, dict(what=["add Qwen3.8 tutorial to navigation"], uf="no", tested=("none",))),
    (
        13127,
        dict(
            what=["Add testcases of VL models with LoRA"],
            uf="no",
            tested=("e2e",),
            tested_text="pytest -sv tests/e2e/pull_request/one_card/lora/test_qwenvl_lora.py",
        ),
    ),
    (14743, dict(uf="no", tested=("manual",), tested_text="by the running the test")),
    (
        14696,
        dict(
            what=["Allocate the MTP pre-hc_head residual buffer"],
            uf="no",
            tested=("ci",),
            tested_text="CI passed with new added/existing test.",
        ),
    ),
    # a numbered list of bold items; a summary heading with a list
    (
        9703,
        dict(what=["Fix MLA hidden_dim shape mismatch with Eagle3 speculative decoding"], uf="no"),
    ),
    (
        14551,
        dict(
            what=[
                "Update kv_pool.md with the latest documentation including:",
                "Added numbered section structure",
            ]
        ),
    ),
    # a long body (15,000 characters): the what from its section, capped
    (
        13946,
        dict(
            what=["The upstream vLLM community has already implemented the SP"],
            uf="yes",
            uf_text=["Delete flashcomm1."],
        ),
    ),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number, expected", REAL, ids=[str(n) for n, _ in REAL])
def test_real_descriptions(number, expected):
    record, d = real(number)
    body = record["body"]
    what = expected.get("what")
    if what == "":
        assert d.what == ""
    elif what is not None:
        for part in what:
            assert part in d.what, (part, d.what)
    if "uf" in expected:
        assert d.user_facing == expected["uf"]
    for part in expected.get("uf_text", ()):
        assert part in d.user_facing_text, d.user_facing_text
    if "tested" in expected:
        assert d.tested == expected["tested"], d.tested
    if "tested_text" in expected:
        assert d.tested_text.startswith(expected["tested_text"]), d.tested_text
    if expected.get("no_claims"):
        assert d.claims == (), d.claims
    for kind, figure in expected.get("claims", ()):
        assert any(c.kind == kind and figure in c.figures for c in d.claims), d.claims
    if "refs" in expected:
        assert refs_of(d) == expected["refs"], d.refs
    assert expected.get("refs_include", set()) <= refs_of(d), d.refs
    assert not {r.kind for r in d.refs} & expected.get("refs_exclude_kinds", set())
    if "revert" in expected:
        (rv,) = [r for r in d.refs if r.kind == "reverts"]
        for key, value in expected["revert"].items():
            assert getattr(rv, key) == value, rv
    if "template_only" in expected:
        assert d.template_only == expected["template_only"]
    assert all(r.number != number or r.repo for r in d.refs)  # never its own number
    for text in (d.what, d.user_facing_text, d.tested_text, *(c.sentence for c in d.claims)):
        assert is_span(text, body), text


@pytest.mark.shared_data
def test_every_real_description_gives_spans_within_the_cap():
    rows = _rows()
    assert len(rows) == 4734
    kinds = set()
    for r in rows:
        d = digest_of(r["title"], r["body"][:4000], repo=REPO, number=r["pr_number"])
        texts = (d.what, d.user_facing_text, d.tested_text, *(c.sentence for c in d.claims))
        for text in texts:
            assert len(text) <= MAX_TEXT + 1, (r["pr_number"], text)
            assert is_span(text, r["body"]), (r["pr_number"], text)
        for c in d.claims:
            assert c.figures and all(f in c.sentence for f in c.figures), (r["pr_number"], c)
        assert all(not (ref.number == r["pr_number"] and ref.repo is None) for ref in d.refs)
        kinds.update(ref.kind for ref in d.refs)
        if d.template_only:
            assert not d.what and d.user_facing == "unknown" and not d.tested
    assert kinds == {"fixes", "reverts", "follow_up", "fix_up", "backport", "upstream", "related"}


# ---------------------------------------------------------------- synthetic descriptions

VLLM_TEMPLATE = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose
Fuse **RMSNorm** with FP8 quantization in the [compile pass](https://docs.example/x). It removes one kernel launch per layer.

## Test Plan
`pytest tests/compile/test_fusion.py` and `vllm bench serve` on H100.

## Test Result
Output throughput improves from 1,200 to 1,440 tokens/s (+20%); TTFT 120ms -> 80ms.

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>**
"""


def test_vllm_template():
    d = digest_of("[Perf] Fuse RMSNorm and FP8 quant", VLLM_TEMPLATE)
    assert d.what == (
        "Fuse RMSNorm with FP8 quantization in the compile pass. "
        "It removes one kernel launch per layer."
    )
    assert d.tested == ("unit", "benchmark") and d.tested_text.startswith("pytest tests/compile")
    (claim,) = d.claims
    assert claim.kind == "performance" and claim.figures == (
        "1,200 to 1,440 tokens/s",
        "+20%",
        "120ms -> 80ms",
    )
    assert not d.template_only and d.user_facing == "unknown" and d.refs == ()


def test_vllm_template_left_empty_is_template_only():
    empty = re.sub(r"(## (?:Purpose|Test Plan|Test Result)\n)[^\n]+\n", r"\1\n", VLLM_TEMPLATE)
    d = digest_of("[Misc] x", empty)
    assert d.template_only and d.what == "" and d.tested == () and d.claims == ()


SYNTHETIC = [
    (
        "summary heading and a list",
        "## Summary\n\nThis PR:\n- adds a `--max-loras` check.\n- documents it.\n\n## Test plan\nUnit tests.",
        dict(what="adds a --max-loras check. documents it.", tested=("unit",)),
    ),
    (
        "html comments, badges and images are no prose",
        "[![CI](https://ci.example/badge.svg)](https://ci.example)\n<!-- Please describe your change -->\n"
        "![screenshot](https://img.example/a.png)\n\nSpeeds up the *detokenizer* by 3.6x on long prompts.",
        dict(
            what="Speeds up the detokenizer by 3.6x on long prompts.",
            claims=[("performance", "3.6x")],
        ),
    ),
    (
        "motivation heading, trailers and fixes lines skipped",
        "### Motivation\nFixes #12\n\nThe scheduler starved long prompts. This PR fixes that.\n\n"
        "Signed-off-by: A <a@example.com>",
        dict(
            what="The scheduler starved long prompts. This PR fixes that.",
            refs={("fixes", 12, None)},
        ),
    ),
    (
        "bold headings, user-facing yes",
        "**Problem**\nPrefix caching missed hits after a restart.\n\n**Does this PR introduce any user-facing change?**\n"
        "Yes, a new `--cache-dir` flag keeps the cache on disk.\n\n**Test Plan**\nCI passed.",
        dict(
            what="Prefix caching missed hits after a restart.",
            uf="yes",
            uf_text="a new --cache-dir flag keeps the cache on disk.",
            tested=("ci",),
        ),
    ),
    ("placeholders", "## Purpose\nN/A\n\n## Test Plan\nN/A\n", dict(what="", tested=("none",))),
    (
        "a long sentence is cut at a word",
        "## Description\n" + "word " * 80 + "end.",
        dict(what_cut=True),
    ),
    (
        "references of every kind",
        "Follow-up to #10, fixes the bug introduced in #11 and backport of #12.\n"
        "Resolves https://github.com/other/repo/issues/5. Syncs https://github.com/vllm-project/vllm/pull/7.\n"
        "See also https://github.com/acme/tool/pull/3 and #99.",
        dict(
            refs={
                ("follow_up", 10, None),
                ("fix_up", 11, None),
                ("backport", 12, None),
                ("fixes", 5, "other/repo"),
                ("upstream", 7, "vllm-project/vllm"),
                ("related", 3, "acme/tool"),
            }
        ),
    ),
    (
        "sentences that only point elsewhere are passed over (real #11431, #11266)",
        "### What this PR does / why we need it?\nIt is planned in\nhttps://github.com/acme/serve/issues/11163.\n"
        "Refactor https://github.com/acme/serve/pull/11196 by @someone.\nThanks for @someone for the rough port.\n"
        "What does it follow?\n- DSpark draft-modeling for DSv4.\n- A trial `sas` operator.\n",
        dict(what="DSpark draft-modeling for DSv4. A trial sas operator."),
    ),
    (
        "a pointer sentence inside a paragraph",
        "## Purpose\nThis adapts the behavior from #10302 to the current `main` branch. Decode-only calls now "
        "pass no attention mask.\n",
        dict(what="Decode-only calls now pass no attention mask."),
    ),
    (
        "the template heading pasted as plain text",
        'What this PR does / why we need it?\na2 kernel aclnn interface extern "C" fix\n\n'
        "Does this PR introduce any user-facing change?\nNo\n\nHow was this patch tested?\nCI passed.\n",
        dict(what='a2 kernel aclnn interface extern "C" fix', uf="no", tested=("ci",)),
    ),
    (
        "Chinese sentences",
        "### What this PR does / why we need it?\n修复了调度器的死锁问题。同时补充了单元测试。\n\n"
        "### How was this patch tested?\n本地测试通过，性能提升 12%。",
        dict(
            what="修复了调度器的死锁问题。同时补充了单元测试。",
            tested=("manual",),
            claims=[("performance", "12%")],
        ),
    ),
]


@pytest.mark.parametrize("name, body, expected", SYNTHETIC, ids=[s[0] for s in SYNTHETIC])
def test_synthetic_descriptions(name, body, expected):
    d = digest_of("[Core] change", body, repo="acme/serve", number=1)
    if "what" in expected:
        assert d.what == expected["what"]
    if expected.get("what_cut"):
        assert d.what.endswith("…") and len(d.what) <= MAX_TEXT + 1 and " wor…" not in d.what
    if "uf" in expected:
        assert d.user_facing == expected["uf"]
    if "uf_text" in expected:
        assert d.user_facing_text == expected["uf_text"]
    if "tested" in expected:
        assert d.tested == expected["tested"]
    if expected.get("no_claims"):
        assert d.claims == (), d.claims
    for kind, figure in expected.get("claims", ()):
        assert any(c.kind == kind and figure in c.figures for c in d.claims), d.claims
    if "refs" in expected:
        assert refs_of(d) == expected["refs"]
    for text in (d.what, d.user_facing_text, d.tested_text, *(c.sentence for c in d.claims)):
        assert is_span(text, body), text


def test_a_revert_reference_keeps_the_sentence_that_says_why():
    body = (
        "### What this PR does / why we need it?\n1. fix mtp accept rate by disabling in_profile_run\n"
        "2. Reverts acme/serve#5082, which broke CI in\nhttps://github.com/acme/serve/actions/runs/1\n"
    )
    d = digest_of("[bugfix] fix mtp accept rate", body, repo="acme/serve", number=5093)
    (ref,) = [r for r in d.refs if r.kind == "reverts"]
    assert (ref.number, ref.context) == (5082, "Reverts acme/serve#5082, which broke CI")
    assert is_span(ref.context, body)
    # other references keep no sentence
    assert all(not r.context for r in digest_of("x", "Follow-up to #10.").refs)


def test_reverts_in_titles_without_a_body():
    d = digest_of('[BugFix] Revert "[Perf] Fuse X (#3)"', "")
    assert d.refs == (Reference(kind="reverts", number=3, title="[Perf] Fuse X"),)
    d = digest_of('Revert "[CI] Drop a test" (#12217)', "This reverts commit abcdef1234567.")
    assert d.refs == (
        Reference(kind="reverts", number=12217, title="[CI] Drop a test", sha="abcdef1234567"),
    )
    assert digest_of("[Core] Add a thing", "") == Digest()


def test_own_number_and_own_repository():
    d = digest_of(
        "[Core] x",
        "Fixes #5 and #7; see https://github.com/acme/serve/pull/5 and "
        "follow-up to https://github.com/acme/serve/pull/9",
        repo="acme/serve",
        number=5,
    )
    assert refs_of(d) == {("fixes", 7, None), ("follow_up", 9, None)}


def test_versions_pr_numbers_and_dates_are_no_claims():
    body = "Bump vLLM to v0.11.0 (#1234) on 2025-10-01 for faster startup; memory of 8 cards."
    assert digest_of("x", body).claims == ()


def test_a_revert_says_why_in_its_own_revert_line_not_in_its_test_note():
    # #5667 (vllm-ascend history): the reason is on the "Revert PR 5253 …" line; "It was tested
    # in the failure case." only says how it was tested
    body = (
        "### What this PR does / why we need it?\n\nRevert PR 5253 to fix the smoking problem\n\n"
        "### Does this PR introduce _any_ user-facing change?\n\nDoes not.\n\n"
        "### How was this patch tested?\n\nIt was tested in the failure case.\n"
    )
    d = digest_of('Revert "[BugFix][Fusion] Fix graph fusion failure problem (#5253)"', body)
    (ref,) = [r for r in d.refs if r.kind == "reverts"]
    assert ref.number == 5253 and ref.context == "Revert PR 5253 to fix the smoking problem"


def test_a_bold_name_on_the_next_line_of_a_sentence_stays_in_it():
    # #5746 (vllm-ascend history)
    body = (
        "### What this PR does / why we need it?\nClose the **Full Graph** mode to temporarily "
        "avoid accuracy issue for\n**Qwen3-Next-80B-A3B-Instruct-W8A8**.\n"
        "### Does this PR introduce _any_ user-facing change?\nN/A\n"
    )
    assert digest_of("[CI] nightly fix", body).what == (
        "Close the Full Graph mode to temporarily avoid accuracy issue for Qwen3-Next-80B-A3B-Instruct-W8A8."
    )


def test_a_table_of_files_is_no_what():
    # #6200's description (vllm-ascend history): its only "what" is a table of file paths
    body = (
        "### What this PR does / why we need it?\n**Scope of Changes**:\n| File Path |\n"
        "| :--- |\n| `vllm_ascend/distributed/kv_transfer/__init__.py` |\n"
        "| `vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_connector.py` |\n\n"
        "### Does this PR introduce _any_ user-facing change?\n\n"
    )
    assert "vllm_ascend/" not in digest_of("[Lint]Style: Convert to ruff format", body).what


def test_a_pasted_log_line_is_no_claim():
    # the log line is #10317's (vllm-ascend history), the sentence after it is a claim
    body = (
        "## How was this patch tested?\n(APIServer pid=774401) INFO 06-11 11:07:59 "
        "[loggers.py:271] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation "
        "throughput: 7.1 tokens/s, Running: 1 reqs\n\nDecode throughput improves by 12% on "
        "the A3 box."
    )
    claims = digest_of("x", body).claims
    assert [c.sentence for c in claims] == ["Decode throughput improves by 12% on the A3 box."]


def test_is_span():
    body = "## Purpose\nAdds **fused** `RoPE` to the\n[kernel](https://x) path.\n\n- second item."
    assert is_span("Adds fused RoPE to the kernel path.", body)
    assert is_span("Adds fused RoPE to the kern…", body)
    assert not is_span("Adds RoPE", body)


def test_the_demo_exercises_the_digest():
    from services.ingest.adapters.demo import STORY_MODEL, generate_demo

    demo = generate_demo("2026-W24", seed=7)
    prs = [i for i in demo.items if i.kind == "pull_request"]
    digests = {p.number: digest_of(p.title, p.body, repo=demo.repo, number=p.number) for p in prs}
    kinds = {r.kind for d in digests.values() for r in d.refs}
    assert {"reverts", "fix_up", "follow_up", "backport", "fixes", "upstream", "related"} <= kinds
    assert any(
        r.kind == "reverts" and r.sha and r.number and r.title
        for d in digests.values()
        for r in d.refs
    )
    assert any(c.kind == "performance" for d in digests.values() for c in d.claims)
    assert any(c.kind == "accuracy" for d in digests.values() for c in d.claims)
    assert {d.user_facing for d in digests.values()} == {"yes", "no", "unknown"}
    assert {"unit", "e2e", "benchmark", "manual", "ci"} <= {
        k for d in digests.values() for k in d.tested
    }
    assert sum(bool(d.what) for d in digests.values()) > 0.95 * len(prs)
    story = [p for p in prs if STORY_MODEL in p.title]
    assert len(story) >= 4 and {
        w.label for w in demo.windows for p in story if w.contains(p.created_at)
    } == {"2026-W23", "2026-W24"}
    # added, fixed up, reverted: the three refer to the same change
    by_title = {p.title: p for p in prs}
    revert = next(
        p for p in prs if p.title.startswith('Revert "[Core] Add async KV cache offloading')
    )
    added = by_title["[Core] Add async KV cache offloading to CPU"]
    fixed = [
        n
        for n, d in digests.items()
        if any(r.kind == "fix_up" and r.number == added.number for r in d.refs)
    ]
    assert fixed and any(
        r.kind == "reverts" and r.number == added.number for r in digests[revert.number].refs
    )
    for p in prs:
        d = digests[p.number]
        for text in (d.what, d.user_facing_text, d.tested_text, *(c.sentence for c in d.claims)):
            assert is_span(text, p.body), (p.number, text)


def test_a_change_that_answers_a_regression_another_introduced_is_its_fix_up():
    """Real #12605: "The decode mask optimization introduced by #11266\ncauses a … regression"
    (the sentence wrapped over lines, kept whole)."""
    body = (
        "### What this PR does / why we need it?\nThis PR restores the causal attention mask.\n"
        "The decode mask optimization introduced by #11266\ncauses a Gemma4 MoE graph-mode accuracy "
        "regression on Atlas A2. In\nvalidation, restoring it helps.\n"
    )
    d = digest_of(
        "[BugFix] Restore FIA decode mask handling", body, repo="acme/serve", number=12605
    )
    (ref,) = d.refs
    assert (ref.kind, ref.number) == ("fix_up", 11266)
    assert ref.context == (
        "The decode mask optimization introduced by #11266 causes a Gemma4 MoE "
        "graph-mode accuracy regression on Atlas A2."
    )
    assert is_span(ref.context, body)
    # a feature introduced by another change, without a regression, is only mentioned
    assert digest_of("x", "This builds on the cache introduced by #7 and extends it.").refs == ()


def test_a_restore_whose_body_calls_itself_the_revert_reverts_the_change_it_names():
    """Real #12605 (2026-W30): "Restore FIA decode mask handling", whose body says the change #11266
    made regressed and "The revert showed a clear accuracy improvement": a revert under another
    title, so #11266 is told as undone and never names a line of work."""
    body = (
        "### What this PR does / why we need it?\nThis PR restores the causal attention mask.\n"
        "The decode mask optimization introduced by #11266\ncauses a Gemma4 MoE graph-mode accuracy "
        "regression on Atlas A2. The revert showed a clear accuracy improvement.\n"
    )
    d = digest_of(
        "[BugFix] Restore FIA decode mask handling", body, repo="acme/serve", number=12605
    )
    (ref,) = d.refs
    assert (ref.kind, ref.number) == ("reverts", 11266)
    assert ref.context.startswith("The decode mask optimization introduced by #11266 causes")
    # "restore" alone is no revert: a title that restores a behaviour two changes name
    two = body.replace("by #11266", "by #11266 and #11300 (regression caused by #11300)")
    assert not any(
        r.kind == "reverts"
        for r in digest_of(
            "[BugFix] Restore FIA decode mask handling", two, repo="acme/serve", number=12605
        ).refs
    )
    # a title that does not undo ("Improve …") keeps the fix-up even where the body says revert
    assert [
        r.kind
        for r in digest_of(
            "[BugFix] Improve FIA decode mask handling", body, repo="acme/serve", number=12605
        ).refs
    ] == ["fix_up"]


def test_a_restore_that_reports_reverting_as_an_experiment_is_the_regressions_fix():
    """Real #13412 (2026-08-05), "Restore BF16 quant method initialization": #13268 caused a
    regression, and "reverting #13268 restores BF16 accuracy" is what was tried, not what this
    change does — it fixes #13268's regression, it reverts nothing."""
    body = (
        "### What this PR does / why we need it?\n\nPR #13268 moved Ascend quant-method selection "
        "into\n`AscendRoutedExperts._get_quant_method`.\n\nThis change restores that ordering when "
        "`quant_config is None`.\n\nThe issue was observed as a MiniMax M3 BF16 accuracy regression "
        "after\n#13268. The W8A8 configuration remains correct, and reverting #13268\nrestores BF16 "
        "accuracy.\n"
    )
    d = digest_of("[BugFix][FusedMoE] Restore BF16 quant method initialization", body, number=13412)
    assert [(r.kind, r.number) for r in d.refs] == [("fix_up", 13268)]
    assert d.what.startswith("PR #13268 moved Ascend quant-method selection")
    # the same words as what this change does still say revert
    done = body.replace("reverting #13268\nrestores BF16 accuracy", "this PR reverts #13268")
    assert ("reverts", 13268) in {(r.kind, r.number) for r in digest_of("Restore", done).refs}


def test_a_line_of_references_alone_is_no_what():
    """Real #10534's description opens with "Fixes #10989, fixes #10987." — which says nothing
    of what the change does: the next sentence does."""
    body = (
        "### What this PR does / why we need it?\nFixes #10989, fixes #10987.\n\n"
        "Upgrade the vLLM dependency to v0.23.0 and adapt the patches it made obsolete.\n"
    )
    d = digest_of("[Misc] main2main upgrade vllm to v0.23.0", body)
    assert (
        d.what == "Upgrade the vLLM dependency to v0.23.0 and adapt the patches it made obsolete."
    )
    assert {(r.kind, r.number) for r in d.refs} >= {("fixes", 10989), ("fixes", 10987)}


@pytest.mark.parametrize(
    "number,start",
    [
        # real bodies: what went wrong, in the description's words (2026-07-17)
        (
            12237,
            "If one card enters the MOE large fusion operator and the other card enters the TP "
            "communication, the two operators will be deadlocked.",
        ),
        (
            11917,
            "With a layerwise KV connector, this can leave the GDN/Mamba cache group unsubmitted",
        ),
        (
            12126,
            "This prevents Mooncake PD-disaggregated decode workers from leaking an extra NPU context",
        ),
    ],
)
def test_a_grave_problem_is_the_symptom_in_the_descriptions_words(number, start):
    row, d = real(number)
    assert d.symptom.startswith(start)
    assert is_span(d.symptom, row["body"])


def test_no_symptom_without_a_grave_problem_nor_from_a_test_section_or_a_log_line():
    assert (
        digest_of(
            "[Perf] faster kernel",
            "### What this PR does / why we need it?\nSpeeds the decode kernel up by 10%.\n",
        ).symptom
        == ""
    )
    tested = (
        "### What this PR does / why we need it?\nAdds a new option.\n"
        "### How was this patch tested?\nRan the stress test for 8 hours: no hang, no OOM.\n"
    )
    assert digest_of("[Feature] new option", tested).symptom == ""
    log = "Fixes the scheduler.\n\n(EngineCore pid=123) ERROR 06-10 12:00:01 [core.py:88] EngineCore crashed\n"
    assert digest_of("[BugFix] scheduler", log).symptom == ""


def test_a_description_with_escaped_line_breaks_is_read_line_by_line():
    """Real #12605 came with "\\n" written out instead of line breaks: its sentences and its
    revert reason are read as if the lines were there."""
    row, d = real(12605)
    assert "\\n" in row["body"]
    assert d.symptom.startswith(
        "The decode mask optimization introduced by #11266 causes a Gemma4 MoE"
    )
    assert "\\n" not in d.symptom and "\\n" not in d.what
    (rev,) = [r for r in d.refs if r.kind == "reverts"]
    assert rev.number == 11266


def test_a_counted_intro_without_a_colon_gives_way_to_its_list():
    """Real #13532: "this pr accomplish two things" over a numbered list — the list says what."""
    row, d = real(13532)
    assert d.what.startswith("change some description of input parameter to avoid re-compilation")
    assert is_span(d.what, row["body"])
    plain = "This PR does two things to the cache.\n\n1. first\n2. second\n"
    assert digest_of("x", "### What this PR does / why we need it?\n" + plain).what.startswith(
        "This PR does two"
    )


def test_a_change_fixing_what_another_caused_is_its_fix_up():
    """Real #9869: "Fixes <a CI run>, caused by <the link of #9744>" — a fix-up of #9744, which
    makes #9744 → #9869 → both reverted one line of instability (2026-W23)."""
    _row, d = real(9869)
    assert [(r.kind, r.number) for r in d.refs] == [("fix_up", 9744)]
    assert [
        (r.kind, r.number)
        for r in digest_of("x", "The hang was broken by #12 and regressed by #13.").refs
    ] == [("fix_up", 12), ("fix_up", 13)]
    # "caused" that is not "caused by" a change says nothing of one
    assert digest_of("x", "It caused trouble, see #7 for context.").refs == ()


@pytest.mark.parametrize(
    "number,broke",
    [
        # "After PR [non-sp-padding](<link>), kimi2.5 open flashcomm1 will raise an error" (W13)
        (7614, 7297),
        # "… test case that been incorrectly skipped in PR: <link>" (2026-W13)
        (7505, 7412),
        # "Since PR #2614 310I Duo been broken."
        (3455, 2614),
        # "It was accidentally re-introduced by vllm-project/vllm-ascend#6043"
        (14643, 6043),
    ],
)
def test_a_change_that_answers_a_breakage_after_another_is_its_fix_up(number, broke):
    """A change named as what came before a breakage, or as where something went wrong by
    mistake, is a fix-up of it (the 2026-W13 reading missed #7297 → #7614)."""
    _row, d = real(number)
    assert ("fix_up", broke) in {(r.kind, r.number) for r in d.refs}


@pytest.mark.parametrize(
    "body",
    [
        "After PR #12, we can now support the new scheduler.",
        "Since PR #12 landed, the cache is shared by both workers.",
        "After PR #12 the kernel is 2x faster.",
        "This was intentionally skipped in PR #12 and stays skipped.",
    ],
)
def test_after_a_change_without_a_breakage_is_no_fix_up(body):
    assert all(r.kind != "fix_up" for r in digest_of("x", body).refs)


@pytest.mark.parametrize(
    "number,start",
    [
        # where the change comes from is passed over for what it does (2026-W04, W23 readings)
        (
            5702,
            "Extends DSA-CP to handle the FULL_DECODE_ONLY execution mode",
        ),  # "Extracted from PR #5513"
        (
            9701,
            "this PR keeps KV Pool load failure block-id reporting",
        ),  # "Based on #7476, this PR keeps …"
        (
            5721,
            "aims to further enhance the npu_graph_ex_passes module",
        ),  # "This PR builds upon PR <link> and …"
    ],
)
def test_what_a_change_rests_on_gives_way_to_what_it_does(number, start):
    row, d = real(number)
    assert d.what.startswith(start), d.what
    assert is_span(d.what, row["body"])
