"""Every kind of risk the summarizer tells has a name and an advice in both languages: 2026-W34's
zh-CN report read "另有：tests not run（4 项）" — the new kind's key, in English, inside Chinese."""

from __future__ import annotations

import pytest

from services.renderer.adapters.catalogs import messages
from services.summarizer.domain.report import TESTS_NOT_RUN


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_tests_not_run_is_named_in_the_reports_language(lang):
    m = messages(lang)
    assert m.has(f"risk_names.{TESTS_NOT_RUN}") and m.has(f"risk_help.{TESTS_NOT_RUN}")
    name = m.name("risk_names", TESTS_NOT_RUN)
    assert name != TESTS_NOT_RUN
    assert ("测试" in name) == (lang == "zh-CN")
