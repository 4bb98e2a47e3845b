"""Read the figures of a Markdown report by their labels, and say what each should be.

`check(markdown, lang, expected, ...)` pairs every number the report prints with what it is
("counts.merged_prs", "module.scheduler.total", "contributor.bob.reviews", ...) by the words
around it (the patterns below, one set per language) or by its table column header, and
compares it with `expected[key]`. A number nothing labels is an error, not a pass; so is a
label the test has no expected value for. Item numbers (#123), dates, times, UTC offsets,
section numbers and the text of titles, logins and excerpts are not figures. A list under a
heading with a count ("### Merged PRs (6)") must list that many items, and the items expected;
"… and N more" must add up with the items shown to the list's total.

The expected values come from elsewhere: `expected_from_summary` reads a hand-built report
model; tests/unit/renderer/test_renderer_golden.py recounts a day of events by plain code.
Display names (module "ROCm", list "Merged PRs", column "Reviews") are looked up in the
renderer's catalogs: they are words, not figures.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from services.renderer.adapters.catalogs import messages
from services.renderer.domain.view import _capitalised
from shared.events import SummaryData

NUM = r"[+-]?\d[\d,]*(?:\.\d+)?"
APPENDIX_LISTS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
COUNT_NAMES = APPENDIX_LISTS
CONTRIBUTOR_COLUMNS = {
    "en": {
        "PRs opened": "prs_opened",
        "PRs merged": "prs_merged",
        "Issues opened": "issues_opened",
        "Reviews": "reviews",
        "Comments": "comments",
    },
    "zh-CN": {
        "新增 PR": "prs_opened",
        "合并 PR": "prs_merged",
        "新增 Issue": "issues_opened",
        "评审": "reviews",
        "评论": "comments",
    },
}
MODULE_COLUMNS = {
    "merged": "merged",
    "opened": "opened",
    "issues": "issues",
    "total": "total",
    "previous": "previous",
    "change": "delta",
}  # catalog labels.* -> figure
DIRECTION = {"growth": "growth", "reduction": "reduction", "增加": "growth", "减少": "reduction"}


def _rx(pattern: str) -> re.Pattern:
    # "@" stands for a number; a space matches any run of spaces (zh-CN puts them around digits)
    return re.compile(pattern.replace("@", NUM).replace(" ", r"\s*"))


# (pattern, {group: figure key}); a key may name the context: {module} and {risk} (the display
# name in the group of that name, else the one named last on the line or by the heading above),
# {item} (the #123 named last), {login}, {eco} (the ecosystem section)
RULES: dict[str, list[tuple[re.Pattern, dict[str, str]]]] = {
    "en": [
        (_rx(p), keys)
        for p, keys in [
            (
                r"\*\*Sources\*\*: (?P<a>@) merged PRs · (?P<b>@) key PRs",
                {"a": "counts.merged_prs", "b": "counts.key_prs"},
            ),
            (r"\*\*Revision\*\*: r(?P<a>@)", {"a": "revision"}),
            (r"Revision (?P<a>@) replaces an earlier one", {"a": "revision"}),
            (
                r"merged (?P<a>@) pull requests? and received (?P<b>@) new ones?",
                {"a": "counts.merged_prs", "b": "counts.new_prs"},
            ),
            (
                r"merged (?P<a>@) pull requests? \((?P<b>@) of them key PRs analysed below\)",
                {"a": "counts.merged_prs", "b": "counts.key_prs"},
            ),
            (r"received (?P<a>@) new PRs?", {"a": "counts.new_prs"}),
            (r"closed (?P<a>@) without merging", {"a": "counts.closed_unmerged_prs"}),
            (
                r"(?P<a>@) issues? (?:was|were) opened and (?P<b>@) closed",
                {"a": "counts.new_issues", "b": "counts.closed_issues"},
            ),
            (
                r"Activity rose most in (?P<module>[^:]+): (?P<a>@) items?, (?P<b>@) more than the previous window",
                {"a": "module.{module}.total", "b": "module.{module}.delta"},
            ),
            (r"(?P<a>@) high-severity risks? needs? attention", {"a": "risks.high"}),
            (
                r"added (?P<a>@) lines and removed (?P<b>@), a net (?P<dir>growth|reduction) of (?P<c>@) lines",
                {
                    "a": "counts.lines_added",
                    "b": "counts.lines_removed",
                    "c": "lines.net",
                    "dir": "lines.direction",
                },
            ),
            (r"alone (?:removed|added) a net (?P<a>@)", {"a": "item.{item}.net"}),
            (r"The (?P<a>@) main lines of work were", {"a": "main_lines"}),
            (r"^- \*\*(?P<module>[^*]+)\*\*: (?P<a>@) merged PRs?", {"a": "theme.{module}.merged"}),
            (
                r"(?P<a>@) merged PRs? in this area, (?P<b>@) highlighted here; merged changes total \+(?P<c>@) / -(?P<d>@) lines",
                {
                    "a": "theme.{module}.merged",
                    "b": "theme.{module}.shown",
                    "c": "theme.{module}.added",
                    "d": "theme.{module}.removed",
                },
            ),
            (
                r"(?P<module>[^():;,.]+?) \((?P<a>@) items?, (?P<b>@) merged",
                {"a": "module.{module}.total", "b": "module.{module}.merged"},
            ),
            (r"merged (?P<a>@) pull requests?\.", {"a": "counts.merged_prs"}),
            (
                r"(?P<story>[^():;,.]+?) \((?P<a>@) PRs?, (?P<b>@) merged\)",
                {"a": "story.{story}.prs", "b": "story.{story}.merged"},
            ),
            # every PR of the line merged: one number, both its PRs and its merged ones
            (r"(?P<story>[^():;,.]+?) \((?P<a>@) merged PRs?\)", {"a": "story.{story}.all_merged"}),
            (
                r"(?P<a>@) merged PRs? in this line of work \(\+(?P<c>@) / -(?P<d>@) lines\)",
                {
                    "a": "story.{story}.all_merged",
                    "c": "story.{story}.added",
                    "d": "story.{story}.removed",
                },
            ),
            (
                r"(?P<story>[^():;,.]+?) \((?P<a>@) items? \((?P<b>@) merged\)",
                {"a": "story.{story}.prs", "b": "story.{story}.merged"},
            ),
            (
                r"(?P<a>@) PRs? in this line of work, (?P<b>@) merged \(\+(?P<c>@) / -(?P<d>@) lines\)",
                {
                    "a": "story.{story}.prs",
                    "b": "story.{story}.merged",
                    "c": "story.{story}.added",
                    "d": "story.{story}.removed",
                },
            ),
            (
                r"Continues from the previous window \((?P<a>@) PRs? then\)",
                {"a": "story.{story}.previous"},
            ),
            (
                r"(?P<a>@) key changes of the window belong to none of the lines above",
                {"a": "other_key_prs"},
            ),
            (r"(?P<a>@) (?P<role>ROLE)", {"a": "story.{story}.role.{role}"}),
            (
                r"Activity (?:rose|fell) from (?P<a>@) to (?P<b>@) items?",
                {"a": "module.{module}.previous", "b": "module.{module}.total"},
            ),
            (r"Activity held at (?P<a>@) items?", {"a": "module.{module}.total"}),
            (
                r"quiet in the previous window and has (?P<a>@) items? now",
                {"a": "module.{module}.total"},
            ),
            (r"No activity now, after (?P<a>@) items?", {"a": "module.{module}.previous"}),
            (
                r"(?P<a>@) modules were active; (?P<b>@) grew and (?P<c>@) shrank",
                {"a": "modules.active", "b": "modules.up", "c": "modules.down"},
            ),
            (
                r"merged PRs went from (?P<a>@) to (?P<b>@) \((?P<c>@)\)",
                {"a": "previous.merged_prs", "b": "counts.merged_prs", "c": "delta.merged_prs"},
            ),
            (
                r"and new issues from (?P<a>@) to (?P<b>@)",
                {"a": "previous.new_issues", "b": "counts.new_issues"},
            ),
            (
                r"\*\*(?P<risk>[^*]+)\*\* \((?:high|medium|low), (?P<a>@) items?\)",
                {"a": "risk.{risk}.count"},
            ),
            (r"(?P<risk>[^():;,.]+?) \((?P<a>@) items?\)", {"a": "risk.{risk}.count"}),
            # the core-path and test-coverage bullet: its figures are in its sentence
            (r"\*\*(?P<risk>[^*]+)\*\* \((?:high|medium|low)\)", {}),
            (
                r"PRs: (?P<a>@) \((?P<b>@) merged\) · issues: (?P<c>@) · contributors: (?P<d>@)",
                {
                    "a": "eco.{eco}.prs",
                    "b": "eco.{eco}.merged",
                    "c": "eco.{eco}.issues",
                    "d": "eco.{eco}.contributors",
                },
            ),
            (
                r"\+(?P<a>@) / -(?P<b>@) lines in (?P<c>@) files?",
                {
                    "a": "item.{item}.additions",
                    "b": "item.{item}.deletions",
                    "c": "item.{item}.files",
                },
            ),
            (
                r"(?P<a>@) comments? and (?P<b>@) reviews? in the window from (?P<c>@) participants?",
                {
                    "a": "discussion.{item}.comments",
                    "b": "discussion.{item}.reviews",
                    "c": "discussion.{item}.participants",
                },
            ),
            (
                r"(?P<a>@) comments? in the window from (?P<c>@) participants?",
                {"a": "discussion.{item}.comments", "c": "discussion.{item}.participants"},
            ),
            (
                r"(?P<a>@) (?:people were|person was) active \((?P<b>@) for the first time\)",
                {"a": "counts.active_contributors", "b": "counts.first_time_contributors"},
            ),
            (
                r"(?P<a>@) (?:people were|person was) active(?=[.;]|$)",
                {"a": "counts.active_contributors"},
            ),
            (
                r"(?P<a>@) reviewers? left (?P<b>@) reviews?",
                {"a": "counts.reviewers", "b": "counts.reviews"},
            ),
            (r"there (?:was|were) (?P<a>@) comments?", {"a": "counts.comments"}),
            (r"(?P<a>@) hours from opening to merge", {"a": "median.merge"}),
            (r"(?P<a>@) hours to a first response", {"a": "median.response"}),
            (
                r"most active contributor was (?P<login>\S+) with (?P<a>@) merged PRs? and (?P<b>@) reviews?",
                {"a": "contributor.{login}.prs_merged", "b": "contributor.{login}.reviews"},
            ),
            (
                r"most active contributor was (?P<login>\S+) with (?P<a>@) merged PRs?\.",
                {"a": "contributor.{login}.prs_merged"},
            ),
            (r"(?P<a>@) bot accounts? (?:was|were) active", {"a": "bots"}),
            (r" for (?P<a>@) days", {"a": "followup.{item}.days"}),
            (r"(?P<a>@) PRs? changed core paths", {"a": "risk.core-change.count"}),
            (r"(?P<a>@) code changes? came without tests", {"a": "risks.untested"}),
            (r", (?P<a>@) of them in core paths", {"a": "risk.core-without-tests.count"}),
            # (section 4 links a risk's other PRs after the titled ones: "The other 26: #…")
            (r"(?:… and |The other )(?P<a>@)(?: more|:)", {"a": "more"}),
        ]
    ],
    "zh-CN": [
        (_rx(p), keys)
        for p, keys in [
            (
                r"\*\*来源\*\*：合并 PR (?P<a>@) · 重点 PR (?P<b>@)",
                {"a": "counts.merged_prs", "b": "counts.key_prs"},
            ),
            (r"\*\*修订\*\*：r(?P<a>@)", {"a": "revision"}),
            (r"修订 (?P<a>@) 取代了先前版本", {"a": "revision"}),
            (r"(?<!该方向)共合并 (?P<a>@) 个 PR", {"a": "counts.merged_prs"}),
            (r"其中 (?P<a>@) 个为下文分析的重点 PR", {"a": "counts.key_prs"}),
            (r"新增 (?P<a>@) 个 PR", {"a": "counts.new_prs"}),
            (r"(?P<a>@) 个关闭未合并", {"a": "counts.closed_unmerged_prs"}),
            (
                r"新开 (?P<a>@) 个 Issue，关闭 (?P<b>@) 个",
                {"a": "counts.new_issues", "b": "counts.closed_issues"},
            ),
            (
                r"(?P<module>[^。：；，]+?)方向的活动增加最多：本期 (?P<a>@) 项，较上期多 (?P<b>@) 项",
                {"a": "module.{module}.total", "b": "module.{module}.delta"},
            ),
            (r"有 (?P<a>@) 项高风险需要关注", {"a": "risks.high"}),
            (
                r"已合并的变更新增 (?P<a>@) 行、删除 (?P<b>@) 行，净(?P<dir>增加|减少) (?P<c>@) 行",
                {
                    "a": "counts.lines_added",
                    "b": "counts.lines_removed",
                    "c": "lines.net",
                    "dir": "lines.direction",
                },
            ),
            (r"一项就净(?:删除|新增) (?P<a>@) 行", {"a": "item.{item}.net"}),
            (r"整体呈现 (?P<a>@) 条主线", {"a": "main_lines"}),
            (r"^- \*\*(?P<module>[^*]+)\*\*：合并 (?P<a>@) 个 PR", {"a": "theme.{module}.merged"}),
            (
                r"该方向共合并 (?P<a>@) 个 PR，此处重点介绍 (?P<b>@) 个；已合并变更合计 \+(?P<c>@) / -(?P<d>@) 行",
                {
                    "a": "theme.{module}.merged",
                    "b": "theme.{module}.shown",
                    "c": "theme.{module}.added",
                    "d": "theme.{module}.removed",
                },
            ),
            (
                r"(?P<module>[^（）：；，、。]+?)（(?P<a>@) 项，合并 (?P<b>@) 个",
                {"a": "module.{module}.total", "b": "module.{module}.merged"},
            ),
            (
                r"(?P<story>[^（）：；，、。]+?)（(?P<a>@) 个 PR，(?:已)?合并 (?P<b>@) 个）",
                {"a": "story.{story}.prs", "b": "story.{story}.merged"},
            ),
            (
                r"(?P<story>[^（）：；，、。]+?)（(?:已)?合并 (?P<a>@) 个 PR）",
                {"a": "story.{story}.all_merged"},
            ),
            (
                r"这条主线合并了 (?P<a>@) 个 PR（\+(?P<c>@) / -(?P<d>@) 行）",
                {
                    "a": "story.{story}.all_merged",
                    "c": "story.{story}.added",
                    "d": "story.{story}.removed",
                },
            ),
            (
                r"(?P<story>[^（）：；，、。]+?)（?(?P<a>@) 项（已合并 (?P<b>@) 个）",
                {"a": "story.{story}.prs", "b": "story.{story}.merged"},
            ),
            (
                r"这条主线共 (?P<a>@) 个 PR，已合并 (?P<b>@) 个（\+(?P<c>@) / -(?P<d>@) 行）",
                {
                    "a": "story.{story}.prs",
                    "b": "story.{story}.merged",
                    "c": "story.{story}.added",
                    "d": "story.{story}.removed",
                },
            ),
            (r"上期已有 (?P<a>@) 个相关 PR", {"a": "story.{story}.previous"}),
            (r"以下 (?P<a>@) 个重点 PR 不属于上述任何主线", {"a": "other_key_prs"}),
            (r"(?P<a>@) (?P<role>ROLE)", {"a": "story.{story}.role.{role}"}),
            (
                r"活跃度从 (?P<a>@) 项(?:上升|下降)到 (?P<b>@) 项",
                {"a": "module.{module}.previous", "b": "module.{module}.total"},
            ),
            (r"活跃度持平，为 (?P<a>@) 项", {"a": "module.{module}.total"}),
            (r"上一窗口没有活动，本期有 (?P<a>@) 项", {"a": "module.{module}.total"}),
            (r"本期没有活动，上一窗口有 (?P<a>@) 项", {"a": "module.{module}.previous"}),
            (
                r"共有 (?P<a>@) 个模块有活动；与上一窗口相比，(?P<b>@) 个上升，(?P<c>@) 个下降",
                {"a": "modules.active", "b": "modules.up", "c": "modules.down"},
            ),
            (
                r"合并 PR 从 (?P<a>@) 个变为 (?P<b>@) 个（(?P<c>@)）",
                {"a": "previous.merged_prs", "b": "counts.merged_prs", "c": "delta.merged_prs"},
            ),
            (
                r"新 Issue 从 (?P<a>@) 个变为 (?P<b>@) 个",
                {"a": "previous.new_issues", "b": "counts.new_issues"},
            ),
            (r"\*\*(?P<risk>[^*]+)\*\*（[高中低]风险，(?P<a>@) 项）", {"a": "risk.{risk}.count"}),
            (r"(?P<risk>[^（）：；，、。]+?)（(?P<a>@) 项）", {"a": "risk.{risk}.count"}),
            (r"\*\*(?P<risk>[^*]+)\*\*（[高中低]风险）", {}),
            (
                r"共 (?P<a>@) 个 PR（已合并 (?P<b>@) 个）和 (?P<c>@) 个 Issue，来自 (?P<d>@) 位贡献者",
                {
                    "a": "eco.{eco}.prs",
                    "b": "eco.{eco}.merged",
                    "c": "eco.{eco}.issues",
                    "d": "eco.{eco}.contributors",
                },
            ),
            (
                r"\+(?P<a>@) / -(?P<b>@) 行，(?P<c>@) 个文件",
                {
                    "a": "item.{item}.additions",
                    "b": "item.{item}.deletions",
                    "c": "item.{item}.files",
                },
            ),
            (
                r"窗口内 (?P<a>@) 条评论、(?P<b>@) 次评审，(?P<c>@) 人参与",
                {
                    "a": "discussion.{item}.comments",
                    "b": "discussion.{item}.reviews",
                    "c": "discussion.{item}.participants",
                },
            ),
            (
                r"窗口内 (?P<a>@) 条评论，(?P<c>@) 人参与",
                {"a": "discussion.{item}.comments", "c": "discussion.{item}.participants"},
            ),
            (
                r"共有 (?P<a>@) 位贡献者活跃（其中 (?P<b>@) 位首次贡献）",
                {"a": "counts.active_contributors", "b": "counts.first_time_contributors"},
            ),
            (
                r"共有 (?P<a>@) 位贡献者活跃(?!（)",
                {"a": "counts.active_contributors"},
            ),
            (
                r"(?P<a>@) 位评审者提交了 (?P<b>@) 次评审",
                {"a": "counts.reviewers", "b": "counts.reviews"},
            ),
            (r"另有 (?P<a>@) 条评论", {"a": "counts.comments"}),
            (r"从创建到合并 (?P<a>@) 小时", {"a": "median.merge"}),
            (r"首次响应 (?P<a>@) 小时", {"a": "median.response"}),
            (
                r"最活跃的贡献者是 (?P<login>[^，\s]+)，合并 (?P<a>@) 个 PR，评审 (?P<b>@) 次",
                {"a": "contributor.{login}.prs_merged", "b": "contributor.{login}.reviews"},
            ),
            (
                r"最活跃的贡献者是 (?P<login>[^，\s]+)，合并 (?P<a>@) 个 PR。",
                {"a": "contributor.{login}.prs_merged"},
            ),
            (r"另有 (?P<a>@) 个机器人账号活跃", {"a": "bots"}),
            (r"(?:已等待(?:决策|评审)|已) (?P<a>@) 天", {"a": "followup.{item}.days"}),
            (r"(?P<a>@) 个 PR 改动了核心路径", {"a": "risk.core-change.count"}),
            (r"(?P<a>@) 项代码变更缺少测试", {"a": "risks.untested"}),
            (r"其中 (?P<a>@) 项位于核心路径", {"a": "risk.core-without-tests.count"}),
            # items, people; a risk's other PRs, linked after it ("其余 26 项：#…")
            (r"(?:(?:……|等，)另有 |其余 )(?P<a>@) (?:项|位)", {"a": "more"}),
        ]
    ],
}
HEADLINE = {
    "en": _rx(r"(?P<label>[^|*]+?) \*\*(?P<v>@)(?: \((?P<d>@) vs previous\))?\*\*"),
    "zh-CN": _rx(r"(?P<label>[^|*]+?) \*\*(?P<v>@)(?:（较上期 (?P<d>@)）)?\*\*"),
}
CHANGED = {
    "en": _rx(r"(?P<name>[^,:→]+?) (?P<a>@|-) → (?P<b>@|-)"),
    "zh-CN": _rx(r"(?P<name>[^，：→]+?) (?P<a>@|-) → (?P<b>@|-)"),
}
# a counted list: a heading or bold line "Merged PRs (6)", its items below or on the same line
COUNTED = {
    "en": re.compile(rf"^(?:#+ |- \*\*|\*\*)(?P<label>[^*(]+?) \((?P<n>{NUM})\)(?:\*\*)?(?::|$)"),
    "zh-CN": re.compile(
        rf"^(?:#+ |- \*\*|\*\*)(?P<label>[^*（]+?)（(?P<n>{NUM})）(?:\*\*)?(?:：|$)"
    ),
}
APPENDIX_PART = re.compile(rf"^(?P<label>.+?)\s*(?P<n>{NUM})$")
NOT_FIGURES = [
    re.compile(r"#\d+"),
    re.compile(r"\d{4}-\d{2}-\d{2}"),
    re.compile(r"\b\d{4}-W\d{2}\b"),
    re.compile(r"\d{4} 年第 \d{1,2} 周"),  # a week's label as Chinese says it
    re.compile(r"\b\d{1,2}:\d{2}\b"),
    re.compile(r"UTC[+-]\d+(?::\d{2})?"),
]
_LINK = re.compile(r"(?<!\\)\[((?:\\.|[^\]\\])*)\]\([^)]*\)")
_HEADING_NUMBER = re.compile(r"^(#+ )\d+(?:\.\d+)*\.? ")
_ORDINAL = re.compile(r"^\d+\. ")


@dataclass
class Reading:
    """What a report says: figure key -> the values printed for it (each occurrence)."""

    figures: dict[str, list[str]] = field(default_factory=dict)
    lists: dict[str, list[int]] = field(default_factory=dict)  # counted list -> item numbers listed
    more: list[tuple[str, int, str]] = field(default_factory=list)  # (total key, shown, "N more")
    unlabelled: list[tuple[str, str]] = field(default_factory=list)  # (number, line)
    tables: dict[str, dict[str, dict[str, str]]] = field(
        default_factory=dict
    )  # table -> row -> column -> value

    def add(self, key: str, value: str) -> None:
        self.figures.setdefault(key, []).append(value)


@dataclass
class Names:
    """Display name -> tag, for the words a line uses (modules, risks, lists, sections)."""

    modules: dict[str, str]
    risks: dict[str, str]
    lists: dict[str, str]
    counts: dict[str, str]
    sections: dict[str, str]  # section title -> the list whose "… and N more" it may say
    stories: dict[str, str]  # storyline name -> key
    roles: dict[str, str]  # "fixes" / "个修复" -> fix
    followups: dict[str, str]  # a follow-up's sentence -> its kind
    module_columns: dict[str, str]
    fallback: str  # the suffix of an unclassified module's row
    texts: list[str]  # titles, logins, excerpts, rule sets: words that may hold digits
    # the key-PR table's column headers: its rows read as the quick view's lines did
    key_columns: frozenset[str] = frozenset()
    _rules: dict[str, list] = field(default_factory=dict)

    def rules(self, lang: str) -> list[tuple[re.Pattern, dict[str, str]]]:
        """The language's rules, the role words ("fixes") put in."""
        if lang not in self._rules:
            roles = (
                "|".join(re.escape(r) for r in sorted(self.roles, key=len, reverse=True)) or "(?!)"
            )
            self._rules[lang] = [
                (re.compile(p.pattern.replace("ROLE", roles)) if "ROLE" in p.pattern else p, keys)
                for p, keys in RULES[lang]
            ]
        return self._rules[lang]

    def find(self, table: dict[str, str], text: str | None) -> str | None:
        """The tag whose display name `text` ends with (the longest such name)."""
        text = (text or "").strip().strip("*").strip()
        hits = [name for name in table if name and text.endswith(name)]
        return table[max(hits, key=len)] if hits else None


