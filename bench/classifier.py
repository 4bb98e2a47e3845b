"""Classifier throughput on one core: items/s through `CompiledRuleSet.classify`.

    .venv/bin/python -m bench.classifier [--profile NAME] [--passes 3] [--source history|demo]
    .venv/bin/python -m bench.classifier --replay [--profile vllm]   # reclassify on nats-server

The profile defaults to the one the source's repository uses: `vllm-ascend` for the real
history, `vllm` for the demo stream.

Items: the real vllm-ascend merged-PR history (../shared/data/vllm-ascend-history) when present,
else the synthetic demo week. "cold" is the first pass on a freshly compiled rule set (every path
is new to the glob cache); "warm" are later passes (paths seen before, as when the same pull
request comes back as opened, labeled, reviewed, merged); "classify_cached" is what the service
calls (tags remembered by what the rules read), one pass on a fresh rule set. Baseline in the same run: decoding the
same items from JSON with pydantic, which every consumed event pays anyway. Exits 0.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from shared.events import Actor, FileChange, ItemSnapshot

HISTORY = Path(__file__).resolve().parents[2] / "shared" / "data" / "vllm-ascend-history" / "merged_prs.jsonl"
_RENAME = re.compile(r"\{([^{}]*) => ([^{}]*)\}")


def _path(p: str) -> str:
    p = _RENAME.sub(lambda m: m.group(2), p)
    return re.sub(r"/{2,}", "/", p.split(" => ")[-1]).strip("/")


def load_items(source: str = "history") -> tuple[str, list[ItemSnapshot]]:
    if source == "history" and HISTORY.exists():
        items = []
        for line in HISTORY.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            email = r["author_email"] or ""
            items.append(ItemSnapshot(
                repo="vllm-project/vllm-ascend", number=r["pr_number"] or 1, kind="pull_request",
                title=r["title"], author=Actor(login=r["author_name"], email_domain=email.rsplit("@", 1)[-1]),
                state="closed", created_at=r["merged_at"], merged_at=r["merged_at"],
                files=tuple(FileChange(path=_path(f["path"]), additions=f["additions"] or 0,
                                       deletions=f["deletions"] or 0) for f in (r["files"] or [])[:300])))
        return f"real vllm-ascend history ({HISTORY})", items
    from services.ingest.domain.synthetic import generate_demo

    demo = generate_demo(week="2026-W24")
    return "synthetic demo week (every fact's item snapshot)", [f.item for f in demo.facts]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default=None, help="default: vllm-ascend (history), vllm (demo)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--source", choices=("history", "demo"), default="history")
    parser.add_argument("--replay", action="store_true",
                        help="also time `reclassify` over the demo stream on an embedded nats-server")
    args = parser.parse_args()
    if args.replay:
        import asyncio

        return asyncio.run(replay(args.profile or "generic"))

    from services.classifier.adapters.profiles import read_profiles
    from services.classifier.domain.rules import compile_profile, resolve_profile

    args.profile = args.profile or ("vllm-ascend" if args.source == "history" else "vllm")
    source, items = load_items(args.source)
    files = sum(len(i.files) for i in items)
    t = time.perf_counter()
    profile, _ = resolve_profile(args.profile, read_profiles())
    ruleset = compile_profile(profile)
    compile_s = time.perf_counter() - t

    t = time.perf_counter()
    for it in items:
        ruleset.classify(it)
    cold = len(items) / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(args.passes):
        for it in items:
            ruleset.classify(it)
    warm = args.passes * len(items) / (time.perf_counter() - t)

    fresh_profile, _ = resolve_profile(args.profile, read_profiles())
    fresh = compile_profile(fresh_profile)
    t = time.perf_counter()
    for it in items:
        fresh.classify_cached(it)
    cached = len(items) / (time.perf_counter() - t)

    payloads = [it.model_dump_json() for it in items]
    t = time.perf_counter()
    for p in payloads:
        ItemSnapshot.model_validate_json(p)
    decode = len(payloads) / (time.perf_counter() - t)

    print(f"items: {len(items)} from {source}, {files / len(items):.1f} files/item")
    print(f"profile {args.profile}: {len(ruleset.modules)} modules, {len(ruleset.risks)} risks, "
          f"{len(ruleset.table)} globs, compiled in {compile_s * 1000:.0f} ms")
    print(f"{'measure':<34}{'items/s':>12}")
    print(f"{'classify, cold (new paths)':<34}{cold:>12,.0f}")
    print(f"{'classify, warm (paths seen)':<34}{warm:>12,.0f}")
    print(f"{'classify_cached, one cold pass':<34}{cached:>12,.0f}")
    print(f"{'baseline: pydantic decode of item':<34}{decode:>12,.0f}")
    return 0


async def replay(profile: str) -> int:
    """Facts of the demo week into RD_GITHUB, then one timed `reclassify` under `profile`."""
    import asyncio
    import tempfile

    import nats

    from services.classifier.adapters.profiles import load_registry
    from services.classifier.reclassify import reclassify
    from services.ingest.domain.synthetic import generate_demo
    from shared.bus import Subjects, ensure_topology
    from shared.events import make_fact
    from shared.natsserver import EmbeddedNats

    demo = generate_demo(week="2026-W24")
    with tempfile.TemporaryDirectory() as tmp:
        server = await EmbeddedNats(store_dir=tmp).start()
        try:
            nc = await nats.connect(server.url)
            js = nc.jetstream()
            await ensure_topology(js)
            facts = [make_fact(f) for f in demo.facts]
            for start in range(0, len(facts), 500):
                await asyncio.gather(*(js.publish(Subjects.fact(f.data.kind, f.data.action, f.data.repo),
                                                  f.to_bytes(), headers={"Nats-Msg-Id": f.id})
                                       for f in facts[start:start + 500]))
            registry = load_registry(pinned=profile)
            t = time.perf_counter()
            result = await reclassify(js, facts[0].data.repo, registry=registry)
            seconds = time.perf_counter() - t
            await nc.close()
        finally:
            await server.stop()
    print(f"reclassify: {result.facts} demo facts under {profile} in {seconds:.2f} s "
          f"= {result.facts / seconds:,.0f} facts/s (read, classify, publish with acks)")
    rs = load_registry(pinned=profile).get(profile)
    t = time.perf_counter()
    for f in facts:
        rs.classify_cached(f.data.item)
    alone = len(facts) / (time.perf_counter() - t)
    print(f"baseline: classification alone (classify_cached, one cold pass): {alone:,.0f} facts/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
