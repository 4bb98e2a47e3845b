"""Who might be one person: the aliases the facts link (a commit name used with a GitHub noreply
address, which carries the login) and the look-alikes a person should confirm (the same name or
e-mail local part under different logins or commit names). Pure: `survey(facts, book)`.

What the data links is proposed as a merge; what only looks alike is listed, never merged:
"jiangpeng" committed with two noreply logins, and two people may share a name.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import yaml

from shared.events import Actor, FactData
from shared.events.github import noreply_login

from .identities import IdentityBook, Person, fact_actors

COMMIT_ORIGINS = ("replay", "git")
# "Signed-off-by: Name <e-mail>" (the DCO trailer GitHub keeps in a squash commit's message)
_SIGNOFF = re.compile(r"^\s*Signed-off-by:\s*(?P<name>[^<\n]+?)\s*<(?P<email>[^>\s]+)>\s*$", re.M)
_NOT_WORD = re.compile(r"[\W_]+")
MIN_SIGNAL = 4  # shorter names ("chen", "li") say too little to be listed


def normal(text: str) -> str:
    """A name as look-alikes compare it: case, spaces and punctuation aside ("Frank Chen" is
    "frankchen", like the login)."""
    return _NOT_WORD.sub("", text.casefold())


@dataclass
class Seen:
    """One key as the facts carry it (a GitHub login, or a commit's author name standing in)."""

    key: str
    login: bool = False  # a GitHub login (GitHub's facts, a noreply address), not a commit name
    facts: int = 0
    names: Counter[str] = field(default_factory=Counter)  # commit names seen with it
    emails: Counter[str] = field(default_factory=Counter)  # commit e-mails (noreply aside)
    signoffs: Counter[str] = field(default_factory=Counter)  # sign-off names with its own e-mail

    @property
    def kind(self) -> str:
        return "login" if self.login else "commit name"


@dataclass(frozen=True)
class Link:
    """`alias` (a commit name without a login) is `login`, as the data says (`why`)."""

    alias: str
    login: str
    why: str


@dataclass(frozen=True)
class LookAlike:
    """Keys that look like one person, with what they share."""

    keys: tuple[str, ...]
    signals: tuple[str, ...]


@dataclass
class Survey:
    seen: dict[str, Seen]
    links: list[Link]
    lookalikes: list[LookAlike]


def _is_login(fact: FactData, actor: Actor, author: bool) -> bool:
    if not author or fact.origin not in COMMIT_ORIGINS:
        return True
    return noreply_login(actor.email) is not None


def collect(facts: Iterable[FactData]) -> dict[str, Seen]:
    seen: dict[str, Seen] = {}
    for fact in facts:
        keys: set[str] = set()
        for index, actor in enumerate(fact_actors(fact)):
            author = index == 0
            if actor.login in keys:
                continue
            keys.add(actor.login)
            s = seen.get(actor.login)
            if s is None:
                s = seen[actor.login] = Seen(actor.login)
            s.facts += 1
            s.login = s.login or _is_login(fact, actor, author)
            if not author:
                continue
            if actor.name:
                s.names[actor.name] += 1
            if actor.email and noreply_login(actor.email) is None:
                s.emails[actor.email.lower()] += 1
                for m in _SIGNOFF.finditer(fact.item.body_excerpt):
                    name = m["name"].strip()
                    if m["email"].lower() == actor.email.lower() and name != actor.login:
                        s.signoffs[name] += 1
    return seen


def _links(seen: dict[str, Seen], book: IdentityBook | None) -> list[Link]:
    """Commit names (and then their e-mails) used with exactly one noreply login."""
    logins_of_name: dict[str, set[str]] = defaultdict(set)
    for s in seen.values():
        if s.login:
            for name in s.names:
                logins_of_name[" ".join(name.split()).casefold()].add(s.key)
    links: dict[str, Link] = {}
    email_login: dict[str, tuple[str, str]] = {}
    for s in sorted(seen.values(), key=lambda s: s.key):
        if s.login or (book is not None and book.resolve(_actor(s)) is not None):
            continue
        logins = logins_of_name.get(" ".join(s.key.split()).casefold(), set()) - {s.key}
        if len(logins) == 1:
            login = next(iter(logins))
            links[s.key] = Link(
                s.key, login, f"commit name {s.key!r} also committed with {login}'s noreply address"
            )
            for email in s.emails:
                email_login.setdefault(email, (login, s.key))
    for s in sorted(seen.values(), key=lambda s: s.key):
        if s.login or s.key in links or (book is not None and book.resolve(_actor(s)) is not None):
            continue
        for email in sorted(s.emails):
            if email in email_login:
                login, via = email_login[email]
                links[s.key] = Link(s.key, login, f"e-mail {email} of {via!r}, who is {login}")
                break
    return sorted(links.values(), key=lambda link: (link.login.casefold(), link.alias))


def _actor(s: Seen) -> Actor:
    name = s.names.most_common(1)[0][0] if s.names else None
    email = s.emails.most_common(1)[0][0] if s.emails else None
    return Actor(login=s.key, name=name, email=email)


def _signals(s: Seen) -> set[str]:
    out = {f"name {normal(x)}" for x in (s.key, *s.names, *s.signoffs)}
    out |= {f"name {normal(e.rpartition('@')[0])}" for e in s.emails}  # a local part is a name too
    return {x for x in out if len(x) - len("name ") >= MIN_SIGNAL}


def survey(facts: Iterable[FactData], book: IdentityBook | None = None) -> Survey:
    """What the facts show of people: links to merge and look-alikes to confirm, leaving out what
    `book` (the identities file in use) already merges."""
    seen = collect(facts)
    links = _links(seen, book)
    linked = {link.alias: link.login for link in links}

    def person(key: str) -> str:
        found = book.resolve(_actor(seen[key])) if book is not None else None
        return found.key if found is not None else linked.get(key, key)

    by_signal: dict[str, set[str]] = defaultdict(set)
    for s in seen.values():
        for signal in _signals(s):
            by_signal[signal].add(s.key)
    # people connected by a shared signal, one group per connected set
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for keys in by_signal.values():
        people = sorted({person(k) for k in keys})
        for other in people[1:]:
            parent[find(other)] = find(people[0])
    groups: dict[str, set[str]] = defaultdict(set)
    signals: dict[str, set[str]] = defaultdict(set)
    for signal, keys in by_signal.items():
        people = {person(k) for k in keys}
        if len(people) < 2:
            continue
        root = find(next(iter(people)))
        groups[root] |= keys
        signals[root].add(signal.removeprefix("name "))
    # (a name before its capitalised twin, then as written: the order never rests on a set's)
    lookalikes = [
        LookAlike(
            tuple(sorted(keys, key=lambda k: (k.casefold(), k != k.lower(), k))),
            tuple(sorted(signals[root])),
        )
        for root, keys in groups.items()
    ]
    lookalikes.sort(key=lambda g: (-sum(seen[k].facts for k in g.keys), g.keys))
    return Survey(seen, links, lookalikes)


def starter_file(result: Survey, book: IdentityBook | None = None) -> str:
    """An identities file: the people of `book`, the data's links as people, and each look-alike
    group as a commented entry for a person to confirm."""
    people: dict[str, dict] = {}
    for p in book.people if book is not None else ():
        people[p.key.casefold()] = _entry(p)
    for link in result.links:
        entry = people.setdefault(link.login.casefold(), {"login": link.login})
        s = result.seen[link.alias]
        _add(entry, "names", link.alias)
        for email in sorted(s.emails):
            _add(entry, "emails", email)
    head = (
        "# repodigest identities: one entry per person (README, Identities). Aliases are\n"
        "# case-insensitive; GitHub noreply addresses map to their login without an entry.\n"
        "# affiliations: [{org: NAME, from: YYYY-MM-DD, until: YYYY-MM-DD}] (either end open)\n"
    )
    body = yaml.safe_dump(
        {"people": list(people.values())},
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=None,
        width=100,
    )
    if not result.lookalikes:
        return head + body
    lines = [
        "",
        "# Look-alikes: the same name or e-mail local part under different keys. Confirm",
        "# (uncomment under the right person) or leave them apart.",
    ]
    for group in result.lookalikes:
        lines.append(f"#  - {_describe(group, result)}")
    return head + body + "\n".join(lines) + "\n"


def _describe(group: LookAlike, result: Survey) -> str:
    keys = ", ".join(
        f"{k!r} ({result.seen[k].kind}, {result.seen[k].facts} facts)" for k in group.keys
    )
    return f"{keys}: shared {', '.join(group.signals)}"


def _entry(p: Person) -> dict:
    return p.model_dump(mode="json", by_alias=True, exclude_defaults=True)


def _add(entry: dict, key: str, value: str) -> None:
    values = entry.setdefault(key, [])
    if (
        value.casefold() not in {v.casefold() for v in values}
        and value.casefold() != str(entry.get("login", "")).casefold()
    ):
        values.append(value)


def describe(result: Survey) -> list[str]:
    """The survey as lines for a terminal."""
    out = [f"{len(result.seen)} people keys (logins and commit names) in the facts"]
    out.append(f"linked by the data ({len(result.links)}): merged by a starter file (--starter)")
    out += [f"  {link.alias} -> {link.login}: {link.why}" for link in result.links]
    out.append(f"look-alikes to confirm ({len(result.lookalikes)}):")
    out += [f"  {_describe(g, result)}" for g in result.lookalikes]
    return out
