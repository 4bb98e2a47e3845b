"""Names on the bus: streams, buckets, durable consumers, and the subjects events travel on.

Subjects carry the repository as two tokens (`<owner>.<name>`, with `.`, `*`, `>` and white
space percent-encoded) so that consumers can filter and partition by repository.
"""

from __future__ import annotations

import functools
from urllib.parse import unquote

STREAM_GITHUB = "RD_GITHUB"
STREAM_ENRICHED = "RD_ENRICHED"
STREAM_REPORTS = "RD_REPORTS"
STREAM_DEAD = "RD_DEAD"
KV_INGEST_STATE = "RD_INGEST_STATE"
# the notifier's delivery record: one key per route x report revision (sending / sent / dead)
KV_NOTIFIER_STATE = "RD_NOTIFIER"
OBJECT_BUCKET = "RD_ARTIFACTS"

# durable consumer names: each is declared (its `ConsumerSpec`) by the service that owns it; the
# names are here because the CLI and operators' tools (rebuild, lag) refer to them too
DURABLE_CLASSIFIER = "classifier-enrich"
DURABLE_SUMMARIZER = "summarizer-fold"
DURABLE_SUMMARIZER_REQUESTS = "summarizer-requests"
DURABLE_RENDERER = "renderer-render"
DURABLE_NOTIFIER = "notifier-deliver"

_ENCODE = {".": "%2E", "*": "%2A", ">": "%3E", " ": "%20", "%": "%25", "\t": "%09"}


def token(text: str) -> str:
    """One NATS subject token for arbitrary text (a repository owner or name)."""
    return "".join(_ENCODE.get(ch, ch) for ch in text) or "_"


def untoken(text: str) -> str:
    return unquote(text)


@functools.lru_cache(maxsize=4096)
def repo_tokens(repo: str) -> str:
    owner, name = repo.split("/", 1)
    return f"{token(owner)}.{token(name)}"


def repo_from_subject(subject: str) -> str:
    """The repository named by the last two tokens of any repodigest subject."""
    parts = subject.split(".")
    return f"{untoken(parts[-2])}/{untoken(parts[-1])}"


class Subjects:
    @staticmethod
    def fact(kind: str, action: str, repo: str) -> str:
        return f"rd.github.{kind}.{action}.{repo_tokens(repo)}"

    @staticmethod
    def watermark(repo: str) -> str:
        return f"rd.github.sync.watermark.{repo_tokens(repo)}"

    @staticmethod
    def enriched(kind: str, action: str, repo: str) -> str:
        return f"rd.enriched.{kind}.{action}.{repo_tokens(repo)}"

    @staticmethod
    def enriched_watermark(repo: str) -> str:
        return f"rd.enriched.sync.watermark.{repo_tokens(repo)}"

    @staticmethod
    def report_requested(repo: str) -> str:
        return f"rd.summary.requested.{repo_tokens(repo)}"

    @staticmethod
    def summary_ready(repo: str) -> str:
        return f"rd.summary.ready.{repo_tokens(repo)}"

    @staticmethod
    def report_ready(repo: str | None = None) -> str:
        return f"rd.report.ready.{repo_tokens(repo)}" if repo else "rd.report.ready.>"

    @staticmethod
    def report_answer(request_id: str) -> str:
        """Core NATS (no stream keeps it): the existing revision that answers a request for an
        unchanged window, sent to the requester instead of a second report-ready."""
        return f"rd.answer.report.{token(request_id)}"

    @staticmethod
    def dead(service: str) -> str:
        return f"rd.dead.{token(service)}"


def stream_of(subject: str) -> str:
    prefix = subject.split(".", 2)[1]
    return {
        "github": STREAM_GITHUB,
        "enriched": STREAM_ENRICHED,
        "summary": STREAM_REPORTS,
        "report": STREAM_REPORTS,
        "dead": STREAM_DEAD,
    }[prefix]


def subject_template(subject: str) -> str:
    """The subject with its repository tokens as `{owner}.{repo}`: what span names and metric
    labels carry, so that their number does not grow with the repositories followed (the
    subject itself is the span attribute `messaging.destination.name`)."""
    tokens = subject.split(".")
    keep = {"github": 4, "enriched": 4, "summary": 3, "report": 3}.get(
        tokens[1] if len(tokens) > 1 else ""
    )
    if keep is None:
        return subject
    # a summarizer partition's subjects carry the partition (a number) as one more token after
    # the stream's prefix (shared/messaging/partitions.py): kept, there are few of them
    at = {"enriched": 2, "summary": 3}.get(tokens[1])
    if at is not None and len(tokens) == keep + 3 and tokens[at].isdigit():
        keep += 1
    if len(tokens) != keep + 2:
        return subject
    return ".".join(tokens[:keep] + ["{owner}", "{repo}"])


def subject_matches(pattern: str, subject: str) -> bool:
    """Whether `subject` is one of `pattern`'s (NATS wildcards: `*` one token, `>` the rest)."""
    want, have = pattern.split("."), subject.split(".")
    for i, tok in enumerate(want):
        if tok == ">":
            return len(have) > i
        if i >= len(have) or (tok != "*" and tok != have[i]):
            return False
    return len(have) == len(want)
