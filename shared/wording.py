"""Rules on a change's words (its title, its description) that more than one service reads — the
classifier's digest, the summarizer's risks, the renderer's attention list: one definition, so
every service reads a change the same way (services import no other service)."""

from __future__ import annotations

import re

# a change that lifts a stopgap: it turns tests back on or takes a skip or workaround out ("[CI]
# Re-enable DeepSeek V4 test" real #14391, whose description says the test had been "temporarily
# skipped"; "Revert temporary skip on …" #5039; "Unskip …", "Remove the skip …", "Restore … test");
# its words of a stopgap tell what it ends, not one it leaves
_LIFTS = re.compile(
    r"(?i)\b(?:re-?enabl\w*|un-?skip\w*|un-?xfail\w*|restor\w*\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:tests?|coverage|cases?)"
    r"|(?:remov\w*|drop\w*|lift\w*|revert\w*|undo\w*)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:skip\w*|xfail\w*|workaround\w*|work-around\w*|hack\w*|disabl\w*))\b"
)
# a stopgap the same title also adds ("Re-enable sleep mode test and skip failure breaking CI")
_ADDS_STOPGAP = re.compile(
    r"(?i)\b(?:skip\w*|disabl\w*|xfail\w*|temporar\w*|workaround\w*|hack\w*)\b"
)


def lifts_stopgap(title: str) -> bool:
    """Whether a change's title says it lifts a stopgap (tests back on, a skip or workaround
    out) and adds none: the summarizer reads no stopgap of its own in its description then."""
    m = _LIFTS.search(title or "")
    if m is None:
        return False
    rest = title[: m.start()] + " " + title[m.end() :]
    return _ADDS_STOPGAP.search(rest) is None


# a leak of memory: "leak" beside a word of memory — memory, OOM, HBM, KV cache blocks, an
# allocation, buffers, tensors, handles, a device context — within three words either side
# ("memory leak", "leaks NPU memory", "leaking an extra NPU context onto device 0" real #12126);
# state or config "leaking into" other code paths (real #10146) or "page size leaked into" (#9763)
# is no memory problem. MEMORY_LEAK_PATTERN is the expression's text, to join into others.
_MEMORY_WORD = (
    r"(?:memory|mem|oom|hbm|vram|dram|kv[ _-]?cache|blocks?|allocat\w*|alloc|buffers?|tensors?"
    r"|handles?|file descriptors?|fds?|workspaces?|caches?|(?:npu|gpu|device|cuda|acl) contexts?)"
)
MEMORY_LEAK_PATTERN = (
    rf"\b{_MEMORY_WORD}\W+(?:[\w-]+\W+){{0,3}}?leak\w*"
    rf"|\bleak(?:s|ed|ing|age)?\W+(?:[\w-]+\W+){{0,3}}?{_MEMORY_WORD}\b"
)
MEMORY_LEAK = re.compile(f"(?i){MEMORY_LEAK_PATTERN}")
