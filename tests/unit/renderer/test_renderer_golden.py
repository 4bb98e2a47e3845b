"""Golden Markdown reports, and every figure in them checked against its label by something other
than the golden file.

Three cases: a day of hand-written input events (tests/unit/renderer/event_samples.py) folded by
the summarizer and rendered, and two hand-built report models (daily, weekly), in en and zh-CN.
Every number a report prints must carry a label the test knows ("Merged PRs **6", the
"Reviews" column of bob's row, "scheduler (5 items, 2 merged)") and equal what the test
expects under that label: for the events case, figures recounted here from the events by plain
code (`recount`), never by the summarizer; for the hand-built models, the model's own fields.

A new sentence or column with a figure needs its label pattern in report_figures.RULES (en and
zh-CN) and, for the events case, its recount below: until then the check names the number.

Regenerate the golden files after an intended change with:
    REPODIGEST_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/unit/renderer/test_renderer_golden.py
and review the diff: the figure checks still run on what was written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import render_markdown
from shared.events import SummaryData

from . import event_samples as ev
from .report_figures import (
    APPENDIX_LISTS,
    check,
    expected_from_summary,
    labelled_figures,
    lists_from_summary,
    median,
    names_for,
    texts_of,
)
from .samples import daily_summary, weekly_summary

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("REPODIGEST_UPDATE_GOLDEN") == "1"
REPO_ROOT = Path(__file__).resolve().parents[3]

CASES = {
    "daily": daily_summary,
    "weekly": weekly_summary,
    "events-daily": ev.events_summary,
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_markdown_matches_golden(case: str, lang: str) -> None:
    text = render_markdown(CASES[case](), lang)
    path = GOLDEN / f"{case}.{lang}.md"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with REPODIGEST_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} differs from the rendered report; if the change is intended, regenerate "
        "with REPODIGEST_UPDATE_GOLDEN=1 and review the diff"
    )


def test_rendering_does_not_depend_on_the_hash_seed() -> None:
    # another interpreter with another string hash order (set and dict-of-set iteration) writes
    # the same bytes as the golden file
    code = (
        "import sys; from services.renderer.adapters.documents import render_markdown; "
        "from tests.unit.renderer.samples import daily_summary; "
        "sys.stdout.buffer.write(render_markdown(daily_summary(), 'zh-CN').encode())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "4242"},
    ).stdout.decode()
    assert out == (GOLDEN / "daily.zh-CN.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- the events, recounted by hand


def recount() -> tuple[
    dict[str, object], dict[str, list[int]], dict[str, dict[str, int]], set[str], set[str]
]:
    """The events case's figures from the scenario's records (who did what when), by plain code:
    (figure key -> value, counted list -> item numbers, contributor -> table columns, modules, risks)."""
    sc = ev.scenario()
    lo, hi, prev_lo = ev.START, ev.END, ev.PREV_START

    def inside(t: datetime | None) -> bool:
        return t is not None and lo <= t < hi

    def before(t: datetime | None) -> bool:
        return t is not None and prev_lo <= t < lo

    def bot(login: str) -> bool:
        return login.endswith("[bot]") or any(i.bot and i.author == login for i in sc.items)

    prs = [i for i in sc.items if i.kind == "pull_request"]
    issues = [i for i in sc.items if i.kind == "issue"]
    lists = {
        "new_prs": [i.number for i in prs if inside(i.opened)],
        "merged_prs": [i.number for i in prs if inside(i.merged)],
        "closed_unmerged_prs": [i.number for i in prs if inside(i.closed)],
        "new_issues": [i.number for i in issues if inside(i.opened)],
        "closed_issues": [i.number for i in issues if inside(i.closed)],
    }
    previous = {
        "new_prs": sum(before(i.opened) for i in prs),
        "merged_prs": sum(before(i.merged) for i in prs),
        "closed_unmerged_prs": sum(before(i.closed) for i in prs),
        "new_issues": sum(before(i.opened) for i in issues),
        "closed_issues": sum(before(i.closed) for i in issues),
    }
    merged = [i for i in prs if inside(i.merged)]
    comments = [c for c in sc.comments if inside(c[1])]
    reviews = [r for r in sc.reviews if inside(r[1])]
    actors = (
        {i.author for i in sc.items if inside(i.opened) or inside(i.merged) or inside(i.closed)}
        | {c[2] for c in comments}
        | {r[2] for r in reviews}
    )
    out: dict[str, object] = {f"counts.{name}": len(numbers) for name, numbers in lists.items()}
    out.update({f"appendix.{name}": len(numbers) for name, numbers in lists.items()})
    out.update({f"previous.{name}": n for name, n in previous.items()})
    out.update({f"delta.{name}": len(lists[name]) - n for name, n in previous.items()})
    added, removed = sum(i.additions for i in merged), sum(i.deletions for i in merged)
    out.update(
        {
            "revision": 1,
            # five merged PRs by people (the bot's is not a candidate): all five are key, the minimum
            "counts.key_prs": 5,
            "total.key_prs": 5,
            "counts.lines_added": added,
            "counts.lines_removed": removed,
            "lines.net": abs(added - removed),
            "lines.direction": "growth" if added >= removed else "reduction",
            "counts.active_contributors": len({a for a in actors if not bot(a)}),
            "counts.first_time_contributors": len(
                {
                    i.author
                    for i in sc.items
                    if inside(i.opened) and i.association == "FIRST_TIME_CONTRIBUTOR"
                }
            ),
            "counts.comments": len(comments),
            "counts.reviews": len(reviews),
            "counts.reviewers": len({r[2] for r in reviews if not bot(r[2])}),
        }
    )

    # modules: the items opened, merged or (issues) opened in a window, per module tag — a day
    # counts each item once, under its first module (its hot topics list those)
    def module_items(tag: str, window) -> set[int]:
        return {
            i.number
            for i in sc.items
            if tuple(i.modules[:1]) == (tag,)
            and (window(i.opened) or (i.kind == "pull_request" and window(i.merged)))
        }

    modules = {m for i in sc.items for m in i.modules}
    for tag in modules:
        now, then = module_items(tag, inside), module_items(tag, before)
        out.update(
            {
                f"module.{tag}.total": len(now),
                f"module.{tag}.previous": len(then),
                f"module.{tag}.delta": len(now) - len(then),
                f"module.{tag}.merged": sum(1 for i in merged if tuple(i.modules[:1]) == (tag,)),
            }
        )
    out["main_lines"] = min(3, sum(1 for tag in modules if out[f"module.{tag}.total"]))
    # risks of the changes that landed
    risks: dict[str, set[int]] = defaultdict(set)
    high: set[str] = set()
    for i in merged:
        for r in i.risks:
            name, severity = r if isinstance(r, tuple) else (r, "medium")
            risks[name].add(i.number)
            if severity == "high":
                high.add(name)
    out.update({f"risk.{name}.count": len(numbers) for name, numbers in risks.items()})
    out["risks.high"] = len(high)
    # the AMD/ROCm section: items of the window by an amd-affiliated author or tagged rocm
    touched = [i for i in sc.items if inside(i.opened) or inside(i.merged) or inside(i.closed)]
    amd = [i for i in touched if "amd" in i.affiliations or "rocm" in i.ecosystems]
    out.update(
        {
            "eco.AMD/ROCm.prs": sum(i.kind == "pull_request" for i in amd),
            "eco.AMD/ROCm.merged": sum(inside(i.merged) for i in amd),
            "eco.AMD/ROCm.issues": sum(i.kind == "issue" for i in amd),
            "eco.AMD/ROCm.contributors": len({i.author for i in amd if "amd" in i.affiliations}),
        }
    )
    group_of = {"performance": "performance", "bugfix": "bugfix"}  # the categories used here
    m = messages("en"), messages("zh-CN")
    for i in amd:
        if i.kind == "pull_request":
            group = next((group_of[c] for c in i.categories if c in group_of), "other")
            for cat in m:
                lists.setdefault(cat.name("category_names", group), []).append(i.number)
    for i in sc.items:
        out.update(
            {
                f"item.{i.number}.additions": i.additions,
                f"item.{i.number}.deletions": i.deletions,
                f"item.{i.number}.files": len(i.files),
                f"item.{i.number}.net": abs(i.additions - i.deletions),
            }
        )
    # discussions: comments and reviews in the window per item, with the people (not bots)
    talk: dict[int, Counter] = defaultdict(Counter)
    people: dict[int, set[str]] = defaultdict(set)
    for kind, entries in (("comments", comments), ("reviews", reviews)):
        for number, _, login in entries:
            talk[number][kind] += 1
            if not bot(login):
                people[number].add(login)
    for number in talk:
        out.update(
            {
                f"discussion.{number}.comments": talk[number]["comments"],
                f"discussion.{number}.reviews": talk[number]["reviews"],
                f"discussion.{number}.participants": len(people[number]),
            }
        )
    hour = timedelta(hours=1)
    out["median.merge"] = median([(i.merged - i.opened) / hour for i in merged])
    opened = [i for i in sc.items if inside(i.opened)]
    waits = []
    for i in opened:
        answers = sorted(
            t
            for number, t, login in (*comments, *reviews)
            if number == i.number and login != i.author and not bot(login)
        )
        if answers:
            waits.append((answers[0] - i.opened) / hour)
    out["median.response"] = median(waits)
    # contributors: authors of what was opened or merged, and who commented or reviewed
    table: dict[str, dict[str, int]] = defaultdict(
        lambda: dict.fromkeys(
            ("prs_opened", "prs_merged", "issues_opened", "reviews", "comments"), 0
        )
    )
    for i in prs:
        if inside(i.opened):
            table[i.author]["prs_opened"] += 1
        if inside(i.merged):
            table[i.author]["prs_merged"] += 1
    for i in issues:
        if inside(i.opened):
            table[i.author]["issues_opened"] += 1
    for kind, entries in (("comments", comments), ("reviews", reviews)):
        for _, _, login in entries:
            table[login][kind] += 1
    for login, row in table.items():
        out.update({f"contributor.{login}.{k}": v for k, v in row.items()})
    # the table lists people (bots have their own sentence)
    out["total.contributors"] = sum(1 for login in table if not bot(login))
    out["bots"] = sum(1 for login in table if bot(login))
    return out, lists, dict(table), modules, set(risks)


def test_the_recount_is_right_by_hand() -> None:
    # the recount is code too: a few of its figures worked out by hand from event_samples.py
    out, lists, table, _, _ = recount()
    assert (out["counts.merged_prs"], out["counts.new_prs"], out["counts.new_issues"]) == (6, 8, 3)
    assert sorted(lists["merged_prs"]) == [101, 102, 103, 104, 105, 106]  # 107 merged at the end
    assert sorted(lists["new_issues"]) == [201, 203, 204]  # 204 one second before the end
    assert (out["counts.lines_added"], out["counts.lines_removed"]) == (980, 177)
    assert (out["previous.merged_prs"], out["previous.new_prs"]) == (
        2,
        4,
    )  # #90, #91; #90, #91, #92, #104
    assert out["counts.active_contributors"] == 10  # not renovate[bot] nor mergify[bot]
    assert table["bob"] == {
        "prs_opened": 2,
        "prs_merged": 1,
        "issues_opened": 0,
        "reviews": 2,
        "comments": 1,
    }
    assert (out["module.scheduler.total"], out["module.scheduler.previous"]) == (5, 2)
    assert out["median.merge"] == 11.75  # 2, 4, 6, 17.5, 23, 32 hours
    assert out["median.response"] == 3.0  # 0.5, 2, 3, 5, 14 hours


def _names(lang: str, s: SummaryData, modules: set[str], risks: set[str]):
    return names_for(lang, modules, risks, texts_of(s))


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_every_figure_of_the_events_report_is_recounted_from_the_events(lang: str) -> None:
    s = ev.events_summary()
    expected, lists, table, modules, risks = recount()
    text = render_markdown(s, lang)
    names = _names(lang, s, modules, risks)
    problems = check(text, lang, expected, names, lists, table)
    assert not problems, "\n".join(problems)
    # and the figures a reader looks for first are there, under their labels
    keys = set(labelled_figures(text, lang, names).figures)
    wanted = {
        *(f"counts.{n}" for n in APPENDIX_LISTS),
        "counts.key_prs",
        "counts.lines_added",
        "counts.active_contributors",
        "counts.reviews",
        "counts.comments",
        "median.merge",
        "module.scheduler.total",
        "risk.core-path.count",
        "eco.AMD/ROCm.prs",
        "bots",
        "discussion.108.comments",
        "item.101.additions",
    }
    assert wanted <= keys, f"not found under their labels: {sorted(wanted - keys)}"
    assert set(table) >= {"bob", "alice", "carol-amd", "erin", "frank"}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("case", ["daily", "weekly"])
def test_every_figure_of_a_hand_built_report_is_its_models(case: str, lang: str) -> None:
    s = CASES[case]()
    text = render_markdown(s, lang)
    expected = expected_from_summary(s)
    table = {
        c.login: {
            k: getattr(c, k)
            for k in ("prs_opened", "prs_merged", "issues_opened", "reviews", "comments")
        }
        for c in s.contributors
    }
    names = _names(lang, s, {m.module for m in s.modules}, {r.risk for r in s.risks})
    problems = check(text, lang, expected, names, lists_from_summary(s, lang), table)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- the check itself can fail


def _problems(text: str, lang: str = "en") -> list[str]:
    expected, lists, table, modules, risks = recount()
    return check(
        text, lang, expected, _names(lang, ev.events_summary(), modules, risks), lists, table
    )


def test_the_check_catches_a_figure_under_the_wrong_label() -> None:
    text = render_markdown(ev.events_summary(), "en")
    # (a day's counts stand alone: no change against the day before)
    assert "Merged PRs **6**" in text and "New PRs **8**" in text
    # both numbers are figures of this report: a digit-run check would accept the swap
    swapped = text.replace("Merged PRs **6**", "Merged PRs **8**", 1)
    assert any("counts.merged_prs: printed 8, recounted 6" in p for p in _problems(swapped))


def test_the_check_catches_an_unlabelled_number_and_a_wrong_cell() -> None:
    text = render_markdown(ev.events_summary(), "en")
    invented = text.replace(
        "2 bot accounts were active", "2 bot accounts were active in 3 places", 1
    )
    assert any(p.startswith("unlabelled number '3'") for p in _problems(invented))
    row = "| bob | 2 | 1 | 0 | 2 | 1 |"
    assert row in text
    wrong = text.replace(row, "| bob | 2 | 1 | 0 | 1 | 2 |", 1)  # reviews and comments swapped
    got = _problems(wrong)
    assert any("contributor bob reviews: printed 1, recounted 2" in p for p in got)
    assert any("contributor bob comments: printed 2, recounted 1" in p for p in got)


def test_the_check_catches_a_list_that_does_not_match_its_count() -> None:
    text = render_markdown(ev.events_summary(), "en")
    line = "- [#106](https://github.com/acme/widgets/pull/106) \\[Kernel\\] Fused top-k sampling (erin)\n"
    assert text.count(line) == 2  # new PRs and merged PRs: take it out of the merged list
    head, _, tail = text.rpartition(line)
    got = _problems(head + tail)
    assert any(
        p.startswith("count.list.merged_prs: the heading says 6 but 5 are listed") for p in got
    )
    assert any(p.startswith("list.merged_prs: lists [101, 102, 103, 104, 105]") for p in got)
