"""A line of work opens with one sentence of its facts before any quote: its kinds of change and
the areas its code changes touch beyond what all of them share (issue #15, a reader of 2026-W34:
"highlights and themes explain nothing … write one sentence per theme from structured facts").
The lines are real 2026-W34 lines of vllm-project/vllm-ascend: their titles, kinds and the
classifier's modules as that week's report shows them."""

from __future__ import annotations

from services.renderer.adapters.catalogs import messages
from services.renderer.domain.view import build_view
from shared.events import Appendix, Storyline, StorylineItem

from .explain_samples import explained_summary
from .samples import pr

MRV2 = [  # (number, title, role, modules, kinds)
    (14105, "[Feature][MRV2] Support MTP with SFA in eager mode", "feature",
     ("v1-engine", "speculative-decoding"), ("feature",)),
    (13470, "[Bugfix][MRV2] Support probabilistic rejection sampling for spec decode", "fix",
     ("v1-engine", "speculative-decoding", "sampling"), ("bugfix",)),
    (14394, "[BugFix][MRV2] Fix graph batch routing for FULL_DECODE_ONLY", "fix",
     ("v1-engine", "compilation"), ("bugfix",)),
    (14023, "[Feature][MRV2] Support basic GQA prefill context parallelism", "feature",
     ("v1-engine", "distributed", "attention"), ("feature",)),
    (13847, "[MRV2][Feature][Bugfix] Support and fix Top-K/Top-P Triton kernel on Ascend",
     "feature", ("v1-engine", "sampling", "kernels"), ("feature", "bugfix")),
    (12968, "[Feature][MRV2] Support DSV4 Dspark", "feature",
     ("v1-engine", "speculative-decoding", "attention"), ("feature",)),
    (14696, "[BugFix][MRV2] Fix DSpark spec decoding on model runner v2", "fix",
     ("v1-engine", "speculative-decoding", "attention", "models"), ("bugfix",)),
]  # fmt: skip
A5 = [  # a feature beside docs and CI changes: the docs are no area of the line
    (14412, "[Feature][Model] Support MiniMax M3 MXFP8 inference on Ascend 950", "feature",
     ("models", "quantization", "moe"), ("feature",)),
    (14295, "[CI] add a5 nightly multi-node test", "ci", ("ci",), ("platform-ci",)),
    (12426, "[Doc] Add A5 deployment guide", "docs", ("docs",), ("documentation",)),
    (12718, "[Doc] Update A5 installation docs", "docs", ("docs",), ("documentation",)),
]  # fmt: skip


def _summary(lines: dict[str, list]):
    items = [
        pr(n, title, "dev", modules=mods, categories=kinds)
        for rows in lines.values()
        for n, title, _, mods, kinds in rows
    ]
    storylines = tuple(
        Storyline(
            key=name.lower(),
            name=name,
            items=tuple(StorylineItem(number=n, role=role) for n, _, role, _, _ in rows),
            lead=rows[0][0],
            merged=len(rows),
        )
        for name, rows in lines.items()
    )
    return explained_summary(
        storylines=storylines,
        appendix=Appendix(merged_prs=tuple(items)),
        key_prs=(),
    )


def test_a_line_says_its_kinds_and_the_areas_its_changes_touch() -> None:
    s = _summary({"MRV2": MRV2})
    w_en = build_view(s, messages("en"))
    mrv2 = next(b for b in w_en.highlights if b.head == "MRV2")
    # every change touches the engine (the line itself): the areas are what most of them add
    assert mrv2.text.startswith("4 features and 3 fixes in speculative decoding and ")
    assert "engine" not in mrv2.text.split(".")[0].lower()
    theme = next(t for t in w_en.themes if t.title == "MRV2")
    assert "4 features and 3 fixes in speculative decoding and " in theme.text
    zh = next(b for b in build_view(s, messages("zh-CN")).highlights if b.head == "MRV2")
    assert zh.text.startswith("4 个新功能和 3 个修复，涉及推测解码和")


def test_docs_and_ci_are_no_area_and_one_change_names_none() -> None:
    s = _summary({"Ascend 950 (A5)": A5, "MRV2": MRV2})
    view = build_view(s, messages("en"))
    a5 = next(b for b in view.highlights if b.head == "Ascend 950 (A5)")
    first = a5.text.split(". ")[0]
    # one feature's modules are named by one change only: no area stands out, the kinds say it
    assert first.startswith("1 feature, 2 docs changes and 1 CI change"), first
    assert " in " not in first and "docs changes in" not in a5.text


def test_tests_a_change_says_were_not_run_are_said_so_not_as_a_kind() -> None:
    """Real #14046 (2026-W34): unit tests and CI, and 'NPU end-to-end validation has not been
    run' — the zh-CN report read '附单元、CI 和 not run 测试'."""
    from services.renderer.domain.view import _Writer
    from shared.events import Digest

    item = pr(14046, "Support Mooncake Layerwise SFA Transfer", "dev").model_copy(
        update={"digest": Digest(what="x", tested=("unit", "ci", "not_run"))}
    )
    for lang, kinds, not_run in (
        ("en", "tested: unit and CI", "says some of its tests were not run"),
        ("zh-CN", "附单元和 CI 测试", "自述部分测试未运行"),
    ):
        notes = _Writer(explained_summary(), messages(lang)).digest_notes(item)
        assert kinds in notes and not_run in notes
        assert not any("not run" in n or "not_run" in n for n in notes if n != not_run)
    plain = item.model_copy(update={"digest": Digest(what="x", tested=("unit",))})
    assert not any(
        "未运行" in n for n in _Writer(explained_summary(), messages("zh-CN")).digest_notes(plain)
    )
