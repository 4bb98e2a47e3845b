"""KV key encoding for repository names and HTTP validators (pure parts of the KV adapter)."""

from __future__ import annotations

import re

import pytest

from services.ingest.adapters.kv import Validators, key_token, repo_key, url_key

VALID_KEY = re.compile(r"^[-/_=\.a-zA-Z0-9]+$")  # nats-py's rule for KV keys


@pytest.mark.parametrize("repo", ["vllm-project/vllm", "acme/widgets.io", "a/..x", "o/n_a-m.e"])
def test_repo_keys_are_valid_and_two_tokens(repo):
    key = f"item.{repo_key(repo)}.42"
    assert VALID_KEY.match(key)
    assert len(key.split(".")) == 4  # a dot in a name never adds a token


def test_distinct_names_give_distinct_keys():
    names = ["a/b.c", "a/b_c", "a/b-c", "a/b=2Ec"]
    assert len({repo_key(n) for n in names}) == len(names)


def test_key_token_encodes_non_ascii():
    assert VALID_KEY.match(key_token("dé/lta"))


def test_url_key_and_validators():
    assert VALID_KEY.match(f"http.{url_key('https://api.github.com/repos/a/b/issues?x=1')}")
    v = Validators('W/"abc"', "Tue, 30 May 2023 15:23:13 GMT")
    assert v.headers() == {
        "If-None-Match": 'W/"abc"',
        "If-Modified-Since": "Tue, 30 May 2023 15:23:13 GMT",
    }
    assert not Validators() and Validators().headers() == {}