def names_for(
    lang: str,
    modules: set[str],
    risks: set[str],
    texts: list[str],
    stories: dict[str, str] | None = None,
) -> Names:
    m = messages(lang)
    roles = {}
    for role in ("feature", "fix", "revert", "perf", "refactor", "test", "docs", "ci", "other"):
        forms = m.raw(f"roles.{role}")
        for form in forms.values() if isinstance(forms, dict) else [forms]:
            roles[str(form).replace("{count}", "").strip()] = role
    kinds = (
        "open_rfc",
        "awaiting_review",
        "popular_bug",
        "core_without_tests",
        "instability",
        "revert",
        "upgrade_fallout",
        "other",
    )

    def opening(names: dict[str, str]) -> dict[str, str]:
        # a name that opens an English line is capitalised there ("Scheduler (5 items, …)")
        if lang != "en":
            return names
        return {**{_capitalised(n): t for n, t in names.items()}, **names}

    return Names(
        modules=opening({m.name("module_names", t): t for t in modules}),
        risks={
            m.name("risk_names", r): r for r in (*risks, "core-tests")
        },  # (the core paths and tests bullet)
        lists={m.t(f"appendix.{name}"): name for name in APPENDIX_LISTS},
        counts={m.t(f"counts.{name}"): name for name in COUNT_NAMES},
        sections={
            **{m.t(k): "key_prs" for k in ("sections.key_prs", "sections_day.key_prs") if m.has(k)},
            m.t("sections.activity"): "contributors",
            **{m.t(k): "topics" for k in ("sections.topics", "sections_day.topics") if m.has(k)},
        },
        stories=opening(dict(stories or {})),
        roles=roles,
        followups={m.raw(f"follow_ups.{k}"): k for k in kinds if m.has(f"follow_ups.{k}")},
        module_columns={m.t(f"labels.{k}"): v for k, v in MODULE_COLUMNS.items()},
        fallback=m.t("modules_table.fallback"),
        texts=sorted({t for t in [*texts, m.t("na.note")] if t}, key=len, reverse=True),
        key_columns=frozenset({m.t("labels.picked"), m.t("labels.area")}),
    )


