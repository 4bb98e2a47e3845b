"""Project news: the window's events a reader of a project's report wants first — a release, support
for a dependency's version dropped or added, maintainers or code owners added, a versioning or
deprecation policy changed — found from each change's title, paths and its description's own words
(any repository; a profile may add words through `NewsWords`).

2025-W51 of vllm-ascend: "Add release note for v0.11.0" (#4918), "Drop 0.12.0 support" (#5146,
"We decided to release v0.13.0 soon"), "Nominate new maintainers @zzzzwwjj @realliujiaxu @LCAIZJ"
(#5152) — none of them was in the report's prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import get_args

from shared.events.github import ItemSnapshot
from shared.events.summary import NewsKind, ProjectNews

from .memo import ITEMS

# a version as written: v0.11.0, 0.13.0rc2, 3.10, 0.3.8.post1, 8.3.rc1
VERSION = r"v?\d+(?:\.\d+)+(?:\.?(?:rc|post|dev|a|b)\d*)*(?:\.post\d+)?"
_VERSION = re.compile(rf"(?<![\w.]){VERSION}(?![\w.]*\d)")
_TAGS = re.compile(r"^\s*(?:[\[【][^\]】]*[\]】]\s*)*")
# what edits a document rather than tells news: a typo, a link, a translation, wording
_EDIT = re.compile(
    r"(?i)\b(?:fix\w*|typos?|correct\w*|clarif\w*|links?|url|translat\w*|wording|spell\w*|grammar"
    r"|format\w*|nits?|lint\w*|low-error|po)\b"
)
_RELEASE_DOC = re.compile(
    r"(?i)\brelease[\s_-]?notes?\b|\breleasenotes?\b|\brelease\s+(?:docs?|documentation|info)\b"
    r"|\bnotes?\s+(?:of|for)\s+(?:the\s+)?release\b"
)
_STABLE = re.compile(rf"(?i)\bstable\s+release\b[^.]{{0,60}}?\b(?:to|as|is)\s+({VERSION})")
_BUMP_OWN = re.compile(
    rf"(?i)^(?:bump|update|set|increase)\w*\s+(?:the\s+)?(?:project\s+|package\s+)?version"
    rf"\s+(?:to|=)\s+({VERSION})\s*$|^(?:bump|prepare|cut)\s+(?:for\s+)?({VERSION})\s+release\b"
    rf"|^(?:release|prepare\s+(?:for\s+)?release)\s+({VERSION})\s*$"
)
_BRANCH = re.compile(
    rf"(?i)\b(?:cut|create|branch)\w*\s+(?:the\s+|a\s+)?release\s+branch\b[^.]{{0,40}}?({VERSION})?"
    rf"|\b(?:cut|create)\w*\s+(?:the\s+|a\s+)?(?:branch\s+)?releases?/({VERSION})"
)
# "Drop 0.12.0 support", "Drop vLLM v0.22.1 compatibility from main", "clean 0.15.0 support",
# "vllm drop v0.23.0 and upgrade v0.24.0", "drop support for Python 3.9"
_DROP = re.compile(
    r"(?i)\b(?:drop|remov|clean(?:\s*up)?|deprecat|end)\w*\s+"
    r"(?:(?:the\s+)?(?:support|compat\w*)\s+(?:for|with|of)\s+)?"
    rf"(?:(?P<name>[A-Za-z][\w-]*[A-Za-z])\s+)?(?P<ver>{VERSION})"
    r"(?=\s*(?:$|support|compat\w*|and\b|from\b|,|;|\)))"
)
_DROP_BEFORE = re.compile(
    rf"(?i)\b(?P<name>[A-Za-z][\w-]*)\s+drop\w*\s+(?P<ver>{VERSION})(?=\s*(?:$|support|and\b|,))"
)
# "Support Python 3.12", "add support for CANN 8.5" (a dependency: the change touches build files)
_ADD = re.compile(
    r"(?i)\b(?:add\w*\s+(?:the\s+)?)?support\w*\s+(?:for\s+)?"
    rf"(?P<name>[A-Za-z][\w-]*[A-Za-z])\s+(?P<ver>{VERSION})(?![\w-])"
)
# a title that says support narrows without saying what: a minimum version raised, support dropped
_NARROWS = re.compile(
    r"(?i)\bminimum\b[^.]{0,40}\bversion\b|\b(?:drop|remov|end)\w*\s+(?:[\w-]+\s+)?support\b"
)
_NO_LONGER = re.compile(
    r"(?i)\b(?:no\s+longer|(?:do|does|don't|doesn't|won't|will)\s*(?:not\s+)?)\s*support(?:s|ed)?\s+"
    rf"`?(?P<name>[A-Za-z][\w-]*[A-Za-z])\s+(?P<ver>{VERSION})`?"
)
_BUILD_FILE = re.compile(
    r"(?i)(?:^|/)(?:requirements[^/]*\.txt|pyproject\.toml|setup\.(?:py|cfg)|Dockerfile[^/]*"
    r"|environment[^/]*\.ya?ml|CMakeLists\.txt|package\.json|go\.mod|Cargo\.toml)$"
    r"|^\.github/workflows/"
)
# what the next release is, as a description says it: "release v0.13.0 soon", "upcoming v0.13.0"
_AHEAD = re.compile(
    rf"(?i)\brelease\s+({VERSION})\s+(?:soon|shortly|next)\b|\bupcoming\s+(?:release\s+)?({VERSION})"
    rf"|\b({VERSION})\s+(?:will\s+be|is\s+(?:about\s+to\s+be|going\s+to\s+be))\s+released\b"
)
_ROLE = re.compile(
    r"(?i)\b(maintainers?|committers?|code\s*owners?|reviewers?|tsc\s+members?|steering\s+committee)\b"
)
_ROLE_VERB = re.compile(
    r"(?i)\b(nominat\w*|add\w*|welcom\w*|promot\w*|appoint\w*|invit\w*|elect\w*|join\w*|onboard\w*"
    r"|init\w*|refresh\w*|updat\w*|chang\w*|remov\w*|retir\w*|step\w*\s+down|emeritus)\b"
)
_ADDED_VERB = re.compile(
    r"(?i)^(?:nominat|add|welcom|promot|appoint|invit|elect|join|onboard|init)"
)
_REMOVED_VERB = re.compile(r"(?i)^(?:remov|retir|step|emeritus)")
_GOVERNANCE_PATH = re.compile(
    r"(?i)(?:^|/)(?:CODEOWNERS|MAINTAINERS|OWNERS|COMMITTERS|GOVERNANCE)(?:\.\w+)?$"
    r"|(?:^|/)(?:community|governance)/[^/]*\.(?:md|rst|txt)$|contributors?\.(?:md|rst)$"
)
_MENTION = re.compile(r"(?<![\w/])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\b")
# "Nominate whx-sjtu as maintainer", "Add ShouJian Zheng (@jianzs) as vLLM Ascend maintainer"
_NAMED_AS = re.compile(
    r"(?i)\b(?:nominate|add|welcome|promote|appoint|invite)\s+(?P<who>.+?)\s+as\s+(?:an?\s+|the\s+)?"
    r"(?:[\w-]+\s+){0,3}?(?:maintainer|committer|code\s*owner|reviewer)"
)
# whom a description names: two or more logins after a verb ("retire a, b, c", "nominate @a and @b")
_NAME = re.compile(r"@?[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")
_PEOPLE_SAID = re.compile(
    r"(?i)\b(?P<verb>retir\w*|nominat\w*|welcom\w*|promot\w*|appoint\w*)\s+"
    r"(?P<who>@?[A-Za-z0-9][\w-]*(?:\s*,\s*(?:and\s+)?@?[A-Za-z0-9][\w-]*)+"
    r"|@?[A-Za-z0-9][\w-]*\s+and\s+@?[A-Za-z0-9][\w-]*)"
)
_POLICY = re.compile(
    r"(?i)\b((?:deprecation|versioning|version|support|release|compatibility)[\s_-]policy)\b"
)
_POLICY_VERB = re.compile(r"(?i)\b(?:add|updat|chang|defin|introduc|revis|rewrit)\w*\b")
_SENTENCE = re.compile(r"[^.!?\n]*")


# the order news is told in: the model's own (releases first)
KIND_ORDER: tuple[str, ...] = get_args(NewsKind)


@dataclass(frozen=True)
class NewsWords:
    """Words a profile may add: release-document phrases and role names beyond the general ones."""

    release_docs: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()


def _bare_title(title: str) -> str:
    return _TAGS.sub("", title or "").strip()


def _sentence(text: str, start: int, end: int) -> str:
    head = max(text.rfind(c, 0, start) for c in ".!?\n")
    tail = [i for i in (text.find(c, end) for c in ".!?\n") if i >= 0]
    return " ".join(text[head + 1 : (min(tail) + 1 if tail else len(text))].split())[:240]


_NOT_A_NAME = {
    "version",
    "versions",
    "to",
    "from",
    "for",
    "of",
    "with",
    "and",
    "or",
    "support",
    "supported",
    "release",
    "released",
    "drop",
    "dropped",
    "remove",
    "removed",
    "clean",
    "deprecate",
    "v",
    "need",
    "upgrade",
    "bump",
    "update",
    "than",
    "after",
    "before",
    "since",
    "on",
    "in",
    "the",
    "a",
    "is",
}


def _span_in(text: str, part: str) -> tuple[int, int]:
    """Where `part` (a match in `text` with its white space joined) is in `text`."""
    words = [re.escape(w) for w in part.split()]
    m = re.search(r"\s+".join(words), text)
    return (m.start(), m.end()) if m else (0, 0)


def _dependency(body: str, ver: str) -> str:
    """The name a description gives a version ("- vLLM version: v0.12.0" -> "vLLM"): a
    "<name> version: <ver>" line first, else a word written just before the version."""
    bare = re.escape(ver.lstrip("vV"))
    for pattern in (
        rf"(?i)\b([A-Za-z][\w-]*)\s+version\s*[:=]?\s*v?{bare}(?![\w.]*\d)",
        rf"(?i)\b([A-Za-z][\w-]*[A-Za-z])\s+v?{bare}(?![\w.]*\d)",
    ):
        for m in re.finditer(pattern, body):
            if m.group(1).lower() not in _NOT_A_NAME:
                return m.group(1)
    return ""


def _release(item: ItemSnapshot, title: str, words: NewsWords) -> ProjectNews | None:
    if _EDIT.search(title):
        return None
    extra = [w for w in words.release_docs if w and w.lower() in title.lower()]
    if _RELEASE_DOC.search(title) or extra:
        m = _VERSION.search(title)
        if m:
            return ProjectNews(kind="release", items=(item.number,), what=m.group(0))
        return None
    if m := _STABLE.search(title):
        return ProjectNews(kind="release", items=(item.number,), what=m.group(1))
    if m := _BUMP_OWN.search(title):
        return ProjectNews(
            kind="version", items=(item.number,), what=next(g for g in m.groups() if g)
        )
    if m := _BRANCH.search(title):
        return ProjectNews(
            kind="release_branch", items=(item.number,), what=next((g for g in m.groups() if g), "")
        )
    return None


def _support(item: ItemSnapshot, title: str) -> ProjectNews | None:
    body = item.body_excerpt or ""
    m = _DROP.search(title) or _DROP_BEFORE.search(title)
    if m:
        ver = m.group("ver")
        name = m.group("name") or ""
        if name.lower() in _NOT_A_NAME or name.lower().startswith("compat"):
            name = ""
        said = _dependency(body, ver)
        if not name or (said and said.lower() == name.lower()):
            name = said or name
        ahead = ""
        said_sentence = ""
        if a := _AHEAD.search(body):
            ahead = next(g for g in a.groups() if g)
            said_sentence = _sentence(body, a.start(), a.end())
        return ProjectNews(
            kind="support_dropped",
            items=(item.number,),
            what=f"{name} {ver}".strip(),
            action="removed",
            ahead_of=ahead,
            said=said_sentence,
        )
    if _NARROWS.search(title) and (m := _NO_LONGER.search(" ".join(body.split()))):
        # "Upgrade the minimum version to 3.10": the description says what is dropped ("The
        # newest version of vllm-ascend don't support Python 3.9", real #3926)
        return ProjectNews(
            kind="support_dropped",
            items=(item.number,),
            what=f"{m.group('name')} {m.group('ver')}",
            action="removed",
            said=_sentence(body, *_span_in(body, m.group(0))),
        )
    if (
        (m := _ADD.search(title))
        and not re.search(r"(?i)\bmodels?\b", title)
        and any(_BUILD_FILE.search(f.path) for f in item.files)
    ):
        return ProjectNews(
            kind="support_added",
            items=(item.number,),
            what=f"{m.group('name')} {m.group('ver')}",
            action="added",
        )
    return None


def _role(word: str) -> str:
    w = " ".join(word.lower().split()).replace("codeowner", "code owner")
    return w if w.endswith("s") or w.endswith("committee") else w + "s"


def _governance(item: ItemSnapshot, title: str, words: NewsWords) -> ProjectNews | None:
    role_m = _ROLE.search(title)
    extra = next((w for w in words.roles if w and w.lower() in title.lower()), "")
    if role_m is None and not extra:
        return None
    verb = _ROLE_VERB.search(title)
    if verb is None or not any(_GOVERNANCE_PATH.search(f.path) for f in item.files):
        return None
    people = tuple(dict.fromkeys(_MENTION.findall(title)))
    if not people and (m := _NAMED_AS.search(title)):
        who = m.group("who").strip()
        people = tuple(dict.fromkeys(_MENTION.findall(who))) or (who,)
    action = (
        "added"
        if _ADDED_VERB.match(verb.group(1))
        else "removed"
        if _REMOVED_VERB.match(verb.group(1))
        else "changed"
    )
    body = " ".join((item.body_excerpt or "").split())
    sentence = ""
    if not people and (said := _PEOPLE_SAID.search(body)):
        # the title says the team changed, the description whom ("retire ganyi1996ppo, whx-sjtu,
        # MengqingCao", real #13186)
        people = tuple(dict.fromkeys(p.lstrip("@") for p in _NAME.findall(said.group("who"))))
        if action == "changed":
            action = "removed" if _REMOVED_VERB.match(said.group("verb")) else "added"
        sentence = _sentence(body, said.start(), said.end())
    if action == "removed" and (em := _EMERITUS.search(body)) and not _EMERITUS.search(sentence):
        # the description's words for where they go ("Move … from active Committers to Emeritus
        # Committers"): the renderer says "moved to emeritus", not "removed"
        sentence = _sentence(body, em.start(), em.end())
    return ProjectNews(
        kind="governance",
        items=(item.number,),
        what=_role(role_m.group(1)) if role_m else extra,
        people=people,
        action=action,
        said=sentence,
    )


_EMERITUS = re.compile(r"(?i)\bemerit(?:us|i|a)\b")


def _policy(item: ItemSnapshot, title: str) -> ProjectNews | None:
    m = _POLICY.search(title)
    if m is None or _EDIT.search(title) or not _POLICY_VERB.search(title):
        return None
    return ProjectNews(
        kind="policy", items=(item.number,), what=m.group(1).replace("_", " ").lower()
    )


def news_of(item: ItemSnapshot, words: NewsWords = NewsWords()) -> ProjectNews | None:
    """The project news one merged change is, or None (once per snapshot and words: memo.py)."""
    return ITEMS.get("news", item, None, lambda: _news_of(item, words), keep=(words,))


def _news_of(item: ItemSnapshot, words: NewsWords) -> ProjectNews | None:
    title = _bare_title(item.title)
    if not title or re.match(r"(?i)^revert\b", title):
        return None
    return (
        _release(item, title, words)
        or _governance(item, title, words)
        or _support(item, title)
        or _policy(item, title)
    )


def project_news(
    items: Iterable[ItemSnapshot], words: NewsWords = NewsWords()
) -> tuple[ProjectNews, ...]:
    """The window's project news: releases first, then support dropped or added, governance and
    policy, each kind in merge order (the caller's order); one piece of news per kind and
    `what`, with every change that tells it."""
    out: dict[tuple[str, str, str], ProjectNews] = {}
    for item in items:
        found = news_of(item, words)
        if found is None:
            continue
        # a role's changes of one kind are one piece of news ("code owners added (#14452,
        # #14488)"); a version's release notes and banner too
        key = (found.kind, found.what.lower().lstrip("v"), found.action)
        if key in out:
            old = out[key]
            out[key] = old.model_copy(
                update={
                    "items": old.items + found.items,
                    "people": tuple(dict.fromkeys(old.people + found.people)),
                    "ahead_of": old.ahead_of or found.ahead_of,
                    "said": old.said or found.said,
                }
            )
        else:
            out[key] = found
    return tuple(sorted(out.values(), key=lambda x: KIND_ORDER.index(x.kind)))
