"""The seeds' shape (issue #15 part 6): the appendix modes, a weekly main body about the seed's
length, the daily report in seed 003's order, charts (hourly activity, labels never clipped,
no empty charts), Chinese reports without English sentences, and English plurals."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.charts import charts, fit_label, modules_chart, text_em
from services.renderer.adapters.documents import render_html, render_markdown, view_for
from services.renderer.domain.view import DAILY_ORDER, MAX_NAMED_LINKS, WEEKLY_ORDER
from shared.events import (
    Appendix,
    Contributor,
    Counts,
    Discussion,
    EcosystemGroup,
    EcosystemSection,
    FollowUp,
    HourlyActivity,
    KeyPR,
    ModuleTrend,
    RiskObservation,
    Theme,
    WindowRef,
)

from .samples import daily_summary, issue, pr, weekly_summary

LANGS = ("en", "zh-CN")
SEEDS = Path(__file__).resolve().parents[3].parent / "shared" / "seeds"
# Seed 000 (the vLLM weekly, 256 merged PRs) is 6,684 characters; the main body of a 120-256-PR
# week may be about twice that. Used where ../shared/seeds is absent.
SEED_000_CHARS = 6_684


# ---------------------------------------------------------------- a busy, realistic week

MODULES = (
    "moe",
    "rocm",
    "speculative-decoding",
    "quantization",
    "kv-transfer",
    "attention",
    "scheduler/core",
    "compilation/graphs",
    "kernels",
    "models",
    "v1-engine",
    "ci/build",
    "tests",
    "docs",
    "frontend/openai-api",
    "distributed",
    "sampling",
    "lora",
    "multimodal",
    "platforms",
    "tool-calling",
    "model-loading",
    "config",
    "patches",
    "upstream-sync",
    "observability",
    "benchmarks",
    "dependencies",
    "platform/cpu",
)
RISKS = (
    ("core-without-tests", "high"),
    ("security-sensitive", "high"),
    ("core-change", "medium"),
    ("code-without-tests", "medium"),
    ("graph-capture", "medium"),
    ("hardware-specific", "medium"),
    ("interface-change", "medium"),
    ("large-change", "medium"),
    ("revert", "medium"),
    ("removal-deprecation", "medium"),
    ("ci-build-change", "low"),
    ("dependency-bump", "low"),
)


def busy_week(merged: int = 200):
    """A week shaped like vLLM's W24: ~200 merged PRs over 29 modules, a dozen risks with long
    item lists, 60 contributors, key PRs with many modules, a large ecosystem, many follow-ups."""
    prs = tuple(
        pr(
            40000 + i,
            f"[{MODULES[i % 29]}] change number {i}: make the thing faster and safer",
            f"dev{i % 60}",
            modules=tuple(MODULES[(i + k) % 29] for k in range(1 + i % 5)),
            additions=10 * (i % 50),
            deletions=3 * (i % 20),
            files=1 + i % 9,
            risks=(RISKS[i % 12][0],),
            body=f"Speeds up the scheduler's hot path {i} by caching the block table between "
            "steps, so that large batches no longer rebuild it. Closes #1.",
        )
        for i in range(merged)
    )
    issues = tuple(
        issue(39000 + i, f"Issue report {i}: something is slow on device {i % 7}", f"user{i % 23}")
        for i in range(40)
    )
    modules = tuple(
        ModuleTrend(
            module=mod,
            merged=30 - j,
            total=30 - j,
            previous_total=20,
            delta=10 - j,
            trend="up" if j < 10 else "down",
            representative=tuple(40000 + j + 29 * k for k in range(4)),
        )
        for j, mod in enumerate(MODULES)
    )
    risks = tuple(
        RiskObservation(
            risk=r,
            severity=sev,
            count=12 + 3 * j,
            items=tuple(40000 + j + 12 * k for k in range(12 + 3 * j)),
            reason="changed .github/workflows/ci.yaml (CI or build)",
        )
        for j, (r, sev) in enumerate(RISKS)
    )
    key_prs = tuple(
        KeyPR(item=prs[i].model_copy(update={"modules": MODULES[:9]}), score=9.0 - i)
        for i in range(12)
    )
    themes = tuple(
        Theme(
            module=MODULES[j],
            prs=tuple(40000 + j + 29 * k for k in range(4)),
            merged=30 - j,
            lines_added=1000,
            lines_removed=300,
        )
        for j in range(8)
    )
    follow_ups = tuple(
        FollowUp(kind="core_without_tests", item=prs[i], reason="core without tests")
        for i in range(30)
    )
    eco = EcosystemSection(
        name="AMD/ROCm",
        affiliation="amd",
        issues=issues[:9],
        pr_groups=tuple(
            EcosystemGroup(category=c, items=prs[j::17][:9])
            for j, c in enumerate(("performance", "bugfix", "platform-ci", "release"))
        ),
        contributors=tuple(f"dev{i}" for i in range(12)),
    )
    discussions = tuple(
        Discussion(
            item=issues[i],
            comments_in_window=10 - i,
            reviews_in_window=0,
            participants=("a", "b", "c"),
            status="open",
        )
        for i in range(5)
    )
    return weekly_summary(
        counts=Counts(
            new_issues=40,
            closed_issues=20,
            new_prs=merged + 40,
            merged_prs=merged,
            closed_unmerged_prs=31,
            active_contributors=64,
            key_prs=12,
            lines_added=40_000,
            lines_removed=55_000,
        ),
        modules=modules,
        risks=risks,
        key_prs=key_prs,
        themes=themes,
        follow_ups=follow_ups,
        ecosystems=(eco,),
        discussions=discussions,
        contributors=tuple(Contributor(login=f"dev{i}", prs_merged=60 - i) for i in range(60)),
        appendix=Appendix(
            merged_prs=prs, new_issues=issues, new_prs=prs[:40], closed_issues=issues[:20]
        ),
    )


def main_body(md: str) -> str:
    """The Markdown before the appendix, as text: link targets and escapes removed."""
    cut = re.search(r"^## (附录|Appendix)", md, re.M)
    body = md[: cut.start()] if cut else md
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", body).replace("\\", "")


def seed_chars(name: str, default: int) -> int:
    found = sorted(SEEDS.glob(f"{name}_*.txt")) if SEEDS.is_dir() else []
    return len(found[0].read_text(encoding="utf-8")) if found else default


def test_a_busy_week_reads_in_about_twice_the_seed_length() -> None:
    bound = 2 * seed_chars("000", SEED_000_CHARS)
    s = busy_week(200)
    body = main_body(render_markdown(s, "zh-CN"))
    assert len(body) <= bound, f"zh-CN main body {len(body)} characters > {bound}"
    # the long lists are capped with "… and N more", their items stay in the appendix
    m = messages("zh-CN")
    assert m.tn("list.more", 2, count="2").split("2")[0] in body
    assert render_markdown(s, "zh-CN").count("[#40199](") >= 1


def test_capped_lists_say_how_many_are_left_out() -> None:
    s = busy_week(200)
    v = view_for(s, "en")
    assert len(v.modules) <= 8 and v.modules_more == "… and 21 more modules with fewer changes"
    assert len(v.contributors) <= 5 and v.contributors_more == "… and 55 more"
    # section 4 titles a risk's first PRs and links every other one up to MAX_NAMED_LINKS (no
    # bare "… and N more"); a broad risk's others beyond that are counted
    by_risk = {r.risk: r for r in s.risks}
    for b in v.risks:
        assert len(b.lines) <= 3
        r = by_risk[b.key]
        if r.count == len(r.items) and len(r.items) - len(b.lines) <= MAX_NAMED_LINKS:
            assert [x.link.number for x in b.lines] + [lk.number for lk in b.links] == list(r.items)
            assert "…" not in b.more
        elif r.count == len(r.items):
            assert not b.links and b.more == f"… and {r.count - len(b.lines)} more"
    assert v.risks_more.startswith("Also observed: ")
    assert all(len(b.links) <= 3 for b in v.risk_bullets)
    assert all(k.modules.endswith("…") for k in v.key_prs)  # 9 modules: three named
    assert all(len(g.lines) <= 4 for e in v.ecosystems for g in e.groups)
    assert len(v.follow_ups) <= 6 and all(len(b.lines) <= 3 for b in v.follow_ups)


def test_a_risk_of_three_prs_titles_them_all_and_adds_no_other_line() -> None:
    risks = (
        RiskObservation(risk="core-change", severity="medium", count=3, items=(1, 2, 3)),
        RiskObservation(risk="graph-capture", severity="medium", count=5, items=(1, 2, 3, 4, 5)),
    )
    v = view_for(weekly_summary(risks=risks), "en")
    by = {b.key: b for b in v.risks}
    assert len(by["core-change"].lines) == 3 and not by["core-change"].links
    assert by["core-change"].more == ""
    graph = by["graph-capture"]
    assert [x.link.number for x in graph.lines] + [lk.number for lk in graph.links] == [
        1,
        2,
        3,
        4,
        5,
    ]
    assert graph.more == "The other 3"


# ---------------------------------------------------------------- appendix modes


def _appendix_md(md: str) -> str:
    m = re.search(r"^## (附录|Appendix)", md, re.M)
    assert m is not None, "no appendix heading"
    return md[m.start() :]


@pytest.mark.parametrize("lang", LANGS)
def test_appendix_modes_in_markdown_and_html(lang: str) -> None:
    m = messages(lang)
    items = daily_summary().appendix.merged_prs
    for mode in ("full", "compact", "none"):
        s = weekly_summary(appendix_mode=mode)
        md, html = render_markdown(s, lang), render_html(s, lang)
        appendix = _appendix_md(md)
        html_appendix = html[html.index('<section class="appendix') :]
        if mode == "none":
            # one line with the counts, no item lines
            assert m.t("appendix.none_note", counts="").split("{")[0][:4] in appendix
            # (a week's activity observations open the appendix: their table is no item list)
            assert "- [#" not in appendix and 'class="items"' not in html_appendix
            assert '<td class="n"><a href' not in html_appendix
            assert f"{m.t('appendix.merged_prs')} {len(items)}" in appendix
            continue
        # one line per item in Markdown, in every mode that lists them
        for item in items:
            assert f"- [#{item.number}]({item.url})" in appendix
        if mode == "compact":
            assert "<details" in html_appendix and "<summary>" in html_appendix
            assert f"{m.t('appendix.merged_prs')} {len(items)}" in html_appendix
        else:
            assert "<details" not in html_appendix and 'class="items"' in html_appendix


def test_the_default_appendix_mode_is_compact() -> None:
    assert daily_summary().appendix_mode == "compact"
    assert view_for(daily_summary(), "en").appendix_mode == "compact"


# ---------------------------------------------------------------- section order


SEED_003_HEADINGS = {  # seed 003's headings -> our daily section ids
    "每日开发状态摘要": "summary",
    "AMD/ROCm 生态相关动态": "ecosystems",
    "高热度讨论分析": "discussions",
    "热门话题与趋势分析": "topics",
    "重点技术变更": "key_prs",
    "开发活跃度观察": "activity",
    "值得关注的问题": "attention",
    "附录：详细数据列表": "appendix",
}


def test_the_daily_report_follows_seed_003() -> None:
    expected = [sid for sid, _ in DAILY_ORDER]
    assert expected == [
        "summary",
        "ecosystems",
        "discussions",
        "topics",
        "key_prs",
        "activity",
        "attention",
        "appendix",
    ]
    found = sorted(SEEDS.glob("003_*.txt")) if SEEDS.is_dir() else []
    if found:  # the seed's own order, read from its headings
        text = found[0].read_text(encoding="utf-8")
        seen = sorted((text.index(h), sid) for h, sid in SEED_003_HEADINGS.items() if h in text)
        assert [sid for _, sid in seen] == expected
    for lang in LANGS:
        v = view_for(daily_summary(), lang)
        assert list(v.order) == expected
        md = render_markdown(daily_summary(), lang)
        titles = [v.sections[sid].title for sid in expected]
        positions = [md.index(f" {t}\n") for t in titles]
        assert positions == sorted(positions), titles
        html = render_html(daily_summary(), lang)
        assert re.findall(r'<h2 id="([a-z_]+)"', html) == expected


def test_the_weekly_report_keeps_seed_000s_order() -> None:
    order = [sid for sid, _ in WEEKLY_ORDER]
    seed = ["summary", "themes", "modules", "risks", "key_prs", "follow_ups"]
    assert [sid for sid in order if sid in seed] == seed
    assert order[:2] == ["highlights", "risk_bullets"] and order[-1] == "appendix"
    v = view_for(weekly_summary(), "zh-CN")
    assert list(v.order) == order


@pytest.mark.parametrize("lang", LANGS)
def test_a_weeks_activity_observations_open_the_appendix(lang: str) -> None:
    """Seed 000 has no activity section: its follow-ups are section 6. A week's activity
    observations (people active, first-timers, most active, bots, the table) are the appendix's
    first subsection, in Markdown and HTML (the PDF is the HTML); a day keeps its section."""
    m = messages(lang)
    s = weekly_summary()
    v = view_for(s, lang)
    assert "activity" not in v.order and v.appendix_sections == ("activity",)
    assert v.sections["activity"].number is None
    numbered = [v.sections[x].number for x in v.order if v.sections[x].number]
    assert v.sections["follow_ups"].number == len(numbered) == 8  # + discussions, ecosystems
    # seed 000's six: follow-up suggestions are section 6
    seed = weekly_summary(discussions=(), ecosystems=())
    assert view_for(seed, lang).sections["follow_ups"].number == 6
    assert f"\n## 6. {m.t('sections.follow_ups')}\n" in render_markdown(seed, lang)
    md = render_markdown(s, lang)
    assert not re.search(r"^## \d+\. " + re.escape(m.t("sections.activity")), md, re.M)
    appendix = _appendix_md(md)
    body = md[: len(md) - len(appendix)]
    people = appendix.split(f"### {m.t('sections.activity')}\n", 1)[1].split("\n### ", 1)[0]
    first_list = m.t("appendix.new_issues")
    assert appendix.index(m.t("sections.activity")) < appendix.index(f"### {first_list}")
    # what it says, all of it, and none of it in the main body
    assert v.activity and all(
        p.replace("[", "\\[").replace("]", "\\]") in people for p in v.activity
    )
    assert v.contributors and all(f"| {c.login} |" in people for c in v.contributors)
    assert all(f"| {c.login} |" not in body for c in v.contributors)
    assert v.activity[0].split("（")[0].split(" (")[0] not in body
    html = render_html(s, lang)
    html_appendix = html[html.index('<section class="appendix') :]
    assert '<h3 id="activity">' in html_appendix and 'class="contributors"' in html_appendix
    assert html_appendix.index('<h3 id="activity">') < html_appendix.index("appendix-line")
    assert 'class="contributors"' not in html[: html.index('<section class="appendix')]
    assert '<h2 id="activity"' not in html
    # a day keeps its activity section in the main body
    d = view_for(daily_summary(), lang)
    assert "activity" in d.order and d.appendix_sections == ()
    assert '<h2 id="activity"' in render_html(daily_summary(), lang)


def test_daily_topics_and_issues_worth_attention() -> None:
    v = view_for(daily_summary(), "zh-CN")
    assert v.topics and all(b.links for b in v.topics)
    s = daily_summary()
    # open bug and RFC follow-ups first, then open issues discussed in the window
    expected = [f.item.number for f in s.follow_ups if f.kind in ("popular_bug", "open_rfc")]
    expected += [
        d.item.number
        for d in s.discussions
        if d.item.kind == "issue" and d.status == "open" and d.item.number not in expected
    ]
    assert [b.links[0].number for b in v.attention] == expected[:3] and expected
    # no bug or RFC: the section says so
    empty = view_for(daily_summary(follow_ups=(), discussions=()), "zh-CN")
    assert empty.attention == ()
    assert empty.notes["attention"] == messages("zh-CN").t("attention.none")


# ---------------------------------------------------------------- charts


def _day(tz: str, local_day: datetime) -> WindowRef:
    from zoneinfo import ZoneInfo

    start = local_day.replace(tzinfo=ZoneInfo(tz))
    end = (local_day + timedelta(days=1)).replace(tzinfo=ZoneInfo(tz))
    return WindowRef(
        kind="day",
        label=local_day.strftime("%Y-%m-%d"),
        start=start.astimezone(UTC),
        end=end.astimezone(UTC),
        tz=tz,
    )


def _hours(w: WindowRef) -> tuple[HourlyActivity, ...]:
    out, t = [], w.start
    while t < w.end:
        out.append(HourlyActivity(start=t, prs_opened=1 + t.hour % 3, comments=t.hour))
        t += timedelta(hours=1)
    return tuple(out)


@pytest.mark.parametrize(
    "tz, day, bars",
    [
        ("Asia/Shanghai", datetime(2026, 6, 10), 24),
        ("America/New_York", datetime(2026, 3, 8), 23),  # spring forward
        ("America/New_York", datetime(2026, 11, 1), 25),  # fall back
    ],
)
def test_the_daily_activity_chart_is_by_local_hour(tz: str, day: datetime, bars: int) -> None:
    w = _day(tz, day)
    s = daily_summary(window=w, hourly=_hours(w))
    svg = charts(s, messages("zh-CN"))["hourly"]
    series = re.findall(
        r'<g class="series serie-(\d+) color-\d+">(.*?)</g>\s*(?=<g class="series|</g>)', svg, re.S
    )
    assert series, svg[:500]
    for _, body in series:
        assert body.count('class="rect reactive tooltip-trigger"') == bars
    axis = re.search(r'<g class="axis x[^"]*">(.*?)</g>\s*</g>', svg, re.S)
    assert axis is not None, "no x axis in the chart"
    x_axis = axis.group(1)
    labels = re.findall(r"<text[^>]*>(\d\d)</text>", x_axis)
    assert labels[:2] == ["00", "01"] and len(labels) == bars
    # shown with the activity section, in the HTML
    html = render_html(s, "zh-CN")
    activity = html[html.index('<h2 id="activity"') : html.index('<h2 id="attention"')]
    assert "chart-hourly" in activity


def test_charts_without_data_are_left_out() -> None:
    w = _day("Asia/Shanghai", datetime(2026, 6, 10))
    quiet = daily_summary(window=w, hourly=tuple(HourlyActivity(start=h.start) for h in _hours(w)))
    assert "hourly" not in charts(quiet, messages("en"))
    week = weekly_summary(activity=())
    assert set(charts(week, messages("en"))) == {"modules"}


@pytest.mark.parametrize("lang", LANGS)
def test_chart_labels_are_whole_or_end_with_an_ellipsis(lang: str) -> None:
    long_name = "an-extremely-long-module-name-that-cannot-fit-anywhere-at-all"
    mods = tuple(
        ModuleTrend(module=m, total=5 + i, previous_total=3)
        for i, m in enumerate(("scheduler/core", "compilation/graphs", "tool-calling", long_name))
    )
    s = weekly_summary(modules=mods)
    m = messages(lang)
    svg = modules_chart(s, m)
    names = [m.name("module_names", t.module) for t in mods]
    texts = re.findall(r'<text[^>]*class="[^"]*"[^>]*>([^<]+)</text>', svg)
    for name in names:
        shown = fit_label(name)
        assert shown == name or shown.endswith("…")
        assert shown in texts, (shown, texts)
    if lang == "zh-CN":
        assert "调度器与核心" in texts
    # the plot starts right of the widest label (pygal's own estimate is 0.6 em a character)
    plot = re.search(r'<g transform="translate\(([\d.]+), [\d.]+\)" class="plot">', svg)
    assert plot is not None, "no plot group in the chart"
    left = float(plot.group(1))
    assert left >= max(text_em(fit_label(n)) for n in names) * 12


# ---------------------------------------------------------------- language


_ASCII_RUN = re.compile(r"(?:\b[A-Za-z][A-Za-z'-]*\b[ ,.;:]+){3,}\b[A-Za-z][A-Za-z'-]*\b")
_QUOTED = re.compile(r"「[^」]*」|“[^”]*”|`[^`]*`|https?://\S+")


def _prose(v) -> list[str]:
    out = [
        v.lead,
        v.modules_text,
        v.notice or "",
        v.appendix_line,
        v.risks_more,
        *v.summary,
        *v.activity,
    ]
    for group in (v.highlights, v.risk_bullets, v.risks, v.follow_ups, v.topics, v.attention):
        out += [
            x
            for b in group
            for x in (b.text, b.head if group is not v.topics else "", b.detail, b.more)
        ]
    out += [t.text for t in v.themes] + [d.text for d in v.discussions]
    out += [e.text for e in v.ecosystems] + [k.signals for k in v.key_prs]
    out += [r.trend for r in v.modules] + [s.title for s in v.sections.values()]
    out += list(v.labels.values())
    return [x for x in out if x]


@pytest.mark.parametrize("summary", [daily_summary, weekly_summary, busy_week])
def test_chinese_reports_have_no_english_sentences(summary) -> None:
    s = summary().model_copy(update={"data_note": "replayed from a recorded GH Archive hour"})
    v = view_for(s, "zh-CN")
    for text in _prose(v):
        plain = _QUOTED.sub(" ", text)
        found = _ASCII_RUN.search(plain)
        assert found is None, f"English in zh-CN: {found.group(0)!r} in {text!r}"


def test_chinese_text_has_a_space_between_cjk_and_latin() -> None:
    m = messages("zh-CN")
    assert (
        m.t("lead.focus", modules=m.join(["CI 与构建", "模型支持", "Kernel"]))
        == "开发焦点集中在 CI 与构建、模型支持和 Kernel"
    )
    assert (
        m.t("summary.risks", risks="核心变更缺少测试（3 项）")
        == "风险层面需重点关注核心变更缺少测试（3 项）。"
    )
    v = view_for(busy_week(), "zh-CN")
    for text in _prose(v):
        assert not re.search(
            r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]",
            _QUOTED.sub(" ", text).replace("#", ""),
        ), text


def test_english_plurals() -> None:
    m = messages("en")
    one = Discussion(
        item=issue(1, "x", "a"), comments_in_window=1, reviews_in_window=1, participants=("a",)
    )
    v = view_for(daily_summary(discussions=(one,)), "en")
    assert "1 comment and 1 review in the window from 1 participant" in v.discussions[0].text
    two = one.model_copy(update={"comments_in_window": 2, "participants": ("a", "b")})
    v = view_for(daily_summary(discussions=(two,)), "en")
    assert "2 comments and 1 review in the window from 2 participants" in v.discussions[0].text
    assert m.tn("units.person", 1, count="1") == "1 person"
    assert m.tn("list.more", 1, count="1") == "… and 1 more"
    assert m.tn("topics.module", 1, total="1", merged="1") == "1 item, 1 merged"


def test_a_long_quoted_sentence_is_told_whole_as_its_main_clause_or_not_at_all() -> None:
    from services.renderer.domain.view import CLIP_NOTE, _Writer

    from .explain_samples import P_V4, explained_summary

    long = (
        "For DeepSeek V4, --block-size now accepts 32 / 64 / 128 and when it is unset the "
        "default stays at 128 as before"
    )
    assert P_V4.digest is not None
    item = P_V4.model_copy(
        update={"digest": P_V4.digest.model_copy(update={"user_facing_text": long})}
    )
    w = _Writer(explained_summary(), messages("zh-CN"))
    notes = w.digest_notes(item)
    assert len(long) > CLIP_NOTE
    # no quote cut into: the note says "user-facing" without the sentence it cannot hold
    assert messages("zh-CN").t("digest.user_facing") in notes
    assert not any("…" in n for n in notes)