def _clean(line: str) -> str:
    line = _LINK.sub(lambda mt: mt.group(1), line)
    return re.sub(r"\\(.)", r"\1", line)


def labelled_figures(markdown: str, lang: str, names: Names) -> Reading:
    out = Reading()
    section = eco = ""
    item: int | None = None
    heading_module: str | None = None
    heading_story: str | None = None
    bullet = ""  # the top-level bullet the sub-list below belongs to
    listing: str | None = None
    risk: str | None = None  # the risk bullet whose sub-list is being read
    shown = sub_shown = 0
    header: list[str] | None = None
    for raw in markdown.splitlines():
        line = _clean(raw).rstrip()
        heading = _HEADING_NUMBER.match(line)
        if heading:
            line = heading.group(1) + line[heading.end() :]
        if line.startswith("## "):
            section, eco, heading_module, heading_story, shown = line[3:].strip(), "", None, None, 0
        if line.startswith("### "):
            title = line[4:].strip()
            heading_module = names.find(names.modules, title)
            heading_story = names.find(names.stories, title)
            if "Ecosystem: " in title or "生态" in title:
                eco = title.replace("Ecosystem: ", "").replace(" 生态相关动态", "").strip()
        # tables, read by column header
        table_line = line.startswith("|")
        if table_line:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                continue
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if not names.key_columns & set(header):
                _table_row(header, cells, names, out, lang)
                shown += 1
                continue
            line = "- " + " · ".join(cells)  # a key PR: its row read as a line
        else:
            header = None
        if line.startswith("- "):
            shown += 1
            risk, bullet, sub_shown = None, line[2:], 0
        if line.startswith(("- ", "#")) or _ORDINAL.match(line) or not line.strip():
            item = None  # a new bullet or paragraph: its own item
        line = _ORDINAL.sub("", line)
        numbers = [int(n) for n in re.findall(r"#(\d+)", line)]
        if listing is not None:
            if line.startswith(("- ", "  - ")) and numbers:
                out.lists[listing].append(numbers[0])
            elif line.strip():
                listing = None
        claimed: list[tuple[int, int]] = []
        counted = COUNTED[lang].match(line)
        label = counted.group("label").strip() if counted else ""
        if (
            counted
            and names.find(names.risks, label) is None
            and names.find(names.modules, label) is None
        ):
            name = names.lists.get(label, label)
            listing = f"list.{name}"
            out.lists[listing] = [n for n in numbers]  # items on the same line count too
            out.add(f"count.{listing}", counted.group("n"))
            claimed.append(counted.span("n"))
            if numbers:
                listing = None
        _groups(line, lang, claimed, out)
        found_risk = _read_line(
            line,
            lang,
            names,
            out,
            section,
            eco,
            numbers,
            item,
            (heading_module, heading_story),
            claimed,
        )
        if found_risk:
            risk, sub_shown = found_risk, 0
        elif line.startswith("  - ") and numbers:
            sub_shown += 1
        for _key, printed, at in _mores(line, lang, claimed):
            refs_before = sum(1 for n in numbers if line.find(f"#{n}") < at)
            if found_risk:
                out.more.append((f"risk.{found_risk}.count", refs_before, printed))
            elif line.startswith("  - ") and risk and numbers and not refs_before:
                # "The other 26: #…": the PRs it counts are the links after it, all of them
                if len(numbers) != int(printed.replace(",", "")):
                    out.unlabelled.append((printed, f"{len(numbers)} links after it: {line}"))
                out.more.append((f"risk.{risk}.count", sub_shown - 1, printed))
            elif line.startswith("  - ") and risk:
                out.more.append((f"risk.{risk}.count", sub_shown, printed))
            elif line.startswith("  - "):
                kind = next(
                    (k for text, k in names.followups.items() if bullet.startswith(text)), bullet
                )
                out.more.append((f"total.followup.{kind}", sub_shown, printed))
            elif names.sections.get(section) == "topics":
                # a topic's changes: those named and "… and N more" are at most the topic's count
                counted = TOPIC_COUNT.search(line)
                n_items = (
                    int(next(g for g in counted.groups() if g).replace(",", "")) if counted else 0
                )
                if refs_before + int(printed.replace(",", "")) > n_items:
                    out.unlabelled.append((printed, f"more than the topic counts: {line}"))
                claimed.append((at, at))
            else:
                kind = names.sections.get(section, section)
                out.more.append(
                    (f"total.{kind}", shown - (1 if line.startswith("- ") else 0), printed)
                )
        if numbers:
            item = numbers[-1]
        _unlabelled(line, claimed, names, out)
    return out


