"""A line of work that is a profile's topic carries the topic's names in the report's other
languages, as the classifier's topic tags give them (issue #15 item 6: a Chinese report wrote
"「310P (Atlas 300I inference cards)」", the profile's English words quoted as if a title); a line
the data names carries none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.summarizer.domain.report import build_summary
from services.summarizer.domain.storylines import term_counts_of, topic_term
from shared.windows import week_window

from .summarizer_builders import ItemSpec, Scenario, window_input

WEEK = week_window(2026, 22, "Asia/Shanghai")
NOW = datetime(2026, 6, 5, tzinfo=UTC)
A5 = "Ascend 950 (A5)"
A5_ZH = "昇腾 950（A5）"
# real titles of vllm-project/vllm-ascend, 2026-W22 and W23: one chip generation, two spellings
CHIP = [
    "[Feature] GDN and conv1d operators adapted for A5",
    "[Feature] Add A5 MLA C8 feature",
    "[BugFix] Fix A5 custom opapi symbol shadowing",
    "[Misc][Docker] Add Ascend A5 Dockerfiles",
    "[Ascend950] [Feature] Enable MXFP4 flatquant and support for row parallelism",
    "[Ascend950][Feature]Support MXFP8 FlashcommV3 on 950",
]
# a line the data names: three changes of a rare model name
DSV4 = [
    "[Feature] Support DeepSeekV4 sparse attention",
    "[BugFix] Fix DeepSeekV4 weight loading",
    "[Perf] Speed up DeepSeekV4 decode",
]
FILLER = [f"[Misc] tidy module {word}" for word in ("alpha", "beta", "gamma", "delta", "omega")]


def at(n: int) -> datetime:
    return WEEK.start + timedelta(days=n % 6, hours=3 + n % 5)


def summarize(topic) -> object:
    items = [
        ItemSpec(
            n,
            "pull_request",
            opened=at(n) - timedelta(hours=5),
            merged=at(n),
            title=title,
            files=(f"src/part{n}.py",),
            topics=(topic,),
        )
        for n, title in enumerate(CHIP, start=1)
    ] + [
        ItemSpec(
            n,
            "pull_request",
            opened=at(n) - timedelta(hours=5),
            merged=at(n),
            title=title,
            files=(f"src/other{n}.py",),
        )
        for n, title in enumerate(DSV4 + FILLER, start=20)
    ]
    history = CHIP + DSV4 + FILLER + [f"[Misc] unrelated change {n}" for n in range(200)]
    counts = term_counts_of(history, [(A5,)] * len(CHIP))
    inp = window_input(
        Scenario(items=items).events(), WEEK, term_counts=counts, history_items=len(history)
    )
    return build_summary(inp, now=NOW)


def test_a_topics_line_carries_the_names_its_tags_give():
    s = summarize((A5, {"zh-CN": A5_ZH}))
    by_key = {st.key: st for st in s.storylines}
    line = by_key[topic_term(A5)]
    assert line.name == A5  # the summary's name stays the profile's `name`
    assert line.names == {"zh-CN": A5_ZH}
    assert {i.number for i in line.items} == set(range(1, len(CHIP) + 1))
    # a line the data names carries no names of the profile
    others = [st for st in s.storylines if st.key != topic_term(A5)]
    assert others and all(st.names == {} for st in others)
    # and the JSON the renderer reads keeps them
    assert '"names":{"zh-CN":"昇腾 950（A5）"}' in s.model_dump_json()


def test_a_topic_without_names_gives_its_line_none():
    s = summarize(A5)
    line = next(st for st in s.storylines if st.key == topic_term(A5))
    assert line.name == A5 and line.names == {}
