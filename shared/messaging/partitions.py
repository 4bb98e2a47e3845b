"""Summarizer partitions: a deterministic share of the repositories for each summarizer replica.

With `REPODIGEST_SUMMARIZER_PARTITIONS=N` (N > 1) JetStream itself deals the repositories out:
RD_ENRICHED and RD_REPORTS carry a subject transform with NATS's `partition` mapping function
over the subject's two repository tokens, which inserts the partition (0..N-1) as a token when a
message is stored:

    rd.enriched.<kind>.<action>.<owner>.<name>   ->  rd.enriched.<p>.<kind>.<action>.<owner>.<name>
    rd.summary.requested.<owner>.<name>          ->  rd.summary.requested.<p>.<owner>.<name>

Both hash the same two tokens, so a repository's facts and its report requests land in the same
partition; replica `p` reads them through its own durables (filter `rd.enriched.<p>.>`,
`rd.summary.requested.<p>.*.*`), in stream order. Publishers are unchanged (they publish the
subjects above; the stream rewrites them), the repository stays the last two tokens
(`repo_from_subject`), and other messages of RD_REPORTS are stored as published. With N = 1
there is no transform and the durables are today's `summarizer-fold` and `summarizer-requests`
over `rd.enriched.>` and `rd.summary.requested.>`.

`partition_of` is the same function in Python (FNV-1a, 32 bits, over the two tokens as the
subject carries them, modulo N: nats-server's `getHashPartition`), for what a replica must do
outside its durables — answer pending requests and re-summarize closed windows of its own
repositories only — and for operators ("which replica folds vllm-project/vllm?"). A test checks
it against the server's own mapping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .subjects import (
    DURABLE_SUMMARIZER,
    DURABLE_SUMMARIZER_REQUESTS,
    STREAM_ENRICHED,
    STREAM_REPORTS,
    repo_tokens,
)

# at most this many partitions: each is a durable pair and a replica; more buys nothing here
MAX_PARTITIONS = 64

ENRICHED_SOURCE = "rd.enriched.*.*.*.*"
REQUESTS_SOURCE = "rd.summary.requested.*.*"

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def partition_of(repo: str, count: int) -> int:
    """The partition (0..count-1) NATS's `{{partition(count, owner, name)}}` gives `repo`."""
    if count < 1:
        raise ValueError(f"a partition count is at least 1, not {count}")
    h = _FNV_OFFSET
    for byte in repo_tokens(repo).replace(".", "", 1).encode():
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return h % count


def transform_destinations(count: int) -> dict[str, tuple[str, str]]:
    """stream -> (source, destination) of its partitioning subject transform (none for 1)."""
    if count <= 1:
        return {}
    return {
        STREAM_ENRICHED: (
            ENRICHED_SOURCE,
            f"rd.enriched.{{{{partition({count},3,4)}}}}.{{{{wildcard(1)}}}}.{{{{wildcard(2)}}}}"
            ".{{wildcard(3)}}.{{wildcard(4)}}",
        ),
        STREAM_REPORTS: (
            REQUESTS_SOURCE,
            f"rd.summary.requested.{{{{partition({count},1,2)}}}}"
            ".{{wildcard(1)}}.{{wildcard(2)}}",
        ),
    }


_COUNT = re.compile(r"\{\{\s*partition\(\s*(\d+)\s*,")


def count_of(transform: object | None) -> int:
    """The partition count a stream's subject transform deals by (1: no transform). Any other
    transform (an operator's own) is reported, not guessed at."""
    if transform is None:
        return 1
    dest = getattr(transform, "dest", None) or ""
    found = _COUNT.search(dest)
    if found is None:
        raise ValueError(f"the stream has a subject transform repodigest did not make: {dest!r}")
    return int(found.group(1))


@dataclass(frozen=True)
class Partition:
    """One summarizer replica's share: partition `index` of `count`."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_PARTITIONS:
            raise ValueError(f"a partition count is 1..{MAX_PARTITIONS}, not {self.count}")
        if not 0 <= self.index < self.count:
            raise ValueError(
                f"partition {self.index} is outside 0..{self.count - 1} (count {self.count})"
            )

    @property
    def partitioned(self) -> bool:
        return self.count > 1

    def owns(self, repo: str) -> bool:
        return not self.partitioned or partition_of(repo, self.count) == self.index

    def durable(self, base: str) -> str:
        """A durable's name for this partition: `base` alone when unpartitioned, else
        `base-<index>-of-<count>` (a new count is new durables: README, changing the count)."""
        return base if not self.partitioned else f"{base}-{self.index}-of-{self.count}"

    @property
    def fold_durable(self) -> str:
        return self.durable(DURABLE_SUMMARIZER)

    @property
    def requests_durable(self) -> str:
        return self.durable(DURABLE_SUMMARIZER_REQUESTS)

    @property
    def fold_filter(self) -> str:
        return "rd.enriched.>" if not self.partitioned else f"rd.enriched.{self.index}.>"

    @property
    def requests_filter(self) -> str:
        return (
            "rd.summary.requested.>"
            if not self.partitioned
            else f"rd.summary.requested.{self.index}.*.*"
        )


# REPODIGEST_SUMMARIZER_PARTITIONS=1: one summarizer folds every repository
UNPARTITIONED = Partition()


def all_partitions(count: int) -> list[Partition]:
    return [Partition(i, count) for i in range(count)]


def is_summarizer_durable(name: str) -> bool:
    """Whether a durable on RD_ENRICHED / RD_REPORTS is a summarizer's, of any partition count."""
    return any(name == base or name.startswith(base + "-") for base in _BASES)


_BASES = (DURABLE_SUMMARIZER, DURABLE_SUMMARIZER_REQUESTS)
