"""Lines by kind of file (issue #15): the day 2026-07-09's "net reduction of 73 lines" hid docs and
translations -12.5k net and code +12.4k net, most of it one operator migrated in from another
repository (#11626). The window's lines are split into code, tests, docs, ci, generated and
imported code; real titles, descriptions and per-file lines of the vllm-ascend history."""

from __future__ import annotations

from datetime import UTC, datetime

from services.classifier.domain.digest import digest_of
from services.summarizer.domain.report import imported, line_kind, lines_by_kind
from shared.events import Actor, FileChange, ItemSnapshot, Tag, Tags
from tests.conftest import history_prs

REPO = "vllm-project/vllm-ascend"


def snap_tags(number: int) -> tuple[ItemSnapshot, Tags]:
    row = history_prs()[number]
    files = tuple(
        FileChange(path=f["path"], additions=f["additions"] or 0, deletions=f["deletions"] or 0)
        for f in row["files"]
    )
    at = datetime.fromisoformat(row["merged_at"]).astimezone(UTC)
    snap = ItemSnapshot(
        repo=REPO,
        number=number,
        kind="pull_request",
        title=row["title"],
        author=Actor(login="someone"),
        state="closed",
        created_at=at,
        merged_at=at,
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        changed_files=len(files),
        files=files,
    )
    digest = digest_of(row["title"], row["body"] or "", repo=REPO, number=number)
    return snap, Tags(digest=digest)


def test_each_path_has_its_kind():
    assert line_kind("vllm_ascend/ops/triton/reject_sample.py") == "code"
    assert line_kind("csrc/attention/kernel.cpp") == "code"
    assert line_kind("tests/ut/sample/test_rejection_sampler.py") == "tests"
    assert line_kind("docs/source/locale/zh_CN/LC_MESSAGES/index.po") == "docs"
    assert line_kind("README.md") == "docs"
    assert line_kind(".github/workflows/nightly.yaml") == "ci"
    assert line_kind("third_party/catlass/include/gemm.hpp") == "generated"
    assert line_kind("uv.lock") == "generated"
    assert line_kind("proto/service_pb2.py") == "generated"


def test_code_brought_in_from_elsewhere_is_imported():
    # "Migrate attention/kv_quant_sparse_flash_attention from ops-transformer" (+9,947 / -0)
    # and "Ports the mixed precision … changes from cann-recipes-infer PR 456"
    for number in (11626, 9363, 9035):
        assert imported(*snap_tags(number)), number


def test_a_switch_or_a_move_inside_the_project_is_not_imported():
    # "migrate compilation backend from torchair to npugraph_ex" takes out as much as it adds;
    # "migrate doc from sphinx to mkdocs" too; reduce sampling and a DeepSeek V4 fix bring
    # nothing in; "Move AscendSpecDecodeBaseProposer … from eagle_proposer.py" moves code inside
    for number in (9201, 11252, 8308, 9545, 9251):
        assert not imported(*snap_tags(number)), number


def test_the_kinds_add_up_to_the_totals_and_tell_code_from_docs():
    numbers = (11626, 11252, 8308, 9201, 9681, 9567)
    changes = [snap_tags(n) for n in numbers]
    split = {c.kind: c for c in lines_by_kind(changes)}
    assert sum(c.added for c in split.values()) == sum(s.additions for s, _ in changes)
    assert sum(c.removed for c in split.values()) == sum(s.deletions for s, _ in changes)
    # #11626's operator is imported code, not the project's own; #11252's docs are docs
    assert split["imported"].added >= 9000
    assert split["docs"].added > 5000 and split["docs"].removed > 5000
    assert split["tests"].added > 0
    order = [c.kind for c in lines_by_kind(changes)]
    assert order[0] == "code" and order.index("imported") > order.index("docs")


def test_lines_a_source_does_not_list_are_unlisted():
    snap, tags = snap_tags(9545)
    partial = snap.model_copy(update={"files": snap.files[:1], "additions": snap.additions + 7})
    split = {c.kind: c for c in lines_by_kind([(partial, tags)])}
    assert split["unlisted"].added == 7 + sum(f.additions for f in snap.files[1:])
    assert "docs" not in split


def test_top_level_examples_are_docs_not_code():
    from services.summarizer.domain.report import line_kind

    # 2026-06-10's #9645, one proxy example script of 1,276 lines, ranked as code
    assert line_kind("examples/disaggregated_prefill_v1/load_balance_proxy_server_example.py") == (
        "docs"
    )
    assert line_kind("vllm_ascend/examples_registry.py") == "code"
    assert line_kind("vllm_ascend/worker/model_runner_v1.py") == "code"


def test_a_pr_has_one_kind_its_storyline_gives_it():
    from services.summarizer.domain.report import item_ref

    # "[Refactor][Feature] Remove compress attention manager for DeepSeek V4" (real #13242)
    snap, tags = snap_tags(13242)
    cats = tuple(Tag(name=c, rule=f"cat:{c}") for c in ("refactor", "feature"))
    assert item_ref(snap, tags.model_copy(update={"categories": cats})).role == "refactor"
