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


def test_a_name_with_its_long_form_is_told_whole_first_and_short_after() -> None:
    """The profile's topics (services/classifier/profiles/vllm-ascend.yaml) and the storylines
    name acronyms with their long form: whole in the lead, highlights and headings, short in
    running text after (the key-PR reasons, the trend cells, the risks' areas)."""
    from services.renderer.domain.view import _short_name

    assert _short_name("MRV2 (Model Runner V2)") == "MRV2"
    assert _short_name("Ascend 950 (A5)") == "A5"
    assert _short_name("310P (Atlas 300I inference cards)") == "310P"
    assert _short_name("SFA (sparse flash attention)") == "SFA"
    # a phrase explained by a phrase, a name explained by a word, a name alone: as they are
    for whole in (
        "KV pool and offload (KV cache outside NPU memory)",
        "Dspark (DeepSeek)",
        "vLLM (upstream)",
        "DeepSeek V4",
    ):
        assert _short_name(whole) == whole
    name = "MRV2 (Model Runner V2)"
    s = _summary({name: MRV2})
    key = s.key_prs[:0]  # (no key PR needed: the lead and the highlights name the line)
    view = build_view(s.model_copy(update={"key_prs": key}), messages("en"))
    assert name in view.lead and any(b.head == name for b in view.highlights)
    # the trend cell of a module most of whose changes are the line's names it short
    from services.renderer.domain.view import _Writer

    assert _Writer(s, messages("en")).module_storyline("speculative-decoding") == "MRV2"


def test_an_area_keeps_its_capitals_where_they_are_a_name() -> None:
    """2026-W34's removals line read '涉及 moE 和 V1 引擎': a module's name is lowered in English
    only, and only where its first word is a plain word ('models', not 'MoE')."""
    rows = [
        (13782, "[Refactor] Remove MiniMax-M2 fp8 dequant load_weights patch", "refactor",
         ("moe", "models"), ("refactor",)),
        (13789, "[Refactor] Remove MiniMax-M2 MoE fp32 gate patch", "refactor",
         ("moe", "models"), ("refactor",)),
        (13946, "[Refactor] remove FlashComm v1", "refactor", ("moe", "distributed"),
         ("refactor",)),
        (12923, "[Refactor][Distributed] Remove all_to_all patch", "refactor", ("distributed",),
         ("refactor",)),
    ]  # fmt: skip
    from services.renderer.domain.view import _Writer

    s = _summary({"Removals": rows})
    en = _Writer(s, messages("en"))
    names = [en.module(n) for n in ("moe", "models", "distributed")]
    assert names[0] == "MoE" and names[1][1:].islower()
    assert en.line_areas(s.storylines[0]) == ["MoE", names[1].lower()]
    zh = _Writer(s, messages("zh-CN"))
    assert zh.line_areas(s.storylines[0]) == [zh.module("moe"), zh.module("models")]
