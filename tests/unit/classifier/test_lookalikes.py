"""What the facts link and what only looks alike (services/classifier/domain/lookalikes.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import yaml

from services.classifier.domain.identities import IdentityBook
from services.classifier.domain.lookalikes import normal, starter_file, survey
from services.ingest.domain.sources import login_from_commit_author
from shared.events import Actor, FactData, ItemSnapshot

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def commit(number: int, name: str, email: str, body: str = "") -> FactData:
    author = login_from_commit_author(name, email)
    item = ItemSnapshot(
        repo="o/r",
        number=number,
        kind="pull_request",
        title="t",
        author=author,
        state="closed",
        created_at=T0,
        merged_at=T0,
        body_excerpt=body,
    )
    return FactData(
        repo="o/r",
        kind="pull_request",
        action="merged",
        item=item,
        actor=author.login,
        origin="git",
    )


def github(number: int, login: str) -> FactData:
    item = ItemSnapshot(
        repo="o/r",
        number=number,
        kind="issue",
        title="t",
        author=Actor(login=login),
        state="open",
        created_at=T0,
    )
    return FactData(
        repo="o/r", kind="issue", action="opened", item=item, actor=login, origin="poll"
    )


def test_normal_compares_names_without_case_spaces_or_punctuation():
    assert normal("Frank Chen") == normal("frankchen") == normal("Frank_chen") == "frankchen"
    assert normal("赵可瑞") == "赵可瑞"  # names in any script


def test_a_sign_off_with_the_authors_own_address_names_a_look_alike():
    facts = [
        commit(
            1,
            "SILONG ZENG",
            "26@qq.com",
            "x\n\nSigned-off-by: MrZ20 <26@qq.com>\nSigned-off-by: other <other@qq.com>",
        ),
        github(2, "MrZ20"),
        github(3, "other"),
    ]
    result = survey(facts)
    assert [g.keys for g in result.lookalikes] == [("MrZ20", "SILONG ZENG")]
    assert result.links == []  # a sign-off is a look-alike to confirm, not a link
    assert result.seen["SILONG ZENG"].signoffs == {"MrZ20": 1}


def test_short_names_say_too_little_and_what_the_file_merges_is_not_listed():
    facts = [
        commit(1, "chen", "a@x.org"),
        github(2, "Chen"),  # "chen": four letters, listed
        commit(3, "li", "li@x.org"),
        github(4, "LI"),
    ]  # "li": too short to list
    result = survey(facts)
    assert [g.keys for g in result.lookalikes] == [("chen", "Chen")]
    book = IdentityBook.from_data({"people": [{"login": "Chen", "names": ["chen"]}]})
    assert survey(facts, book).lookalikes == []


def test_the_starter_file_keeps_the_files_people_and_adds_the_links():
    facts = [
        commit(1, "XuChi", "1+xuchi-0808@users.noreply.github.com"),
        commit(2, "XuChi", "x@163.com"),
    ]
    book = IdentityBook.from_data(
        {
            "people": [
                {
                    "login": "frankchen",
                    "names": ["Frank Chen"],
                    "affiliations": [{"org": "huawei", "from": "2025-01-01"}],
                }
            ]
        }
    )
    text = starter_file(survey(facts, book), book)
    assert yaml.safe_load(text)["people"] == [
        {
            "login": "frankchen",
            "names": ["Frank Chen"],
            "affiliations": [{"org": "huawei", "from": "2025-01-01"}],
        },
        {"login": "xuchi-0808", "names": ["XuChi"], "emails": ["x@163.com"]},
    ]
    assert IdentityBook.from_data(yaml.safe_load(text)).resolve("XuChi").key == "xuchi-0808"
