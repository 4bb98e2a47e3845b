"""The identities file: aliases (logins, commit names, e-mails, noreply addresses) resolve to one
person, affiliations by date override the profile's for that person and period, and the file is
part of the rule-set version (a changed file re-classifies)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import yaml

from services.classifier.adapters.profiles import read_identities
from services.classifier.domain.identities import IdentityBook, IdentityError, identify
from services.classifier.domain.rules import build_registry
from services.classifier.handlers import classify_fact
from shared.events import (
    Actor,
    CommentInfo,
    FactData,
    ItemSnapshot,
    ReviewInfo,
    Tags,
    make_fact,
)

FILE = """
people:
  - login: xuchi-0808
    name: Xu Chi
    names: [XuChi]
    emails: [xuchicolson@163.com]
    affiliations:
      - {org: huawei, until: 2025-06-30}
      - {org: amd, from: 2025-07-01}
  - login: frankchen
    logins: [chenchuw886]
    names: [Frank Chen]
  - name: Lone Committer
    emails: [lone@example.org]
"""


def book(text: str = FILE) -> IdentityBook:
    return IdentityBook.from_data(yaml.safe_load(text), "identities.yaml")


@pytest.mark.parametrize(
    "actor, person",
    [
        (Actor(login="xuchi-0808"), "xuchi-0808"),
        (Actor(login="XUCHI-0808"), "xuchi-0808"),  # logins are case-insensitive on GitHub
        (Actor(login="XuChi", name="XuChi", email="other@163.com"), "xuchi-0808"),  # commit name
        (Actor(login="Xu C", name="Xu C", email="XuChiColson@163.com"), "xuchi-0808"),  # e-mail
        (Actor(login="someone", email="1+xuchi-0808@users.noreply.github.com"), "xuchi-0808"),
        (Actor(login="XuChi"), "xuchi-0808"),  # a fact logged before names travelled: name as login
        (Actor(login="chenchuw886"), "frankchen"),  # a second GitHub account
        (Actor(login="Frank  Chen", name="Frank  Chen"), "frankchen"),  # spacing is not identity
        (Actor(login="Lone Committer", email="lone@example.org"), "Lone Committer"),
        (Actor(login="stranger"), None),
        (Actor(login="frank", name="frank", email="frank@x.org"), None),
    ],
)
def test_an_alias_resolves_to_its_person(actor, person):
    found = book().resolve(actor)
    assert (found.key if found else None) == person


@pytest.mark.parametrize(
    "day, orgs",
    [
        (date(2025, 6, 30), ["huawei"]),  # until is inclusive
        (date(2025, 7, 1), ["amd"]),  # from is inclusive
        (date(2024, 1, 1), ["huawei"]),  # open start
        (date(2027, 1, 1), ["amd"]),  # open end
    ],
)
def test_affiliations_follow_the_date(day, orgs):
    b = book()
    got = b.affiliations(b.resolve("xuchi-0808"), day)
    assert [e.org for e in got] == orgs


def test_a_person_without_affiliations_leaves_them_to_the_profile():
    b = book()
    assert b.affiliations(b.resolve("frankchen"), date(2026, 1, 1)) is None


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "people:\n  - {login: a, names: [X]}\n  - {login: b, names: [x]}",
            "name 'x' is already a's",
        ),
        ("people:\n  - {login: a}\n  - {login: b, logins: ['@A']}", "login 'A' is already a's"),
        ("people:\n  - {names: [X]}", "needs `login`"),
        (
            "people:\n  - {login: a, affiliations: [{org: o, from: 2025-02-01, until: 2025-01-01}]}",
            "is after until",
        ),
        ("people:\n  - {login: a, alias: b}", "people.0.alias"),
        ("- a\n- b", "a mapping with `people:`"),
    ],
)
def test_a_bad_file_says_what_is_wrong(text, message):
    with pytest.raises(IdentityError) as err:
        book(text)
    assert message in str(err.value) and "identities.yaml" in str(err.value)


def test_reading_a_file_names_the_file_and_line(tmp_path):
    path = tmp_path / "ids.yaml"
    path.write_text("people:\n  - login: [unclosed\n", encoding="utf-8")
    with pytest.raises(IdentityError, match=r"ids.yaml \(line \d+, column \d+\): invalid YAML"):
        read_identities(path)
    with pytest.raises(IdentityError, match="cannot read the identities file"):
        read_identities(tmp_path / "absent.yaml")


def _fact(
    author: Actor,
    created: datetime,
    *,
    kind: str = "pull_request",
    action: str = "merged",
    comment_by: str | None = None,
    review_by: str | None = None,
    merged_by: str | None = None,
):
    item = ItemSnapshot(
        repo="o/r",
        number=7,
        kind="pull_request",
        title="t",
        author=author,
        state="closed",
        created_at=created,
        merged_at=created,
        merged_by=merged_by,
    )
    return FactData(
        repo="o/r",
        kind=kind,
        action=action,
        item=item,
        actor=author.login,
        comment=CommentInfo(id=1, author=Actor(login=comment_by), created_at=created)
        if comment_by
        else None,
        review=ReviewInfo(
            id=2, author=Actor(login=review_by), state="approved", submitted_at=created
        )
        if review_by
        else None,
    )


def test_identify_links_every_actor_of_the_fact_and_dates_the_affiliation():
    b = book()
    before = _fact(
        Actor(login="XuChi", name="XuChi", email="xuchicolson@163.com"),
        datetime(2025, 6, 30, 23, 0, tzinfo=UTC),
        merged_by="chenchuw886",
    )
    tags = identify(before, Tags(), b)
    assert {(p.login, p.person) for p in tags.people} == {
        ("XuChi", "xuchi-0808"),
        ("chenchuw886", "frankchen"),
    }
    assert tags.person("XuChi") == "xuchi-0808" and tags.person("nobody") == "nobody"
    assert [(t.name, t.rule) for t in tags.affiliations] == [
        ("huawei", "identities:huawei/xuchi-0808")
    ]
    after = _fact(
        Actor(login="xuchi-0808"),
        datetime(2025, 7, 1, 0, 30, tzinfo=UTC),
        kind="comment",
        action="created",
        comment_by="Frank Chen",
    )
    tags = identify(after, Tags(), b)
    # the author is the person's own login: no link; the commenter's commit name links
    assert [(p.login, p.person) for p in tags.people] == [("Frank Chen", "frankchen")]
    assert [t.name for t in tags.affiliations] == ["amd"]


PROFILE = {
    "profile": "generic",
    "affiliations": [{"name": "huawei", "email_domains": ["huawei.com"]}],
}


def _registry(identities: IdentityBook | None):
    return build_registry({"generic": ("generic.yaml", PROFILE)}, identities=identities)


def test_the_profile_decides_outside_the_file_and_the_file_changes_the_version():
    author = Actor(login="frank", name="frank", email="frank@huawei.com", email_domain="huawei.com")
    fact = make_fact(_fact(author, datetime(2026, 1, 1, tzinfo=UTC)))
    plain = classify_fact(fact, _registry(None))
    assert [t.rule for t in plain.data.tags.affiliations] == ["affiliation:huawei/email-domain"]
    assert plain.data.tags.people == ()
    with_file = classify_fact(fact, _registry(book()))
    # not in the file: the profile's rule still fires; the version says which file was used
    assert with_file.data.tags.affiliations == plain.data.tags.affiliations
    assert with_file.data.ruleset.version != plain.data.ruleset.version
    assert with_file.id != plain.id  # a re-classification is a new enriched event
    changed = book(FILE + "  - {login: frank, affiliations: [{org: amd}]}\n")
    again = classify_fact(fact, _registry(changed))
    assert [t.name for t in again.data.tags.affiliations] == ["amd"]
    assert again.data.ruleset.version not in (
        with_file.data.ruleset.version,
        plain.data.ruleset.version,
    )
    assert classify_fact(fact, _registry(book())).data.ruleset == with_file.data.ruleset


async def test_a_reload_reads_the_file_again_and_keeps_the_rules_when_it_is_broken(
    tmp_path, monkeypatch
):
    import functools

    from services.classifier.adapters.profiles import load_registry
    from services.classifier.config import ClassifierSettings
    from services.classifier.handlers import reload_rules

    path = tmp_path / "identities.yaml"
    path.write_text(FILE, encoding="utf-8")
    monkeypatch.setenv("REPODIGEST_IDENTITIES", str(path))
    settings = ClassifierSettings()
    assert settings.identities == path
    # what the service's loader is (app.build_service)
    loader = functools.partial(
        load_registry,
        settings.profiles_dir,
        settings.codeowners_files(),
        settings.profile_overrides,
        identities=settings.identities,
    )
    first = loader()
    assert first.identities.resolve("XuChi").key == "xuchi-0808"
    path.write_text(FILE.replace("names: [XuChi]", "names: [XuChi, Chi Xu]"), encoding="utf-8")
    second, reply = await reload_rules(loader, first)
    assert reply.ok and set(reply.changed) == set(first.versions())  # every rule set re-versioned
    assert second.identities.resolve("Chi Xu").key == "xuchi-0808"
    path.write_text("people:\n  - {names: [nobody]}\n", encoding="utf-8")
    kept, reply = await reload_rules(loader, second)
    assert (
        kept is second
        and not reply.ok
        and str(path) in reply.error
        and "needs `login`" in reply.error
    )
