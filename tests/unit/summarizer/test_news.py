"""Project news — releases, support dropped or added, governance, policy — on REAL merged PRs of
vllm-project/vllm-ascend (../shared/data/vllm-ascend-history, read in place): their titles,
descriptions and changed paths. Expected values are written by hand from those PRs; negatives are
real PRs that name a release, a version or a team without being such news."""

from __future__ import annotations

from datetime import datetime

import pytest

from services.summarizer.domain.news import NewsWords, news_of, project_news
from shared.events.github import Actor, FileChange, ItemSnapshot
from tests.conftest import history_prs

pytestmark = pytest.mark.shared_data

REPO = "vllm-project/vllm-ascend"


_rows = history_prs  # the real history, by number (tests/conftest.py)


def snap(number: int) -> ItemSnapshot:
    """Real #number as the summarizer sees it: title, description and changed paths."""
    row = _rows()[number]
    at = datetime.fromisoformat(row["merged_at"])
    return ItemSnapshot(
        repo=REPO,
        number=number,
        kind="pull_request",
        title=row["title"],
        author=Actor(login=row["author_name"] or "someone"),
        state="closed",
        created_at=at,
        merged_at=at,
        files=tuple(
            FileChange(path=f["path"], additions=f["additions"] or 0, deletions=f["deletions"] or 0)
            for f in row["files"]
        ),
        body_excerpt=row["body"] or "",
    )


@pytest.mark.parametrize(
    ("number", "kind", "what"),
    [
        (4918, "release", "v0.11.0"),  # Add release note for v0.11.0
        (6207, "release", "0.13.0rc2"),  # [Doc] Add release note for 0.13.0rc2
        (7638, "release", "v0.18.0rc1"),  # [Doc][Release] v0.18.0rc1 release note
        (8879, "release", "0.18.0"),  # [Doc] Cherry-pick 0.18.0 release info
        (14379, "release", "v0.23.0"),  # [v0.23.0][Doc][Misc] Sync v0.23.0 release docs to main
        (13765, "release", "v0.23.0"),  # Update stable release version in … banners to v0.23.0
        (1349, "version", "v0.9.1rc1"),  # Bump v0.9.1rc1 release
        (5146, "support_dropped", "vLLM 0.12.0"),  # Drop 0.12.0 support (body: vLLM version)
        (6069, "support_dropped", "vLLM 0.13.0"),  # Drop vLLM 0.13.0 support
        (10704, "support_dropped", "vLLM v0.22.1"),  # Drop vLLM v0.22.1 compatibility from main
        (6852, "support_dropped", "vllm 0.15.0"),  # clean 0.15.0 support (body names vllm)
        (12019, "support_dropped", "vLLM v0.23.0"),  # [CI] vllm drop v0.23.0 and upgrade v0.24.0
        # "Upgrade the minimum version to 3.10": "… don't support Python 3.9", its description
        (3926, "support_dropped", "Python 3.9"),
        (5152, "governance", "maintainers"),
        (6268, "governance", "maintainers"),  # Nominate whx-sjtu as maintainer
        (5882, "governance", "code owners"),  # [Community] Add code owner (CODEOWNERS)
        (8656, "policy", "version policy"),  # [Doc] Update version policy
    ],
)
def test_real_project_news(number: int, kind: str, what: str) -> None:
    news = news_of(snap(number))
    assert news is not None
    assert (news.kind, news.what, news.items) == (kind, what, (number,))


@pytest.mark.parametrize(
    "number",
    [
        4657,  # "fix typo" in release_notes.md: an edit of a release note is no release
        5500,  # [Doc] Fix issue link for 0.12.0 (release_notes.md)
        11325,  # Clarify Ascend 950 wording in v0.22.1rc1 release notes
        12706,  # Fix the description in the PCP/DCP release notes
        9298,  # Fix CANN 9.0.0 release-notes URL
        6824,  # [Doc][Release] Add release note skill: no version
        8836,  # release proxy resources on stream cancellation: "release" is a verb of code
        12273,  # Bump xlite version to the latest release: a dependency's version
        9184,  # Drop custom so for CANN8.5.1: no support dropped
        12217,  # Drop vllm main e2e test for v0.24.0rc: a test, not a version
        10740,  # Fix logic bug … to properly support vLLM 0.22.1: a fix, no support added
        7886,  # Add vLLM Ascend Support for Qwen2.5-Math-RM-72B: a model, not a dependency
        9415,  # Xlite support glm4.7 w8a8 quantization
        10880,  # [Doc] Update contributor list: contributors are no governance
        6753,  # [CI]Fixed the spell check function (touches policy code paths)
        4172,  # [CI] Remove unsupported python 3.9 format check: a check, no support dropped
    ],
)
def test_real_changes_that_are_no_news(number: int) -> None:
    assert news_of(snap(number)) is None


def test_dropped_support_says_what_comes_next_in_the_description_words() -> None:
    news = news_of(snap(5146))  # "We decided to release v0.13.0 soon. So no need to support 0.12.0"
    assert news is not None
    assert (news.action, news.ahead_of) == ("removed", "v0.13.0")
    assert news.said == "We decided to release v0.13.0 soon."


def test_governance_names_the_people_title_or_description_give() -> None:
    added = news_of(snap(5152))
    assert added is not None
    assert (added.action, added.people) == ("added", ("zzzzwwjj", "realliujiaxu", "LCAIZJ"))
    named = news_of(snap(1203))  # Add ShouJian Zheng (@jianzs) as vLLM Ascend maintainer
    assert named is not None and named.people == ("jianzs",)
    # "Refresh maintainer team": the description says whom ("retire ganyi1996ppo, whx-sjtu, …")
    retired = news_of(snap(13186))
    assert retired is not None
    assert (retired.action, retired.people) == (
        "removed",
        ("ganyi1996ppo", "whx-sjtu", "MengqingCao"),
    )
    # ... and where they go, in its words: emeritus, not out (the renderer says "moved to emeritus")
    assert "emeritus" in retired.said.lower()
    assert news_of(snap(1203)).said == ""  # an addition by its title alone says nothing more


def test_a_profile_may_add_words() -> None:
    item = snap(4918).model_copy(update={"title": "Publish the changelog entry for v0.11.0"})
    assert news_of(item) is None
    found = news_of(item, NewsWords(release_docs=("changelog",)))
    assert found is not None and (found.kind, found.what) == ("release", "v0.11.0")


def test_one_news_per_version_with_every_change_releases_first() -> None:
    # v0.23.0: release docs synced and the stable banner moved, one piece of news with both
    # (2026-W34; code owners added twice are one piece of news)
    news = project_news(
        [snap(13765), snap(13186), snap(14452), snap(14379), snap(12019), snap(14488)]
    )
    assert [(n.kind, n.what, n.items) for n in news] == [
        ("release", "v0.23.0", (13765, 14379)),
        ("support_dropped", "vLLM v0.23.0", (12019,)),
        ("governance", "maintainers", (13186,)),
        ("governance", "code owners", (14452, 14488)),
    ]
