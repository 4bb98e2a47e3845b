"""The git source reads first-parent history only: commits of a merged side branch are not pull
requests of the main line, the merge commit with "(#N)" is (a merge-commit workflow)."""

from __future__ import annotations

from services.ingest.adapters.files import load_source
from tests.unit.ingest.test_ingest_git_source import _commit, _git


def test_side_branch_commits_are_not_merged_pull_requests(tmp_path):
    repo = tmp_path / "clone"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(
        repo,
        "[Core] First (#1)",
        ("Ann", "1+ann@users.noreply.github.com"),
        "2026-06-01T10:00:00+00:00",
        {"a.py": "a\n"},
    )
    _git(repo, "checkout", "-q", "-b", "feature")
    _commit(
        repo,
        "wip: side work (#98)",
        ("Bob", "bob@corp.example"),
        "2026-06-02T10:00:00+00:00",
        {"b.py": "b\n"},
    )
    _commit(
        repo,
        "more side work (#99)",
        ("Bob", "bob@corp.example"),
        "2026-06-02T11:00:00+00:00",
        {"c.py": "c\n"},
    )
    _git(repo, "checkout", "-q", "main")
    _commit(
        repo,
        "[Docs] Second (#2)",
        ("Ann", "1+ann@users.noreply.github.com"),
        "2026-06-03T10:00:00+00:00",
        {"README.md": "r\n"},
    )
    env = {
        "GIT_AUTHOR_NAME": "GitHub",
        "GIT_AUTHOR_EMAIL": "noreply@github.com",
        "GIT_AUTHOR_DATE": "2026-06-04T10:00:00+00:00",
        "GIT_COMMITTER_NAME": "GitHub",
        "GIT_COMMITTER_EMAIL": "noreply@github.com",
        "GIT_COMMITTER_DATE": "2026-06-04T10:00:00+00:00",
        "PATH": "/usr/bin:/bin",
        "HOME": str(repo),
    }
    _git(repo, "merge", "-q", "--no-ff", "feature", "-m", "Merge the side feature (#3)", env=env)
    loaded = load_source(f"git:{repo}", "acme/widgets")
    numbers = [f.item.number for f in loaded.facts]
    assert numbers == [1, 2, 3]
    merge = loaded.facts[-1]
    assert merge.item.title == "Merge the side feature"
    # what the merge brought to main, against its first parent
    assert sorted(f.path for f in merge.item.files) == ["b.py", "c.py"]
