"""Lines of work found from what ties changes together rather than from their words alone: an
issue or RFC that several descriptions link, and a [Tag] that several titles share (a reader's
findings on 2026-W02, issue #15: "P/D", nine PRs of disaggregated serving, was told nowhere while
section 2 held module leftovers). Real windows of the vllm-ascend history, read in place (skipped
where ../shared/data is absent, failing in CI), and built items for what the history lacks."""

from __future__ import annotations

from datetime import UTC, datetime

from services.summarizer.domain.storylines import (
    StoryItem,
    find_storylines,
    shared_refs,
    title_tags,
)
from shared.events import Digest, Reference
from tests.unit.summarizer.test_storylines_real_windows import _item, lines_of, numbers, week


def _line_of(lines, number: int):
    return next((line for line in lines if number in numbers(line)), None)


# ---------------------------------------------------------------- [Tags]


def test_a_tag_that_titles_share_names_their_line_of_work():
    # 2026-W02: "[P/D] Performance enhancement of Layerwise connector …", "[BugFix][P/D] Fix
    # pre-create link parameter error", "[P/D]Remove mooncake kvpool unused parameter …",
    # "[P/D] layerwise connector supports DeepSeek-V3.2 …": one line, named by the tag; "[Doc]
    # add new doc for mooncake: PD-Colocated …" writes its name and joins
    lines, _items = lines_of(week(2026, 2), 7)
    pd = _line_of(lines, 5540)
    assert pd is not None and pd.name == "P/D", [(s.name, sorted(numbers(s))) for s in lines]
    assert {5540, 5574, 5694, 5722, 5415} <= numbers(pd)
    # nothing of another subject: every change is tagged or names P/D in its title
    for m in pd.items:
        assert "pd" in title_tags(_item(m.number).title) or "PD" in _item(m.number).title


def test_a_tag_of_a_kind_a_place_or_a_release_names_no_line():
    assert title_tags("[Feat][Bugfix][main] Adapted SP to eagle3") == {"main": "main"}
    assert title_tags("[BugFix][P/D] Fix pre-create link parameter error") == {"pd": "P/D"}
    assert title_tags("[CI/UT][Doc] Fix nightly") == {}  # words of kinds of change
    assert title_tags("[1/N][Refactor] Refactor accuracy test") == {}  # a place in a series
    assert title_tags("[v0.13.0][Bugfix] Fix a backport") == {}  # a release
    assert title_tags("[Refactor]3/N Refactor mla_v1.py") == {}


def test_a_tag_whose_word_titles_write_everywhere_is_an_area_not_a_line():
    # 2026-W23: seven "[Ops]" titles — a memory profiler, an env variable removed, a dtype table,
    # two new operators — are the kernels area ("ops" is in 3% of the history's titles); 2026-W31:
    # three "[main]" titles of three subjects
    for first, tag in ((week(2026, 23), "ops"), (week(2026, 28), "ops"), (week(2026, 31), "main")):
        lines, items = lines_of(first, 7)
        tagged = [n for n, i in items.items() if tag in title_tags(i.title)]
        assert len(tagged) >= 3, (first, tag)
        assert f"tag:{tag}" not in {line.key for line in lines}


def _built(number: int, title: str, modules: tuple[str, ...], files: tuple[str, ...], **kw):
    return StoryItem(
        number=number,
        title=title,
        merged_at=datetime(2026, 1, 6, 10, number % 50, tzinfo=UTC),
        digest=kw.pop("digest", None),
        files=files,
        categories=kw.pop("categories", ("feature",)),
        modules=modules,
        additions=40,
        deletions=10,
        **kw,
    )