# a line's other PRs by kind, after its told ones: "Also 8 fixes: #1, #2; 1 CI change: #3"
# ("另有 8 个修复：#1、#2；1 个 CI 改动：#3"); each kind's count is the references after it
GROUPS = {
    "en": re.compile(r"(?:^Also |; )(?P<n>\d+) [^:;#]+?: (?P<refs>(?:#\d+(?:, )?)+)"),
    "zh-CN": re.compile(r"(?:^另有 |；)(?P<n>\d+) 个[^：；#]+?：(?P<refs>(?:#\d+(?:、)?)+)"),
}


def _groups(line: str, lang: str, claimed: list[tuple[int, int]], out: Reading) -> None:
    for mt in GROUPS[lang].finditer(line):
        refs = len(re.findall(r"#\d+", mt.group("refs")))
        if refs != int(mt.group("n")):
            out.unlabelled.append((mt.group("n"), f"{refs} references after it: {line}"))
        claimed.append(mt.span("n"))


def _mores(line: str, lang: str, claimed: list[tuple[int, int]]):
    pattern = next(p for p, keys in RULES[lang] if keys == {"a": "more"})  # no ROLE in it
    for mt in pattern.finditer(line):
        claimed.append(mt.span("a"))
        yield "more", mt.group("a"), mt.start()


