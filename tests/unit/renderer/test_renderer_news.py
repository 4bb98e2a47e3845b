"""Project news in the lead, section 1 and a day's summary, in English and Chinese: the sentence
after the main lines ("Project news: release notes for v0.11.0 (#4918); …"), nothing when none.
The news are those of real 2025-W51 of vllm-project/vllm-ascend (#4918, #5146, #5152)."""

from __future__ import annotations

from services.renderer.adapters.catalogs import messages
from services.renderer.domain.view import build_view
from shared.events import SummaryData
from shared.events.summary import ProjectNews

from .samples import daily_summary, weekly_summary

W51 = (
    ProjectNews(kind="release", items=(4918,), what="v0.11.0"),
    ProjectNews(
        kind="support_dropped",
        items=(5146,),
        what="vLLM 0.12.0",
        action="removed",
        ahead_of="v0.13.0",
        said="We decided to release v0.13.0 soon.",
    ),
    ProjectNews(
        kind="governance",
        items=(5152,),
        what="maintainers",
        people=("zzzzwwjj", "realliujiaxu", "LCAIZJ"),
        action="added",
    ),
)


def _with_news(s: SummaryData, news: tuple[ProjectNews, ...]) -> SummaryData:
    return s.model_copy(update={"news": news})


def test_weekly_lead_tells_the_news_after_the_main_lines() -> None:
    view = build_view(_with_news(weekly_summary(), W51), messages("en"))
    said = (
        "Project news: release notes for v0.11.0 (#4918); support for vLLM 0.12.0 dropped ahead"
        " of v0.13.0 (#5146); three maintainers added (#5152)."
    )
    assert said in view.lead
    assert view.lead.index("Project news") > view.lead.index("merged")
    # section 1 names the people
    assert any(
        "three maintainers added: @zzzzwwjj, @realliujiaxu and @LCAIZJ (#5152)" in p
        for p in view.summary
    )


def test_chinese_lead_tells_the_news() -> None:
    view = build_view(_with_news(weekly_summary(), W51), messages("zh-CN"))
    assert (
        "项目动态：发布 v0.11.0 版本说明（#4918）；为发布 v0.13.0 不再支持 vLLM 0.12.0（#5146）；"
        "新增三名维护者（#5152）" in view.lead
    )


def test_a_day_tells_it_once_and_nothing_without_news() -> None:
    # the lead tells it; section 1 right below does not print the same sentence again (2026-W30:
    # "项目动态：发布 v0.23.0rc1 版本说明（#12485）" twice), only what it says more (the names)
    for lang in ("en", "zh-CN"):
        for base in (daily_summary(), weekly_summary()):
            view = build_view(_with_news(base, W51[:1]), messages(lang))
            told = [p for p in (view.lead, *view.summary) if "#4918" in p]
            assert len(told) == 1 and told[0] == view.lead, told
    named = build_view(_with_news(daily_summary(), W51), messages("en"))
    assert "three maintainers added (#5152)" in named.lead
    assert any("@zzzzwwjj" in p for p in named.summary)
    quiet = build_view(daily_summary(), messages("en"))
    assert "Project news" not in quiet.lead
    assert not any("Project news" in p for p in quiet.summary)


def test_governance_without_names_and_a_policy() -> None:
    news = (
        ProjectNews(kind="governance", items=(5882,), what="code owners", action="added"),
        ProjectNews(kind="policy", items=(8656,), what="version policy"),
        ProjectNews(
            kind="governance", items=(8996,), what="maintainers", people=("a",), action="added"
        ),
    )
    en = build_view(_with_news(weekly_summary(), news), messages("en")).lead
    assert (
        "Project news: code owners added (#5882); version policy changed (#8656); one maintainer"
        " added (#8996)." in en
    )
    zh = build_view(_with_news(weekly_summary(), news), messages("zh-CN")).lead
    assert "项目动态：新增代码负责人（#5882）；版本策略变更（#8656）；新增一名维护者（#8996）" in zh


# real #13186 (2026-W34) 'Refresh maintainer team': "docs: add maintainer emeritus mechanism and
# retire ganyi1996ppo, whx-sjtu, MengqingCao … Move … to Emeritus Committers"
RETIRED = ("ganyi1996ppo", "whx-sjtu", "MengqingCao")


def _retired(said: str) -> ProjectNews:
    return ProjectNews(
        kind="governance",
        items=(13186,),
        what="maintainers",
        people=RETIRED,
        action="removed",
        said=said,
    )


def test_maintainers_moved_to_emeritus_are_said_so_and_removed_ones_stay_removed() -> None:
    emeritus = _retired("Move ganyi1996ppo, whx-sjtu, MengqingCao to Emeritus Committers")
    lead = build_view(_with_news(weekly_summary(), (emeritus,)), messages("en")).lead
    assert "three maintainers moved to emeritus (#13186)" in lead and "removed" not in lead
    zh = build_view(_with_news(weekly_summary(), (emeritus,)), messages("zh-CN")).lead
    assert "三名维护者转为荣誉成员（#13186）" in zh
    # no word of emeritus: removed, as the change says
    removed = _retired("Remove inactive maintainers")
    lead = build_view(_with_news(weekly_summary(), (removed,)), messages("en")).lead
    assert "three maintainers removed (#13186)" in lead and "emeritus" not in lead


def test_a_chinese_weekly_title_reads_the_week_of_its_year() -> None:
    s = weekly_summary()
    zh = build_view(s, messages("zh-CN")).title
    year, week = s.window.label.split("-W")
    assert f"{year} 年第 {int(week)} 周周报" in zh and s.window.label not in zh
    assert s.window.label in build_view(s, messages("en")).title
    day = build_view(daily_summary(), messages("zh-CN")).title
    assert daily_summary().window.label in day  # a day keeps its date
