"""Whatever GitHub sends, classification returns tags (a crash would dead-letter a good fact)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.events import Actor, FileChange, ItemSnapshot, Tags

from .factory import T0, builtin

# (the event contract refuses NUL and lone surrogates at the edge: the classifier never sees them)
texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=120
)
segments = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1,
    max_size=12,
)
paths = st.lists(segments, min_size=1, max_size=5).map("/".join)
logins = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9-]{0,20}(\[bot\])?", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(
    title=texts,
    body=texts,
    labels=st.lists(texts, max_size=4),
    files=st.lists(paths, max_size=8),
    login=logins,
    kind=st.sampled_from(["pull_request", "issue"]),
    domain=st.one_of(st.none(), st.from_regex(r"[a-z0-9.-]{1,20}", fullmatch=True)),
    adds=st.integers(0, 10**6),
)
def test_any_item_gets_well_formed_tags(title, body, labels, files, login, kind, domain, adds):
    item = ItemSnapshot(
        repo="vllm-project/vllm",
        number=1,
        kind=kind,
        title=title or "x",
        author=Actor(login=login, email_domain=domain),
        labels=tuple(labels),
        state="open",
        created_at=T0,
        body_excerpt=body,
        files=tuple(FileChange(path=p, additions=adds) for p in files),
    )
    for profile in ("default", "llm-serving"):
        trace: dict[str, str] = {}
        tags = builtin(profile).classify(item, trace)
        assert isinstance(tags, Tags) and tags.modules  # always at least one module
        assert Tags.model_validate_json(tags.model_dump_json()) == tags  # survives the wire
        fallback = [t for t in tags.modules if t.fallback]
        assert not fallback or len(tags.modules) == 1
        for t in (*tags.modules, *tags.categories, *tags.ecosystems, *tags.affiliations):
            assert t.rule in trace