def _read_line(
    line, lang, names, out, section, eco, numbers, item, headings, claimed
) -> str | None:
    """Claim the line's labelled numbers; the risk a risk bullet names, if it is one."""

    def free(span: tuple[int, int]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in claimed)

    for mt in HEADLINE[lang].finditer(line):
        name = names.counts.get(mt.group("label").strip(" |"))
        if name is None or not free(mt.span("v")):
            continue
        out.add(f"counts.{name}", mt.group("v"))
        claimed.append(mt.span("v"))
        if mt.group("d") is not None:
            out.add(f"delta.{name}", mt.group("d"))
            claimed.append(mt.span("d"))
    # the appendix line: "New issues 3 · Closed issues 1 · ..." (one part alone where the
    # source tells only merged PRs: "Merged PRs 13")
    one = APPENDIX_PART.match(line.strip())
    if " · " in line or (one and names.lists.get(one.group("label").strip()) is not None):
        at = 0
        for part in line.split(" · "):
            mt = APPENDIX_PART.match(part.strip())
            name = names.lists.get(mt.group("label").strip()) if mt else None
            if name is not None:
                start = line.index(
                    mt.group("n"), at + part.index(mt.group("label")) + len(mt.group("label"))
                )
                out.add(f"appendix.{name}", mt.group("n"))
                claimed.append((start, start + len(mt.group("n"))))
            at += len(part) + 3
    if "→" in line:
        for i, mt in enumerate(CHANGED[lang].finditer(line)):
            out.add(f"changed.{i}", f"{mt.group('a')}>{mt.group('b')}")
            claimed.extend([mt.span("a"), mt.span("b")])
    (module, story), bullet_risk = headings, None
    for pattern, keys in names.rules(lang):
        if keys == {"a": "more"}:
            continue
        for mt in pattern.finditer(line):
            groups = mt.groupdict()
            spans = [mt.span(g) for g in keys if groups.get(g) is not None]
            if not all(free(s) for s in spans):
                continue
            if groups.get("module"):
                module = names.find(names.modules, groups["module"]) or module
            if "story" in groups:
                story = names.find(names.stories, groups["story"])
                if story is None:
                    continue  # "(3 PRs, 3 merged)" after something that is not a storyline
            if "role" in groups:
                if story is None:
                    continue
                groups["role"] = names.roles[groups["role"]]
            risk = None
            if "risk" in groups:
                risk = names.find(names.risks, groups["risk"])
                if risk is None:
                    continue  # "(3 items)" after something that is not a risk
                if line.startswith("- **"):
                    bullet_risk = risk
            before = [n for n in numbers if 0 <= line.find(f"#{n}") < mt.start()]
            context = {
                "module": module,
                "risk": risk,
                "eco": eco,
                "section": section,
                "story": story,
                "role": groups.get("role"),
                "item": before[-1] if before else item,
                "login": groups.get("login"),
            }
            for group, key in keys.items():
                if groups.get(group) is None or group == "role":
                    continue
                out.add(key.format(**context), DIRECTION.get(groups[group], groups[group]))
                claimed.append(mt.span(group))
    return bullet_risk


