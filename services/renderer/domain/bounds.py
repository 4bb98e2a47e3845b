"""What a document takes from the data, bounded: item URLs only on the repository's own forge,
titles, names and logins cut with an ellipsis, any other text capped.

The summary's strings come from whoever wrote the events, GH Archive or replay file: the view is
built from `bounded(summary, repo_url)`, so that no template can emit a `javascript:` link and any
input lays out in bounded time. The JSON artifact keeps the summary as it is (it links nothing).
"""

from __future__ import annotations

import functools
import re
import typing

from pydantic import BaseModel

from .links import forge_url
from .text import TITLE_MAX, bounded_title, cut_words

M = typing.TypeVar("M", bound=BaseModel)

# a path below the repository's URL with nothing to decode or normalise (no ".", "%", "@", ...)
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9/_~-]*(?:#[A-Za-z0-9_-]*)?")
# free text beyond this is cut too (a body excerpt is at most 4,000 characters by contract)
TEXT_MAX = 4000
# single strings shown whole (titles, names, logins, reasons) and the items of string tuples
# (labels, participants, terms)
_SHORT_FIELDS = frozenset(
    {
        "title",
        "name",
        "subject",
        "author",
        "login",
        "key",
        "storyline",
        "module",
        "risk",
        "category",
        "affiliation",
        "ecosystem",
    }
)


def bounded(model: M, repo_url: str) -> M:
    """`model` (a SummaryData) with every URL checked against `repo_url` (not linked: "") and
    every string bounded; the same object when nothing needed it."""
    return typing.cast(M, _walk(model, repo_url))  # _walk rebuilds a model as its own class


def _holds_text(annotation) -> bool:
    """Whether a field of this type can hold a string or a model (a Literal's values are ours)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return False
    if origin is not None:
        return any(_holds_text(a) for a in typing.get_args(annotation))
    if annotation is str or annotation is typing.Any:
        return True
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


@functools.cache
def _text_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a model class worth walking (not its numbers, flags and times)."""
    return tuple(name for name, field in cls.model_fields.items() if _holds_text(field.annotation))


@functools.cache
def _plan(cls: type[BaseModel]) -> tuple[tuple[str, int, bool], ...]:
    """Per text field of a model class: its name, the length it may have, whether it is a URL."""
    return tuple(
        (name, TITLE_MAX if name in _SHORT_FIELDS else TEXT_MAX, name == "url")
        for name in _text_fields(cls)
    )


def _walk(model: BaseModel, repo_url: str) -> BaseModel:
    update = {}
    values = model.__dict__  # (a pydantic model's fields, read without a descriptor per field)
    for name, limit, is_url in _plan(type(model)):
        value = values[name]
        # the common cases first, without a call: nothing, a short string, a link on the
        # forge, a tuple of short strings
        kind = type(value)
        if value is None:
            continue
        if kind is str:
            if not is_url:
                if len(value) <= limit:
                    continue
            elif value.startswith(repo_url) and _PLAIN_PATH.fullmatch(value, len(repo_url)):
                continue
        elif kind is tuple and all(type(v) is str and len(v) <= TITLE_MAX for v in value):
            continue
        new = _value(name, value, repo_url)
        if new is not value:
            update[name] = new
    return model.model_copy(update=update) if update else model


def _value(name: str, value, repo_url: str):
    if isinstance(value, str):
        if name == "url":
            if value.startswith(repo_url) and _PLAIN_PATH.fullmatch(value, len(repo_url)):
                return value  # the common case, /pull/123 on the forge: nothing to parse
            safe = forge_url(value, repo_url)
            return value if safe == value else safe
        limit = TITLE_MAX if name in _SHORT_FIELDS else TEXT_MAX
        return value if len(value) <= limit else bounded_title(value, limit)
    if isinstance(value, BaseModel):
        return _walk(value, repo_url)
    if isinstance(value, tuple) and value:
        items = tuple(_item(name, v, repo_url) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    return value


def _item(name: str, value, repo_url: str):
    if isinstance(value, str):
        return value if len(value) <= TITLE_MAX else cut_words(value, TITLE_MAX)
    return _value(name, value, repo_url)
