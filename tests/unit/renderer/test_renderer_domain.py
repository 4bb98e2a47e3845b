"""Pure parts of the renderer: keys, the report index, catalogs, the view of sparse summaries."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml

from services.renderer.adapters.catalogs import I18N_DIR, messages
from services.renderer.adapters.documents import md_escape, render_html, render_markdown
from services.renderer.domain.keys import (
    UnsafeKey,
    artifact_key,
    check_key,
    component,
    entry_key,
    entry_keys,
    index_key,
    is_entry_key,
    merge_index,
    split_entry,
)
from services.renderer.domain.view import build_view
from shared.events import Counts, SummaryData, WindowRef

from .samples import daily_summary, weekly_summary

# ---------------------------------------------------------------- keys


def test_artifact_key_layout() -> None:
    assert (
        artifact_key("vllm-project/vllm", "2026-W24", 3, "zh-CN", "report.pdf")
        == "reports/vllm-project/vllm/2026-W24/r3/zh-CN/report.pdf"
    )
    assert index_key("vllm-project/vllm") == "reports/vllm-project/vllm/index.json"


@pytest.mark.parametrize(
    "raw, safe",
    [
        ("..", "_"),
        (".", "_"),
        ("a/b", "a_b"),
        ("../../etc", "_.._etc"),
        ("", "_"),
        ("we ird*name", "we_ird_name"),
        (".hidden", "hidden"),
        ("ok.name-1_2", "ok.name-1_2"),
    ],
)
def test_component_never_escapes(raw: str, safe: str) -> None:
    assert component(raw) == safe
    assert "/" not in component(raw) and component(raw) not in ("", ".", "..")


@pytest.mark.parametrize("key", ["", "/abs/key", "a/../b", "a//b", "./a", "a/b/", "a b/c"])
def test_check_key_rejects_unsafe(key: str) -> None:
    with pytest.raises(UnsafeKey):
        check_key(key)


def test_hostile_repo_and_label_stay_under_their_prefix() -> None:
    key = artifact_key("../..", "..", 1, "en", "../report.md")
    assert key.startswith("reports/") and ".." not in key.split("/")


# ---------------------------------------------------------------- index


def _entry(label: str, start: str, revision: int, langs=("en",)) -> dict:
    return {
        "window": {"kind": "day", "label": label, "start": start, "end": start, "tz": "UTC"},
        "revision": revision,
        "languages": list(langs),
        "artifacts": [
            {"language": lang, "format": "md", "uri": f"x://{label}/{revision}/{lang}"}
            for lang in langs
        ],
    }


def test_index_lists_newest_first_and_marks_latest_revision() -> None:
    index = None
    index = merge_index(index, "o/r", _entry("2026-03-25", "2026-03-25T00:00:00+00:00", 1))
    index = merge_index(index, "o/r", _entry("2026-03-27", "2026-03-27T00:00:00+00:00", 1))
    index = merge_index(index, "o/r", _entry("2026-03-25", "2026-03-25T00:00:00+00:00", 2))
    labels = [(r["window"]["label"], r["revision"], r["latest"]) for r in index["reports"]]
    assert labels == [("2026-03-27", 1, True), ("2026-03-25", 2, True), ("2026-03-25", 1, False)]


def test_index_merges_languages_of_one_revision() -> None:
    index = merge_index(None, "o/r", _entry("d", "2026-01-01", 1, ("en",)))
    index = merge_index(index, "o/r", _entry("d", "2026-01-01", 1, ("zh-CN",)))
    index = merge_index(index, "o/r", _entry("d", "2026-01-01", 1, ("zh-CN",)))  # redelivery
    (report,) = index["reports"]
    assert report["languages"] == ["en", "zh-CN"]
    assert [a["language"] for a in report["artifacts"]] == ["en", "zh-CN"]


def test_index_entries_one_per_language_and_what_an_index_covers() -> None:
    entry = _entry("d", "2026-01-01", 2, ("en", "zh-CN"))
    parts = split_entry(entry)
    assert [p["languages"] for p in parts] == [["en"], ["zh-CN"]]
    assert [[a["language"] for a in p["artifacts"]] for p in parts] == [["en"], ["zh-CN"]]
    key = entry_key("o/r", "d", 2, "zh-CN")
    assert key == "reports/o/r/d/r2/zh-CN/index-entry.json" and is_entry_key(key)
    assert not is_entry_key("reports/o/r/d/r2/zh-CN/report.json")
    index = merge_index(None, "o/r", parts[0])
    assert entry_keys(index, "o/r") == {entry_key("o/r", "d", 2, "en")}
    index = merge_index(index, "o/r", parts[1])
    assert entry_keys(index, "o/r") == {entry_key("o/r", "d", 2, "en"), key}
    assert entry_keys(None, "o/r") == set()


# ---------------------------------------------------------------- catalogs


def _paths(node, prefix=""):
    if isinstance(node, dict) and not (set(node) <= {"one", "other"} and "other" in node):
        for k, v in node.items():
            yield from _paths(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip(".")


def test_catalogs_have_the_same_keys() -> None:
    en = set(_paths(yaml.safe_load((I18N_DIR / "en.yaml").read_text(encoding="utf-8"))))
    zh = set(_paths(yaml.safe_load((I18N_DIR / "zh-CN.yaml").read_text(encoding="utf-8"))))
    assert en - zh == set(), f"missing in zh-CN.yaml: {sorted(en - zh)}"
    assert zh - en == set(), f"missing in en.yaml: {sorted(zh - en)}"


def test_english_plural_forms() -> None:
    m = messages("en")
    assert m.tn("risks.bullet", 1, count="1", severity="high") == "high, 1 item"
    assert m.tn("risks.bullet", 4, count="4", severity="high") == "high, 4 items"


def test_unknown_tag_values_are_made_readable() -> None:
    assert messages("en").name("module_names", "kv_offload") == "kv offload"
    assert messages("zh-CN").name("module_names", "spec_decode") == "推测解码"


# ---------------------------------------------------------------- views


def _empty(**kw) -> SummaryData:
    window = WindowRef(
        kind="day",
        label="2026-01-05",
        start=datetime(2026, 1, 5, tzinfo=UTC),
        end=datetime(2026, 1, 6, tzinfo=UTC),
    )
    kw.setdefault("window", window)
    return SummaryData(
        repo="o/quiet",
        revision=1,
        generated_at=datetime(2026, 1, 6, 1, tzinfo=UTC),
        counts=Counts(),
        **kw,
    )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_an_empty_window_still_has_every_section(lang: str) -> None:
    m = messages(lang)
    # a weekly window has every section of seed 000 (and ours); hot discussions and ecosystems,
    # made from what many sources lack, are left out when empty
    from services.renderer.domain.view import LEFT_OUT_EMPTY

    assert LEFT_OUT_EMPTY == {"discussions", "ecosystems"}
    week = WindowRef(
        kind="week",
        label="2026-W02",
        start=datetime(2026, 1, 5, tzinfo=UTC),
        end=datetime(2026, 1, 12, tzinfo=UTC),
    )
    text = render_markdown(_empty(window=week), lang)
    for section in (
        "highlights",
        "summary",
        "themes",
        "modules",
        "key_prs",
        "activity",
        "risks",
        "follow_ups",
        "appendix",
    ):
        assert m.t(f"sections.{section}") in text
    assert m.t("sections.discussions") not in text and m.t("sections.ecosystems") not in text
    assert text.count(m.t("labels.none")) >= 8
    assert "None" not in text  # no Python None leaks into prose
    # a day window has the other sections of seed 003, each saying it has nothing
    text = render_markdown(_empty(), lang)
    for sid in (
        "summary",
        "topics",
        "key_prs",
        "activity",
        "attention",
        "appendix",
    ):
        key = f"sections_day.{sid}" if m.has(f"sections_day.{sid}") else f"sections.{sid}"
        assert m.t(key) in text
    assert m.t("attention.none") in text
    assert "None" not in text


def test_synthetic_notice_only_when_synthetic() -> None:
    notice = messages("en").t("notice.synthetic")
    assert notice in render_markdown(_empty(synthetic=True), "en")
    assert notice not in render_markdown(_empty(), "en")
    assert "Data note: from a file" in render_markdown(_empty(data_note="from a file"), "en")


def test_every_item_links_to_github() -> None:
    s = daily_summary()
    text = render_markdown(s, "en")
    for item in s.appendix.merged_prs + s.appendix.new_issues:
        assert f"[#{item.number}]({item.url})" in text


def test_markdown_escaping_keeps_titles_inert() -> None:
    assert md_escape("[x](http://evil) | *b* <script>") == r"\[x\](http://evil) \| \*b\* \<script\>"


def test_view_orders_key_prs_by_score() -> None:
    view = build_view(daily_summary(), messages("en"))
    scores = [float(k.score) for k in view.key_prs]
    assert scores == sorted(scores, reverse=True) and scores[0] == 8.8


def test_window_in_its_time_zone() -> None:
    view = build_view(daily_summary(), messages("en"))
    window = dict((f.label, f.value) for f in view.header)["Window"]
    assert window.startswith("2026-03-26 11:45 to 2026-03-27 11:45 (Asia/Shanghai, UTC+8)")


def test_html_has_charts_no_script_and_is_deterministic() -> None:
    html = render_html(weekly_summary(), "zh-CN")
    assert html == render_html(weekly_summary(), "zh-CN")
    assert html.count("<svg") == 3
    assert "<script" not in html.lower() and "pygal.js" not in html
    assert '<html lang="zh-CN">' in html
    assert "&#34;" not in html.split("</style>")[0]  # the stylesheet is not HTML-escaped


def test_changed_figures_are_readable_and_hide_digests() -> None:
    text = render_markdown(daily_summary(), "en")
    line = next(t for t in text.splitlines() if t.startswith("> Revision 2"))
    assert "merged PRs 39 → 41" in line and "MoE items 24 → 26" in line
    assert "Core paths changed - → 32" in line and "the selection of key PRs" in line
    assert "2894301447" not in text and "3390217781" not in text
    zh = render_markdown(daily_summary(), "zh-CN")
    assert "合并 PR 39 → 41" in zh and "重点 PR 的选择" in zh


@pytest.mark.parametrize(
    "body, expected",
    [
        (
            "<!-- template -->\n## Purpose\nAdds **fused** `RoPE`.\n\n## Test Plan\npytest -x",
            "Adds fused RoPE.",
        ),
        ("", ""),
    ],
)
def test_excerpt_is_plain_and_short(body: str, expected: str) -> None:
    from services.renderer.domain.text import excerpt

    assert excerpt(body, 240) == expected


def test_long_excerpts_end_on_a_word() -> None:
    from services.renderer.domain.text import excerpt

    text = excerpt("alpha beta " * 60, 100)
    assert len(text) <= 101 and text.endswith("…")
    assert text[:-1].split()[-1] in ("alpha", "beta")


def test_rule_set_digests_are_shortened_in_the_header() -> None:
    digest = "9a0de0c6b3ee63d07b34cd6b121f1ee00d75fb58573f042bc73322a65292a6b9"
    text = render_markdown(daily_summary(ruleset_versions=(digest, "llm-serving@3")), "en")
    assert "9a0de0c6b3ee, llm-serving@3" in text and digest not in text


@pytest.mark.parametrize("lang, end", [("en", "."), ("zh-CN", "。")])
def test_the_lead_is_a_finished_paragraph(lang: str, end: str) -> None:
    for summary in (daily_summary(), daily_summary(risks=()), _empty()):
        lead = build_view(summary, messages(lang)).lead
        assert lead.endswith(end) and not lead.endswith(end * 2)


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize(
    "kind, label, start, end, tz, expect",
    [
        (
            "month",
            "2026-06",
            datetime(2026, 5, 31, 16, tzinfo=UTC),
            datetime(2026, 6, 30, 16, tzinfo=UTC),
            "Asia/Shanghai",
            ("2026-06",),
        ),
        (
            "custom",
            "2026-06-01_2026-06-10",
            datetime(2026, 6, 1, tzinfo=UTC),
            datetime(2026, 6, 10, tzinfo=UTC),
            "UTC",
            ("2026-06-01", "2026-06-09"),
        ),
        (
            "day",
            "2026-03-08",
            datetime(2026, 3, 8, 5, tzinfo=UTC),
            datetime(2026, 3, 9, 4, tzinfo=UTC),
            "America/New_York",
            ("2026-03-08",),
        ),
    ],
)
def test_every_window_kind_has_a_title_and_zone(lang, kind, label, start, end, tz, expect) -> None:
    window = WindowRef(kind=kind, label=label, start=start, end=end, tz=tz)
    view = build_view(_empty().model_copy(update={"window": window}), messages(lang))
    for text in expect:
        assert text in view.title
    window_row = view.header[1].value
    assert tz in window_row
    if tz == "America/New_York":  # the day DST starts (a 23-hour window): its span, as seed
        # 003 states a day's, each end with its own offset
        assert window_row.startswith("2026-03-08 00:00") and "2026-03-09 00:00" in window_row
        assert "UTC-5" in window_row and "UTC-4" in window_row


def test_html_contents_link_to_every_section() -> None:
    import re

    html = render_html(daily_summary(), "en")
    anchors = set(re.findall(r'<a href="#([a-z_]+)"', html))
    ids = set(re.findall(r'<h2 id="([a-z_]+)"', html))
    assert anchors == ids and {"summary", "appendix", "ecosystems"} <= ids