def _table_row(header: list[str], cells: list[str], names: Names, out: Reading, lang: str) -> None:
    first = cells[0]
    if set(CONTRIBUTOR_COLUMNS[lang]) & set(header):
        columns, table, row = CONTRIBUTOR_COLUMNS[lang], "contributors", first
    elif set(names.module_columns) & set(header):
        columns, table = names.module_columns, "modules"
        row = names.find(names.modules, first.replace(names.fallback, "")) or f"?{first}"
    else:
        for c in cells:
            out.unlabelled += [
                (n, "|".join(cells)) for n in re.findall(r"\d[\d,.]*", re.sub(r"#\d+", "", c))
            ]
        return
    out.tables.setdefault(table, {})[row] = {
        columns[h]: c for h, c in zip(header, cells) if h in columns
    }


def _unlabelled(line: str, claimed: list[tuple[int, int]], names: Names, out: Reading) -> None:
    chars = list(line)
    for a, b in claimed:
        chars[a:b] = [" "] * (b - a)
    rest = "".join(chars)
    quote = rest.strip().startswith(">")
    for text in names.texts:
        rest = rest.replace(text, " ")
    if quote:  # an excerpt of a description, cut short: words, not figures
        cut = rest.strip().lstrip(">").strip().rstrip("…")
        if cut and any(t.startswith(cut) or cut in t for t in names.texts):
            return
    for pattern in NOT_FIGURES:
        rest = pattern.sub(" ", rest)
    for n in re.findall(r"\d[\d,.]*", rest):
        out.unlabelled.append((n.rstrip(".,"), line))