def test_a_rare_tag_over_changes_of_many_subjects_names_no_line():
    # three "[Hotpatch]" titles of three modules and no file in common: a label of a kind of
    # change whatever its word; the same three in one module and files are a line
    spread = [
        _built(1, "[Hotpatch] Add sampler knob", ("sampling",), ("pkg/sampler.py",)),
        _built(2, "[Hotpatch] Support LoRA ranks", ("lora",), ("pkg/lora/ranks.py",)),
        _built(3, "[Hotpatch] Speed up MoE routing", ("moe",), ("pkg/moe/router.py",)),
    ]
    lines = find_storylines(spread, [], {}, 1000)
    assert not any(line.key == "tag:hotpatch" for line in lines)
    together = [
        _built(1, "[Hotpatch] Add sampler knob", ("sampling",), ("pkg/sampler.py",)),
        _built(2, "[Hotpatch] Support top-k in sampler", ("sampling",), ("pkg/topk.py",)),
        _built(3, "[Hotpatch] Speed up sampler", ("sampling",), ("pkg/penalty.py",)),
    ]
    lines = find_storylines(together, [], {}, 1000)
    (line,) = [line for line in lines if line.key == "tag:hotpatch"]
    assert line.name == "Hotpatch" and numbers(line) == {1, 2, 3}


# ---------------------------------------------------------------- shared links


def test_changes_that_link_one_rfc_are_its_line_of_work():
    # 2025-W52: four descriptions link the attention refactor's RFC #4629 ("Extract common code
    # of mla_v1.py", "move the metadata from attention_v1 to util", "cache cos/sin in mla", "6/N
    # Extract common code of class AscendMLAImpl"), two of them parts of a series that names it
    lines, items = lines_of(week(2025, 52), 7)
    linking = {n for n, i in items.items() if (None, 4629) in shared_refs(i)}
    assert linking >= {5097, 5203, 5277, 5314}
    rfc = _line_of(lines, 5203)
    assert rfc is not None and linking <= numbers(rfc)
    assert rfc.name == "Extract common code"
    # 2026-W04: three changes "[RFC: issue 5476]" of DispatchGmmCombineDecode, named by the
    # issue rather than by "RFC", the word of the reference (a line of three the report leaves
    # out for heavier ones, the attention module's five changes: read with room for all)
    lines, _items = lines_of(week(2026, 4), 7, limit=20)
    line = _line_of(lines, 5758)
    assert line is not None and {5755, 5758, 5932} <= numbers(line)
    assert line.name != "RFC"


def test_two_changes_linking_an_rfc_make_no_line_of_their_own():
    # 2026-W02: only #5540 and #5722 link RFC #4842; they are told with the other P/D changes
    lines, items = lines_of(week(2026, 2), 7)
    assert {n for n, i in items.items() if (None, 4842) in shared_refs(i)} == {5540, 5722}
    assert not any(line.key.startswith("ref:") for line in lines)
    line = _line_of(lines, 5722)
    assert line is not None and line.key == "tag:pd"


def _linking(number: int, title: str, module: str, target: int, kind: str = "related"):
    digest = Digest(refs=(Reference(kind=kind, number=target),))
    return _built(number, title, (module,), (f"pkg/{module}/m{number}.py",), digest=digest)


def test_a_linked_rfc_whose_title_is_known_names_the_line():
    rfc = _built(100, "[RFC]: CDCP Scheduling for Disaggregated Prefill", (), (), kind="issue")
    window = [
        _linking(201, "Tune layerwise transfer", "kv-transfer", 100),
        _linking(202, "Add decode node heartbeat", "scheduler", 100, "fixes"),
        _linking(203, "Support asymmetric TP in proxy", "distributed", 100),
        _built(204, "Fix typo in README", ("docs",), ("README.md",)),
    ]
    lines = find_storylines(window, [], {}, 1000, referenced={100: rfc})
    (line,) = [line for line in lines if line.key == "ref:#100"]
    assert line.name == "CDCP Scheduling for Disaggregated Prefill"
    assert numbers(line) == {201, 202, 203}
    # two changes linking it are no line of their own
    lines = find_storylines(window[:2] + window[3:], [], {}, 1000, referenced={100: rfc})
    assert not any(line.key.startswith("ref:") for line in lines)
