"""Section 2's line for a PR: a description's opening only when there is no digest at all."""

from __future__ import annotations

from services.renderer.adapters.catalogs import messages
from services.renderer.domain.view import _Writer
from shared.events.enriched import Digest
from tests.unit.renderer.samples import pr, weekly_summary

BODY = "Add a fused rotary kernel for the decode path so that small batches run faster."


def _what(item) -> str:
    return _Writer(weekly_summary(), messages("en")).explained_line(item, ()).text


def test_no_digest_tells_the_description_opening() -> None:
    item = pr(1, "[Ops] fused rotary", "a", body=BODY)
    assert "fused rotary kernel for the decode path" in _what(item)


def test_digest_without_what_does_not_tell_the_template() -> None:
    body = "### What this PR does / why we need it?\n\n### How was this patch tested?\n"
    for digest in (Digest(template_only=True), Digest(what="")):
        item = pr(2, "[Ops] x", "a", body=body).model_copy(update={"digest": digest})
        assert "What this PR does" not in _what(item)
        assert _what(item) == ""