def value(text: str) -> float:
    return float(text.replace(",", ""))


def matches(printed: str, expected: object) -> bool:
    """A printed figure against the expected one, to the precision printed (18.5 for 18.46)."""
    if isinstance(expected, str):
        return printed == expected
    if isinstance(expected, tuple):
        parts = printed.split(">")
        return len(parts) == len(expected) and all(matches(p, e) for p, e in zip(parts, expected))
    if expected is None:
        return printed == "-"
    if printed == "-":
        return False
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return abs(value(printed) - float(expected)) <= 0.5 * 10**-decimals + 1e-9


def check(
    markdown: str,
    lang: str,
    expected: dict[str, object],
    names: Names,
    lists: dict[str, list[int]],
    table: dict[str, dict[str, int]],
) -> list[str]:
    """Every problem found: a figure that differs, one nothing labels, one nothing expects."""
    reading = labelled_figures(markdown, lang, names)
    problems = [f"unlabelled number {n!r} in: {line}" for n, line in reading.unlabelled]
    for key, printed in sorted(reading.figures.items()):
        if key.startswith("count.list."):
            listed = reading.lists[key[len("count.") :]]
            problems += [
                f"{key}: the heading says {p} but {len(listed)} are listed"
                for p in printed
                if value(p) != len(listed)
            ]
            continue
        if key not in expected:
            problems.append(f"the report prints {key} = {printed}, which the test does not recount")
            continue
        problems += [
            f"{key}: printed {p}, recounted {expected[key]}"
            for p in printed
            if not matches(p, expected[key])
        ]
    for total_key, shown, printed in reading.more:
        total = expected.get(total_key)
        if total is None or shown + value(printed) != total:
            problems.append(
                f"{shown} shown and '… {printed} more' of {total_key}, recounted {total}"
            )
    for key, numbers in sorted(reading.lists.items()):
        name = key[len("list.") :]
        if name not in lists:
            problems.append(f"{key}: a counted list the test does not recount")
        elif sorted(numbers) != sorted(lists[name]):
            problems.append(f"{key}: lists {sorted(numbers)}, recounted {sorted(lists[name])}")
    for login, cells in reading.tables.get("contributors", {}).items():
        if login not in table:
            problems.append(f"contributor table row {login!r} is not a contributor recounted")
            continue
        problems += [
            f"contributor {login} {column}: printed {printed}, recounted {table[login][column]}"
            for column, printed in cells.items()
            if value(printed) != table[login][column]
        ]
    for module, cells in reading.tables.get("modules", {}).items():
        problems += [
            f"module table {module} {column}: printed {printed}, recounted {expected.get(f'module.{module}.{column}')}"
            for column, printed in cells.items()
            if not matches(printed, expected.get(f"module.{module}.{column}", "missing"))
        ]
    return problems


# ---------------------------------------------------------------- a hand-built report model


