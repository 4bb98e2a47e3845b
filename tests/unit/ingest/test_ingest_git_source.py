"""git:PATH: a local clone's first-parent history as merged-PR facts (a real git repository)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from services.ingest.adapters.files import load_source
from services.ingest.domain.sources import SourceError, github_repo_of_remote, split_subject

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.mark.parametrize(
    "subject, expected",
    [
        ("[Core] Do it (#123)", ("[Core] Do it", 123)),
        ('Revert "[Perf] x (#10)" (#11)', ('Revert "[Perf] x (#10)"', 11)),
        ("Merge branch 'main'", ("Merge branch 'main'", None)),
        ("fix (#12) in the middle", ("fix (#12) in the middle", None)),
    ],
)
def test_split_subject(subject, expected):
    assert split_subject(subject) == expected


@pytest.mark.parametrize(
    "url, repo",
    [
        ("https://github.com/vllm-project/vllm.git", "vllm-project/vllm"),
        ("git@github.com:vllm-project/vllm-ascend.git", "vllm-project/vllm-ascend"),
        ("https://github.com/a/b.c/", "a/b.c"),
        ("https://gitlab.com/a/b.git", None),
    ],
)
def test_github_repo_of_remote(url, repo):
    assert github_repo_of_remote(url) == repo


def _git(cwd, *args, env=None):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def _commit(repo, message, author, when, files):
    for path, text in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    name, email = author
    env = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_NAME": "GitHub",
        "GIT_COMMITTER_EMAIL": "noreply@github.com",
        "GIT_COMMITTER_DATE": when,
        "PATH": "/usr/bin:/bin",
        "HOME": str(repo),
    }
    _git(repo, "commit", "-q", "-m", message, env=env)


@pytest.fixture
def clone(tmp_path):
    repo = tmp_path / "clone"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    _commit(
        repo,
        "[Core] Add the scheduler (#12)",
        ("Ann", "77+ann-dev@users.noreply.github.com"),
        "2026-06-08T10:00:00+08:00",
        {"vllm/core/sched.py": "a\nb\nc\n", "logo.png": b"\x00\x01"},
    )
    _commit(
        repo,
        "Initial docs",
        ("Bob", "bob@corp.example"),
        "2026-06-09T10:00:00+00:00",
        {"docs/a.md": "x\n"},
    )
    _git(repo, "mv", "vllm/core/sched.py", "vllm/core/scheduler.py")
    _commit(
        repo,
        "[Misc] Rename scheduler module (#15)",
        ("Bob", "bob@corp.example"),
        "2026-06-10T10:00:00+00:00",
        {"tests/test_s.py": "t\n"},
    )
    return repo


def test_git_clone_history_becomes_merged_facts(clone):
    loaded = load_source(f"git:{clone}")
    assert loaded.repo == "acme/widgets" and loaded.origin == "git"
    assert [(f.item.number, f.item.title) for f in loaded.facts] == [
        (12, "[Core] Add the scheduler"),
        (15, "[Misc] Rename scheduler module"),
    ]
    first, second = loaded.facts
    assert first.item.author.login == "ann-dev" and first.item.author.email_domain is None
    assert second.item.author.login == "Bob" and second.item.author.email_domain == "corp.example"
    assert {f.path: f.status for f in first.item.files} == {
        "vllm/core/sched.py": None,
        "logo.png": "binary",
    }
    assert (
        first.item.additions == 3
        and first.item.merged_at.isoformat() == "2026-06-08T02:00:00+00:00"
    )
    paths = {f.path: f.status for f in second.item.files}
    assert paths == {"vllm/core/scheduler.py": "renamed", "tests/test_s.py": None}
    assert all(
        f.origin == "git" and (f.kind, f.action) == ("pull_request", "merged") for f in loaded.facts
    )


def test_git_clone_errors(clone, tmp_path):
    _git(clone, "remote", "set-url", "origin", "https://gitlab.com/acme/widgets.git")
    with pytest.raises(SourceError, match="cannot tell which GitHub repository"):
        load_source(f"git:{clone}")
    assert load_source(f"git:{clone}", "acme/other").repo == "acme/other"
    empty = tmp_path / "empty"
    empty.mkdir()
    _git(empty, "init", "-q")
    with pytest.raises(SourceError, match="git log failed"):
        load_source(f"git:{empty}", "a/b")
    with pytest.raises(SourceError, match="not a directory"):
        load_source(f"git:{tmp_path / 'nope'}", "a/b")


def test_git_squash_commit_body_is_the_description(tmp_path):
    """The message body after the subject travels as the PR's description, whatever it holds
    (blank lines, Markdown, numstat-looking lines, the separators themselves)."""
    repo = tmp_path / "bodies"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    body = (
        "### What this PR does / why we need it?\n\nAdd the scheduler.\n\n"
        "1\t2\tlooks/like/numstat.py\n\n- vLLM version: v0.9.1\n\n"
        "Odd \x1f bytes \x1d stay\n\nSigned-off-by: Ann <ann@corp.example>"
    )
    _commit(
        repo,
        f"[Core] Add the scheduler (#12)\n\n{body}",
        ("Ann", "ann@corp.example"),
        "2026-06-08T10:00:00+00:00",
        {"vllm/core/sched.py": "a\nb\n"},
    )
    _commit(
        repo,
        "[Misc] No description (#13)",
        ("Bob", "bob@corp.example"),
        "2026-06-09T10:00:00+00:00",
        {"docs/a.md": "x\n"},
    )
    _commit(
        repo,
        'Revert "[Misc] No description (#13)" (#14)\n\nThis reverts commit '
        "0123456789abcdef0123456789abcdef01234567.",
        ("Bob", "bob@corp.example"),
        "2026-06-10T10:00:00+00:00",
        {"docs/a.md": "y\n"},
    )
    loaded = load_source(f"git:{repo}", "acme/widgets")
    by_number = {f.item.number: f.item for f in loaded.facts}
    assert by_number[12].body_excerpt == body
    assert [f.path for f in by_number[12].files] == ["vllm/core/sched.py"]
    assert by_number[12].additions == 2
    assert by_number[13].body_excerpt == ""
    assert by_number[14].title == 'Revert "[Misc] No description (#13)"'
    assert by_number[14].body_excerpt.startswith("This reverts commit 0123456789abcdef")
    assert [f.path for f in by_number[14].files] == ["docs/a.md"]


def test_git_log_records_of_the_format_without_body():
    """Output of the format before bodies travelled still reads (no body)."""
    from services.ingest.domain.sources import git_log_records

    text = (
        "\x1e" + "a" * 40 + "\x1fAnn\x1fann@x.example\x1f2026-06-08T10:00:00+00:00"
        "\x1f2026-06-08T10:00:00+00:00\x1f[Core] Do it (#3)\n\n1\t0\ta.py\n"
    )
    (record,) = git_log_records(text)
    assert (
        record["pr_number"] == 3 and record["body"] == "" and record["files"][0]["path"] == "a.py"
    )
