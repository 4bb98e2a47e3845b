"""Identities: which logins, commit names and e-mails are one person, and whom that person worked
for when (the identities file; GrimoireLab SortingHat's unique identities and enrollments, git's
.mailmap aliases). Pure: `IdentityBook.from_data(yaml_data)` and `identify(fact, tags, book)`.

Resolution is part of enrichment: the book's content hash is part of the rule-set version, so a
changed file re-classifies history into new enriched events (`repodigest reclassify`) and the
summarizer's rebuild folds the new people into the reports.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from shared.events import Actor, FactData, PersonLink, Tag, Tags
from shared.events.github import noreply_login

from .profile_errors import ProfileError


class IdentityError(ProfileError):
    """An identities file that cannot be used (the message names the entry and what is wrong)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Enrollment(_Model):
    """An organisation a person worked for, from `from` to `until` (dates, both inclusive; open
    ends when omitted)."""

    org: str = Field(min_length=1)
    since: date | None = Field(None, alias="from")
    until: date | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Enrollment:
        if self.since and self.until and self.since > self.until:
            raise ValueError(
                f"affiliation {self.org!r}: from {self.since} is after until {self.until}"
            )
        return self

    def covers(self, day: date) -> bool:
        return (self.since is None or self.since <= day) and (
            self.until is None or day <= self.until
        )


class Person(_Model):
    """One person: `login` (their GitHub account, the key reports show) or, without one, `name`."""

    login: str | None = None
    name: str | None = None
    logins: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()
    affiliations: tuple[Enrollment, ...] = ()

    @field_validator("login", "name")
    @classmethod
    def _strip(cls, v: str | None) -> str | None:
        return (v or "").strip() or None

    @model_validator(mode="after")
    def _named(self) -> Person:
        if not self.login and not self.name:
            raise ValueError("a person needs `login` (their GitHub account) or `name`")
        return self

    @property
    def key(self) -> str:
        return self.login.lstrip("@") if self.login else str(self.name)


class IdentitiesFile(_Model):
    people: tuple[Person, ...] = ()


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _day(when: datetime | date) -> date:
    if isinstance(when, datetime):
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC).date()
    return when


@dataclass
class IdentityBook:
    """The identities file compiled into lookups (each alias case-insensitive)."""

    people: tuple[Person, ...]
    version: str
    by_login: dict[str, Person] = field(default_factory=dict)
    by_name: dict[str, Person] = field(default_factory=dict)
    by_email: dict[str, Person] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Any, source: str = "identities") -> IdentityBook:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise IdentityError(
                f"{source}: an identities file is a mapping with `people:` (a list)"
            )
        try:
            parsed = IdentitiesFile.model_validate(dict(data))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'file'}: {e['msg']}" for e in exc.errors()
            )
            raise IdentityError(f"{source}: {problems}") from None
        canonical = json.dumps(
            parsed.model_dump(mode="json", by_alias=True),
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        book = cls(parsed.people, hashlib.sha256(canonical.encode("utf-8")).hexdigest())
        for index, person in enumerate(parsed.people):
            where = f"{source}: people[{index}] ({person.key})"
            logins = [person.login, *person.logins] if person.login else list(person.logins)
            for table, values, what in (
                (book.by_login, [x.lstrip("@") for x in logins], "login"),
                (book.by_name, [*person.names, *([person.name] if person.name else [])], "name"),
                (book.by_email, list(person.emails), "e-mail"),
            ):
                for value in values:
                    key = _fold(value)
                    other = table.get(key)
                    if other is not None and other is not person:
                        raise IdentityError(
                            f"{where}: {what} {value!r} is already {other.key}'s; an "
                            f"alias belongs to one person"
                        )
                    table[key] = person
        return book

    def resolve(self, actor: Actor | str) -> Person | None:
        """The person an actor is: by login (a noreply e-mail's too), e-mail, then commit name (a
        fact logged before names were carried has the commit's name as its login)."""
        if isinstance(actor, str):
            actor = Actor(login=actor)
        found = self.by_login.get(_fold(actor.login))
        if found is None and actor.email:
            via = noreply_login(actor.email)
            found = (self.by_login.get(_fold(via)) if via else None) or self.by_email.get(
                _fold(actor.email)
            )
        if found is None and actor.name:
            found = self.by_name.get(_fold(actor.name))
        if found is None:
            found = self.by_name.get(_fold(actor.login))
        return found

    def affiliations(self, person: Person, when: datetime | date) -> list[Enrollment] | None:
        """The organisations `person` worked for on that day; None when the file says nothing of
        that day (the profile's affiliation rules decide then)."""
        day = _day(when)
        covering = [e for e in person.affiliations if e.covers(day)]
        return covering or None


def fact_actors(fact: FactData) -> Iterable[Actor]:
    """Every actor a fact names: the item's author, the comment's or review's author, the merger,
    the event's actor."""
    yield fact.item.author
    if fact.comment is not None:
        yield fact.comment.author
    if fact.review is not None:
        yield fact.review.author
    if fact.item.merged_by:
        yield Actor(login=fact.item.merged_by)
    if fact.actor:
        yield Actor(login=fact.actor)


def identify(fact: FactData, tags: Tags, book: IdentityBook) -> Tags:
    """`tags` with the fact's people (each actor that is another person's alias) and, where the
    file gives the author's organisation for the item's date, those affiliations instead of the
    profile's."""
    links: dict[str, str] = {}
    author_person: Person | None = None
    for index, actor in enumerate(fact_actors(fact)):
        person = book.resolve(actor)
        if index == 0:
            author_person = person
        if person is not None and person.key != actor.login and actor.login not in links:
            links[actor.login] = person.key
    update: dict[str, Any] = {}
    if links:
        update["people"] = tuple(PersonLink(login=k, person=v) for k, v in links.items())
    if author_person is not None:
        enrolled = book.affiliations(author_person, fact.item.created_at)
        if enrolled is not None:
            update["affiliations"] = tuple(
                Tag(name=e.org, rule=f"identities:{e.org}/{author_person.key}") for e in enrolled
            )
    return tags.model_copy(update=update) if update else tags


def combined_version(ruleset_version: str, book: IdentityBook | None) -> str:
    """The rule-set version with the identities file in it (unchanged without one)."""
    if book is None:
        return ruleset_version
    return hashlib.sha256(f"{ruleset_version}+identities:{book.version}".encode()).hexdigest()