def expected_from_summary(s: SummaryData) -> dict[str, object]:
    """What a report of `s` should print under each figure key, read from the model's fields."""
    out: dict[str, object] = {"revision": s.revision}
    for name, v in s.counts.model_dump().items():
        out[f"counts.{name}"] = v
    if s.previous_counts is not None:
        for name in COUNT_NAMES:
            now, before = getattr(s.counts, name), getattr(s.previous_counts, name)
            out[f"previous.{name}"] = before
            if now is not None and before is not None:
                out[f"delta.{name}"] = now - before
    added, removed = s.counts.lines_added, s.counts.lines_removed
    out["lines.net"] = abs(added - removed)
    out["lines.direction"] = "reduction" if removed > added else "growth"
    out["risks.high"] = sum(1 for r in s.risks if r.severity == "high")
    named = [
        st for st in s.storylines if st.evidence != "module"
    ]  # a module's leftovers are no main line
    out["main_lines"] = (
        min(3, len(named))
        if named
        else min(3, len([m for m in s.modules if not m.fallback and m.total]))
    )
    for st in s.storylines:
        out.update(
            {
                f"story.{st.key}.prs": len(st.items),
                f"story.{st.key}.merged": st.merged,
                f"story.{st.key}.added": st.lines_added,
                f"story.{st.key}.removed": st.lines_removed,
                f"story.{st.key}.previous": st.previous_items,
                # "3 merged PRs": only a line whose every PR is merged may say so
                f"story.{st.key}.all_merged": st.merged if st.merged == len(st.items) else None,
            }
        )
        for role, n in Counter(i.role for i in st.items).items():
            out[f"story.{st.key}.role.{role}"] = n
    told = {i.number for st in s.storylines for i in st.items}
    out["other_key_prs"] = sum(1 for k in s.key_prs if k.item.number not in told)
    covered: dict[str, set[int]] = {}
    for f in s.follow_ups:
        covered.setdefault(f.kind, set()).update((f.item.number, *f.items))
    out.update({f"total.followup.{kind}": len(numbers) for kind, numbers in covered.items()})
    out["modules.active"] = len(s.modules)
    out["modules.up"] = sum(1 for m in s.modules if m.trend in ("up", "new"))
    out["modules.down"] = sum(1 for m in s.modules if m.trend in ("down", "gone"))
    for m in s.modules:
        out.update(
            {
                f"module.{m.module}.{k}": getattr(m, f)
                for k, f in (
                    ("total", "total"),
                    ("merged", "merged"),
                    ("opened", "opened"),
                    ("issues", "issues"),
                    ("previous", "previous_total"),
                    ("delta", "delta"),
                )
            }
        )
    for t in s.themes:
        out.update(
            {
                f"theme.{t.module}.merged": t.merged,
                f"theme.{t.module}.shown": len(t.prs),
                f"theme.{t.module}.added": t.lines_added,
                f"theme.{t.module}.removed": t.lines_removed,
            }
        )
    for r in s.risks:
        out[f"risk.{r.risk}.count"] = max(r.count, len(r.items))
    # core paths and test coverage, told as one bullet at the top (their items, once each)
    core_tests = [
        r for r in s.risks if r.risk in ("core-change", "core-without-tests", "code-without-tests")
    ]
    if len(core_tests) >= 2:
        # its links are the gravest group's: untested core changes, else untested code
        named = next(
            r
            for key in ("core-without-tests", "code-without-tests", "core-change")
            for r in core_tests
            if r.risk == key
        )
        out["risk.core-tests.count"] = max(named.count, len(named.items))
        out["risks.untested"] = sum(r.count for r in core_tests if r.risk != "core-change")
    for e in s.ecosystems:
        prs = [i for g in e.pr_groups for i in g.items]
        out.update(
            {
                f"eco.{e.name}.prs": len(prs),
                f"eco.{e.name}.merged": sum(i.merged for i in prs),
                f"eco.{e.name}.issues": len(e.issues),
                f"eco.{e.name}.contributors": len(e.contributors),
            }
        )
    refs = [
        *(k.item for k in s.key_prs),
        *(i for e in s.ecosystems for g in e.pr_groups for i in g.items),
        *(d.item for d in s.discussions),
        *(f.item for f in s.follow_ups),
        *(r for n in APPENDIX_LISTS for r in getattr(s.appendix, n)),
    ]
    for ref in refs:
        out.update(
            {
                f"item.{ref.number}.additions": ref.additions,
                f"item.{ref.number}.deletions": ref.deletions,
                f"item.{ref.number}.files": ref.changed_files,
                f"item.{ref.number}.net": abs(ref.additions - ref.deletions),
            }
        )
    for d in s.discussions:
        out.update(
            {
                f"discussion.{d.item.number}.comments": d.comments_in_window,
                f"discussion.{d.item.number}.reviews": d.reviews_in_window,
                f"discussion.{d.item.number}.participants": len(d.participants),
            }
        )
    for f in s.follow_ups:
        out[f"followup.{f.item.number}.days"] = f.days
    out["median.merge"] = s.median_hours_to_merge
    out["median.response"] = s.median_hours_to_first_response
    for c in s.contributors:
        for name in ("prs_opened", "prs_merged", "issues_opened", "reviews", "comments"):
            out[f"contributor.{c.login}.{name}"] = getattr(c, name)
    out["bots"] = sum(1 for c in s.contributors if c.bot)
    for i, c in enumerate(x for x in s.changed_figures if x.name != "key_pr_numbers"):
        out[f"changed.{i}"] = (c.before, c.after)
    for name in APPENDIX_LISTS:
        out[f"appendix.{name}"] = len(getattr(s.appendix, name)) + int(
            s.appendix.omitted.get(name, 0)
        )
    out["total.key_prs"] = len(s.key_prs)
    out["total.contributors"] = sum(1 for c in s.contributors if not c.bot)  # people: the table
    return out


def lists_from_summary(s: SummaryData, lang: str) -> dict[str, list[int]]:
    """Counted lists of a report of `s`: the appendix lists and the ecosystems' PR groups."""
    m = messages(lang)
    out = {name: [r.number for r in getattr(s.appendix, name)] for name in APPENDIX_LISTS}
    for e in s.ecosystems:
        for g in e.pr_groups:
            out[m.name("category_names", g.category)] = [i.number for i in g.items]
    return out


# a hot topic's count: "(26 items, 9 merged" / "(3 merged PRs" / "（26 项" / "（合并了 3 个 PR"
TOPIC_COUNT = re.compile(
    r"\((\d[\d,]*) (?:items?|merged PRs?)\b|（(?:合并了 )?(\d[\d,]*) (?:项|个 PR)"
)
# a title's leading [Tags], which a line may leave out ("Faster paged attention on MI300")
TITLE_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*:?\s*)+")


def texts_of(s: SummaryData) -> list[str]:
    """Words of the model that may hold digits (titles, logins, excerpts, rule sets, notes)."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            if re.search(r"\d", node) and re.search(r"[^\d\s.,+-]", node):
                found.append(node)
                bare = TITLE_TAGS.sub("", node).strip()
                if bare != node and re.search(r"\d", bare):
                    found.append(bare)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, (list, tuple)):
            for v in node:
                walk(v)

    walk(s.model_dump(mode="python"))
    return found


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None
