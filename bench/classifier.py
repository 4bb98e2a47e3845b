"""Classifier CPU cost per never-seen item, per profile: µs of CPU through `CompiledRuleSet.classify`.

    .venv/bin/python -m bench.classifier [--profiles generic,vllm,vllm-ascend] [--passes 3]
                                         [--events 10000] [--sources history,pipeline,demo]
    .venv/bin/python -m bench.classifier --replay [--profile vllm]   # reclassify on nats-server

Items: the real vllm-ascend merged-PR history (../shared/data/vllm-ascend-history, skipped when
absent), the synthetic facts `bench.pipeline` publishes (`payloads(--events)`: "[Perf] synthetic
change ...", 3 of 7 paths, one label) and, on request, the synthetic demo week. Every source is
classified under every profile on a freshly compiled rule set: "cold" is the first pass (every
item never seen, every path new to the glob cache); "warm" the best of later passes (paths and
path lists seen before, as when a pull request comes back as opened, labeled, reviewed, merged);
"cached" is `classify_cached`, what the service calls, one pass on a fresh rule set. Times are
process CPU time, so that other work on the machine does not count. Baseline in the same run:
decoding the same items from JSON with pydantic, which every consumed event pays anyway; beside it
the digest of the item's description alone (`digest_of`, best of --passes), a part of every
classify figure (the history carries the real descriptions, capped at 4,000 characters as the
ingest caps them). Exits 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from services.classifier.domain.digest import digest_of
from shared.events import Actor, FileChange, ItemSnapshot

_HISTORY_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "vllm-ascend-history"
# with the descriptions (`body`) when present: the digest of every item reads them
HISTORY = next(
    (
        p
        for p in (_HISTORY_DIR / "merged_prs_with_bodies.jsonl", _HISTORY_DIR / "merged_prs.jsonl")
        if p.exists()
    ),
    _HISTORY_DIR / "merged_prs.jsonl",
)
_RENAME = re.compile(r"\{([^{}]*) => ([^{}]*)\}")
T = TypeVar("T")


def _path(p: str) -> str:
    p = _RENAME.sub(lambda m: m.group(2), p)
    return re.sub(r"/{2,}", "/", p.split(" => ")[-1]).strip("/")


def history_items() -> list[ItemSnapshot]:
    """The real vllm-ascend history, one item per merged pull request ([] when absent)."""
    if not HISTORY.exists():
        return []
    items = []
    for line in HISTORY.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        email = r["author_email"] or ""
        items.append(
            ItemSnapshot(
                repo="vllm-project/vllm-ascend",
                number=r["pr_number"] or 1,
                kind="pull_request",
                title=r["title"],
                author=Actor(login=r["author_name"], email_domain=email.rsplit("@", 1)[-1]),
                state="closed",
                created_at=r["merged_at"],
                merged_at=r["merged_at"],
                body_excerpt=(r.get("body") or "")[:4000],
                files=tuple(
                    FileChange(
                        path=_path(f["path"]),
                        additions=f["additions"] or 0,
                        deletions=f["deletions"] or 0,
                    )
                    for f in (r["files"] or [])[:300]
                ),
            )
        )
    return items


def pipeline_items(n: int) -> list[ItemSnapshot]:
    """The items of the facts `bench.pipeline` publishes."""
    from bench.pipeline import payloads
    from shared.events import GITHUB_EVENT_ADAPTER

    return [GITHUB_EVENT_ADAPTER.validate_json(data).data.item for _, data, _ in payloads(n)]


def demo_items() -> list[ItemSnapshot]:
    from services.ingest.adapters.demo import generate_demo

    return [f.item for f in generate_demo(week="2026-W24").facts]


def cpu_us(each: Callable[[T], object], items: Sequence[T]) -> float:
    """CPU µs per item of `each(item)` over `items` (results dropped, as a consumer does)."""
    t = time.process_time()
    for item in items:
        each(item)
    return (time.process_time() - t) / len(items) * 1e6


def measure(profile: str, items: Sequence[ItemSnapshot], passes: int) -> tuple[float, float, float]:
    """(cold, warm, cached) CPU µs per item under `profile`, each on a fresh rule set."""
    from services.classifier.adapters.profiles import read_profiles
    from services.classifier.domain.rules import compile_profile, resolve_profile

    def fresh():
        return compile_profile(resolve_profile(profile, read_profiles())[0])

    ruleset = fresh()
    cold = cpu_us(ruleset.classify, items)
    warm = min(cpu_us(ruleset.classify, items) for _ in range(max(1, passes)))
    cached = cpu_us(fresh().classify_cached, items)
    return cold, warm, cached


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="generic,vllm,vllm-ascend")
    parser.add_argument("--profile", default=None, help="one profile (default: --profiles)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--events", type=int, default=10_000, help="bench.pipeline items")
    parser.add_argument("--sources", default="history,pipeline", help="history, pipeline, demo")
    parser.add_argument(
        "--replay",
        action="store_true",
        help="also time `reclassify` over the demo stream on an embedded nats-server",
    )
    args = parser.parse_args()
    if args.replay:
        import asyncio

        return asyncio.run(replay(args.profile or "generic"))

    profiles = [args.profile] if args.profile else [p for p in args.profiles.split(",") if p]
    loaders = {
        "history": history_items,
        "pipeline": lambda: pipeline_items(args.events),
        "demo": demo_items,
    }
    sources = {}
    for name in args.sources.split(","):
        items = loaders[name]()
        if items:
            sources[name] = items
        else:
            print(f"{name}: no items ({HISTORY} absent), skipped")

    # the items this bench holds are no garbage of the classifier's: keep them out of GC passes
    gc.collect()
    gc.freeze()
    print(
        f"{'source':<10}{'profile':<13}{'items':>7}{'files/item':>11}"
        f"{'cold µs':>10}{'warm µs':>10}{'cached µs':>11}{'cold items/s':>14}"
    )
    for source, items in sources.items():
        files = sum(len(i.files) for i in items) / len(items)
        for profile in profiles:
            cold, warm, cached = measure(profile, items, args.passes)
            print(
                f"{source:<10}{profile:<13}{len(items):>7}{files:>11.1f}"
                f"{cold:>10.1f}{warm:>10.1f}{cached:>11.1f}{1e6 / cold:>14,.0f}",
                flush=True,
            )
        payloads = [it.model_dump_json() for it in items]
        decode = cpu_us(ItemSnapshot.model_validate_json, payloads)
        print(f"{source:<10}{'baseline: pydantic decode of the item':<51}{decode:>10.1f}")
        # the digest of the description (part of every classify above), alone
        digest = min(
            cpu_us(
                lambda it: digest_of(
                    it.title, it.body_excerpt, it.kind, repo=it.repo, number=it.number
                ),
                items,
            )
            for _ in range(max(1, args.passes))
        )
        bodies = sum(1 for it in items if it.body_excerpt) / len(items)
        print(
            f"{source:<10}{f'digest of the description ({bodies:.0%} with one)':<51}{digest:>10.1f}"
        )
    return 0


async def replay(profile: str) -> int:
    """Facts of the demo week into RD_GITHUB, then one timed `reclassify` under `profile`."""
    import asyncio
    import tempfile

    import nats

    from services.classifier.adapters.profiles import load_registry
    from services.classifier.reclassify import reclassify
    from services.ingest.adapters.demo import generate_demo
    from services.registry import consumers
    from shared.events import make_fact
    from shared.messaging import Subjects, ensure_topology
    from shared.natsserver import EmbeddedNats

    demo = generate_demo(week="2026-W24")
    with tempfile.TemporaryDirectory() as tmp:
        server = await EmbeddedNats(store_dir=tmp).start()
        try:
            nc = await nats.connect(server.url)
            js = nc.jetstream()
            await ensure_topology(js, consumers=consumers())
            facts = [make_fact(f) for f in demo.facts]
            for start in range(0, len(facts), 500):
                await asyncio.gather(
                    *(
                        js.publish(
                            Subjects.fact(f.data.kind, f.data.action, f.data.repo),
                            f.to_bytes(),
                            headers={"Nats-Msg-Id": f.id},
                        )
                        for f in facts[start : start + 500]
                    )
                )
            registry = load_registry(pinned=profile)
            t = time.perf_counter()
            result = await reclassify(js, facts[0].data.repo, registry=registry)
            seconds = time.perf_counter() - t
            await nc.close()
        finally:
            await server.stop()
    print(
        f"reclassify: {result.facts} demo facts under {profile} in {seconds:.2f} s "
        f"= {result.facts / seconds:,.0f} facts/s (read, classify, publish with acks)"
    )
    rs = load_registry(pinned=profile).get(profile)
    t = time.perf_counter()
    for f in facts:
        rs.classify_cached(f.data.item)
    alone = len(facts) / (time.perf_counter() - t)
    print(f"baseline: classification alone (classify_cached, one cold pass): {alone:,.0f} facts/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
