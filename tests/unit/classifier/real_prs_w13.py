"""Real merged pull requests of vllm-project/vllm-ascend (2026-W13), read in place from the history
file ../shared/data/vllm-ascend-history/merged_prs_with_bodies.jsonl (tests/conftest.py
history_prs: a skip where it is absent, a failure in CI): number, title, whole description and
every changed file with its additions and deletions. Used by the tests of what a change is
(modules, kinds) and how much it matters."""

from __future__ import annotations

import json

from tests.conftest import history_prs

# the PRs of 2026-W13 the tests name
W13_NUMBERS = (7511, 7574, 7506, 7514, 7510, 7551, 7478, 7761, 7557, 7424, 7533, 7398)


def item_json(number: int) -> str:
    """The PR as a line `repodigest classify` reads."""
    row = history_prs()[number]
    return json.dumps(
        {
            "number": number,
            "title": row["title"],
            "body": row["body"] or "",
            "repo": "vllm-project/vllm-ascend",
            "files": [
                {"path": f["path"], "additions": f["additions"], "deletions": f["deletions"]}
                for f in row["files"]
            ],
        }
    )
