"""How much of a change lies where, from its files' own additions and deletions.

Two rules read it (ruleset.py applies them; both are pure functions of the item, so reclassify
and replay give the same tags):

- a module that file paths alone give (`module:<name>/files`, not a title, label or keyword)
  counts for an item only when its files are a real part of the change: at least
  `INCIDENTAL_SHARE` of the item's changed lines or `INCIDENTAL_LINES` lines. A lint batch that
  fixes one line in each of twelve areas (real vllm-ascend #7511: 2 of 396 lines in kv-transfer,
  quantization, models) is no change of those areas. An item that touches one module keeps it
  whatever its size; without per-file counts (a source that has none) nothing changes.
- a CI kind (`CI_KINDS`: ci, platform-ci) means a change of CI, build, test or documentation
  configuration: at least `CI_SHARE` of its changed lines (of its files when the source has no
  per-file counts). A change of source code made for CI's sake, or to follow the upstream, is
  code, not CI: "Main2main Upgrade vllm commit to 0320" (real #7510) moves a pinned commit in
  five workflows and a docs table (16 of 24 lines) and adapts 8 lines of vllm_ascend/ (a third).

The thresholds come from the vllm-ascend history (4,734 merged PRs): of the modules that paths
alone gave to an item with several modules, 40 % held under a tenth of its lines; those under 50
lines were one-line renames, import fixes and lint batches, those above mostly real work. Of the
changes a [CI] title or a CI module made CI, two thirds are all configuration; between a tenth
and a quarter of code sits CI work that adds a test hook ("[CI]Add EPLB CI."); main2main
adaptations and platform ports with their tests hold a third of code or more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from shared.events import ItemSnapshot, Tag

INCIDENTAL_SHARE = 0.10
INCIDENTAL_LINES = 50
CI_KINDS = frozenset({"ci", "platform-ci"})
CI_SHARE = 0.75
# CI, build and tooling configuration in any repository (tests and documentation come from the
# profile's `tests.paths` and `docs_paths`)
CI_CONFIG_GLOBS = (
    ".github/**",
    ".gitlab/**",
    ".gitlab-ci.yml",
    ".circleci/**",
    ".buildkite/**",
    ".pre-commit-config.yaml",
    "**/Dockerfile*",
    "**/*.dockerfile",
    "docker/**",
    "Makefile",
    "**/CMakeLists.txt",
    "cmake/**",
    "**/*.cmake",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "tox.ini",
    "noxfile.py",
    "requirements*.txt",
    "requirements/**",
    "tools/**",
    "scripts/**",
    "**/*.sh",
    "collect_env.py",
    ".clang-format",
    ".clang-tidy",
    ".typos.toml",
    "typos.toml",
    ".codespellrc",
    "mypy.ini",
    ".flake8",
    ".yapfignore",
    ".markdownlint*",
    ".gitignore",
    ".dockerignore",
    ".*",  # a dotfile at the root configures a tool (.gitleaks.toml, .editorconfig, ...)
)


def line_counts(item: ItemSnapshot) -> dict[str, int] | None:
    """Changed lines per path, or None when the source gives no per-file counts."""
    counts: dict[str, int] = {}
    for f in item.files:
        counts[f.path] = counts.get(f.path, 0) + f.additions + f.deletions
    return counts if any(counts.values()) else None


def incidental(
    tags: Sequence[Tag], counts: Mapping[str, int], files_of: Callable[[Tag], Sequence[str] | None]
) -> tuple[list[Tag], dict[str, int]]:
    """The modules to keep and, for each left out, its changed lines. `files_of(tag)` is the
    files that gave a path-only module (None for a module the title, a label or a keyword gave:
    it always stays). When every module would go, the one with the most lines stays."""
    total = sum(counts.values())
    weights: dict[int, int] = {}
    for i, tag in enumerate(tags):
        files = files_of(tag)
        if files is not None:
            weights[i] = sum(counts.get(p, 0) for p in set(files))
    if len(tags) < 2 or not weights or total <= 0:
        return list(tags), {}
    small = {i for i, w in weights.items() if w < INCIDENTAL_LINES and w < INCIDENTAL_SHARE * total}
    if len(small) == len(tags):  # all of them small: the heaviest is the change's area
        small.discard(max(weights, key=lambda i: (weights[i], -i)))
    kept = [t for i, t in enumerate(tags) if i not in small]
    return kept, {tags[i].name: weights[i] for i in sorted(small)}


def ci_share(
    paths: Sequence[str], masks: Sequence[int], config_bits: int, item: ItemSnapshot
) -> tuple[float, int, int]:
    """The share of a change that is CI, build, test or docs configuration, with its changed
    lines there and in all (its files when the source gives no per-file counts); 1.0 for a
    change without files."""
    counts = line_counts(item)
    weight = {p: (counts.get(p, 0) if counts is not None else 1) for p in paths}
    total = sum(weight.values())
    if total <= 0:
        return 1.0, 0, 0
    config = sum(weight[p] for p, m in zip(paths, masks) if m & config_bits)
    return config / total, config, total
