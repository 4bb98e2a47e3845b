"""Rules on a change's title that more than one service reads (the classifier's digest and the
summarizer's risks): one definition, so both read a title the same way."""

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
