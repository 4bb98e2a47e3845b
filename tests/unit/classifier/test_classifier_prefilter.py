"""The shortcuts of the rule engine decide exactly what the plain evaluation decides: a regex gate
never rules out a text its regex matches, a glob split into brace alternatives matches the paths
the whole glob matches."""

from __future__ import annotations

import random
import re

from services.classifier.domain.globs import GlobTable, compile_glob
from services.classifier.domain.prefilter import RegexGate, literal_gate, required_literals
from services.classifier.domain.said import OPEN_WORK

from .factory import builtin

REGEXES = [
    r"\b(?:chang|switch)\w*\b[^.]{0,50}\bby default\b",
    r"^\s*(?:\[[^\]]*\]\s*)*(?:fix|fixes|hotfix|resolve)\b",
    r"(?:BREAKING[ -]CHANGE)|(?:backwards?[- ]incompatib\w+)",
    r"(?-i:[A-Z]+_VAR)|deprecat",
    r"^\w+(?:\([^)]*\))?!:",
    r"k\w+s|ſtop",
]
PIECES = [
    "by default",
    "BY DEFAULT",
    "Changed",
    "fix",
    "HOTFIX",
    "[Bugfix] ",
    "breaking change",
    "Backwards-Incompatible",
    "FOO_VAR",
    "foo_var",
    "DEPRECATED",
    "feat!: ",
    "K\u212aeys",
    "ſtop",
    "STOP",
    "İ",
    "ß",
    " ",
    ".",
    "x",
    "/",
    "\t",
    "défault",
]


def test_a_regex_gate_never_rules_out_a_match():
    gate = RegexGate()
    compiled = [re.compile(r, re.IGNORECASE) for r in REGEXES]
    for owner, rx in enumerate(compiled):
        gate.add(owner, rx)
    rnd = random.Random(3)
    for _ in range(3000):
        text = "".join(rnd.choice(PIECES) for _ in range(rnd.randrange(8)))
        hits = gate.hits(text)
        for owner, rx in enumerate(compiled):
            if rx.search(text):
                assert owner in hits, (rx.pattern, text)


def test_a_literal_gate_never_rules_out_a_match():
    # the digest's gate before OPEN_WORK (issue #18 item 6), the rule regexes as they are
    # written (case matters) and ignoring case
    regexes = [OPEN_WORK] + [re.compile(r, f) for r in REGEXES for f in (0, re.IGNORECASE)]
    pieces = PIECES + ["there are", " to be ", "Known", "issues", "remain", "left", "OPEN"]
    gates = [literal_gate(rx) for rx in regexes]
    rnd = random.Random(5)
    ruled_out = 0
    for _ in range(3000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randrange(8)))
        for rx, may_match in zip(regexes, gates):
            if rx.search(text):
                assert may_match(text), (rx.pattern, text)
            ruled_out += not may_match(text)
    assert ruled_out  # (the gates do rule texts out)
    assert not literal_gate(OPEN_WORK)("x" * 400)
    assert literal_gate(re.compile(r"^\w+!:"))("x" * 400)  # no literal: every text may match


def test_literals_are_what_every_match_contains():
    assert required_literals(re.compile(r"\bdefault\w*\s+(?:to|from)\b|by default", re.I)) == {
        "default"
    }
    assert required_literals(re.compile(r"^\w+(?:\([^)]*\))?!:")) is None
    assert required_literals(re.compile(r"(?-i:[A-Z]+_VARS)", re.I)) is None


def test_the_gates_rule_out_bench_like_titles_for_every_gated_regex():
    gate = builtin("generic").index.title_gate
    assert len(gate.gated) > len(gate.ungated)
    assert gate.hits("[Perf] synthetic change number 7 to the serving engine") == set(gate.ungated)


def test_brace_alternatives_match_what_the_whole_glob_matches():
    globs = [
        "{docs/**,doc/**,**/*.md,README*}",
        "!{docs,doc,examples}/**",
        "**/*.{py,cu,h}",
        "!csrc/**/*.{cu,cpp}",
        "{vllm,vllm_ascend}/distributed/**",
        "!**/kvpool/**",
        "a/{b,c}/**/d*",
    ]
    paths = [
        "docs/a.md",
        "doc",
        "README.md",
        "readme",
        "x/y/z.md",
        "examples/a.py",
        "csrc/k.cu",
        "csrc/a/b.cpp",
        "csrc/a.h",
        "vllm/distributed/x.py",
        "vllm_ascend/distributed/kvpool/y.py",
        "a/b/q/dz",
        "a/c/d",
        "a/e/d",
        ".github/x.md",
        "x/.hidden/y.py",
        "kvpool",
    ]
    table = GlobTable()
    for glob in globs:
        table.bit(glob)
    for path in paths:
        mask = table.mask(path)
        for glob in globs:
            negate = glob.startswith("!")
            whole = compile_glob(glob.removeprefix("!")).fullmatch(path) is not None
            assert bool(mask >> table.bit(glob) & 1) == (whole != negate), (glob, path)


def test_trusted_construction_is_model_construct():
    from services.classifier.domain.rules import trusted
    from shared.events import RiskTag, Tag, Tags

    tag = Tag.model_construct(name="rocm", rule="module:rocm/files", fallback=False)
    risk = RiskTag.model_construct(
        name="revert", severity="medium", reason="r", rule="risk:revert/x"
    )
    cases = [
        (Tag, dict(name="rocm", rule="module:rocm/files", fallback=False)),
        (RiskTag, dict(name="revert", severity="medium", reason="r", rule="risk:revert/x")),
        (
            Tags,
            dict(
                modules=(tag,),
                risks=(risk,),
                affiliations=(),
                ecosystems=(tag,),
                categories=(),
                topics=(),
                bot=True,
                bot_rule="bot:known-login",
                digest=None,
                people=(),
            ),
        ),
    ]
    for cls, values in cases:
        fast, slow = trusted(cls)(**values), cls.model_construct(**values)
        assert fast == slow and repr(fast) == repr(slow)
        assert fast.model_dump_json() == slow.model_dump_json()
        assert fast.model_fields_set == slow.model_fields_set


def test_the_caches_stay_bounded():
    from services.classifier.domain.rules import compile_profile

    from .factory import item

    rs = compile_profile(builtin("generic").profile)
    rs.memo_size = 50
    for n in range(400):
        rs.classify(
            item(f"[Perf] change {n}", [f"pkg{n}/mod.py", f"tests/test_{n}.py"], login=f"dev{n}")
        )
    assert 0 < len(rs._file_facts) <= 50
    assert 0 < len(rs._top_dirs) <= 50
    assert 0 < len(rs._people) <= 50
