"""A setting's new type is an interface change: "dump_config is changed from dict to string",
"correct `enable_async_exponential` type" (real #5296, read in place), said of a setting where
users are told of the change. `setting_type_changes` gives them as the digest reads them; the
digest's `interface` tells them as kind "type" where the fact model has that kind
(`said.TYPE_CHANGES`)."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import digest_of, is_span, setting_type_changes
from services.classifier.domain.rules import ENGINE_VERSION
from services.classifier.domain.said import TYPE_CHANGES
from tests.conftest import history_prs

REPO = "vllm-project/vllm-ascend"


def real(number: int) -> dict:
    return history_prs()[number]


def test_a_config_said_to_change_type_is_an_interface_change():
    # "3. improve `dump_config` init logic and rename it to `dump_config_path` this change is
    # user impacted. dump_config is changed from dict to string. 4. correct
    # `enable_async_exponential` type" (real #5296 "cleanup ascend config")
    r = real(5296)
    found = setting_type_changes(r["title"], r["body"])
    assert [name for name, _ in found] == ["dump_config", "enable_async_exponential"]
    assert "dump_config is changed from dict to string" in found[0][1]
    assert found[1][1] == "correct enable_async_exponential type"
    assert all(is_span(sentence, r["body"]) for _, sentence in found)


def test_the_digest_tells_a_type_change_where_the_model_has_the_kind():
    r = real(5296)
    d = digest_of(r["title"], r["body"], repo=REPO, number=5296)
    assert d is not None
    typed = [i.name for i in d.interface if i.kind == "type"]
    assert typed == (["dump_config", "enable_async_exponential"] if TYPE_CHANGES else [])
    # the rule-set version follows what the digest can tell
    assert ENGINE_VERSION == ("20" if TYPE_CHANGES else "19")


@pytest.mark.parametrize(
    "number",
    [
        12648,  # "`finish_requests()` return type changed from `list[tuple(str, int)]` to …": code
        3262,  # "`kernel_block_sizes` is type of List[List[int]]": what it is, no change
        3466,  # "Standardize the grid_thw data type of qwen2VL to torch.int32": a tensor's dtype
        3804,  # "Its input parameters `weight` and `weight_scale` now accept `list[torch.Tensor]`"
        9403,  # "update type annotations in moe_stage_contracts.py … to accept list[torch.Tensor]"
        3001,  # "1. Use Enum instead of string.": no setting named
        14760,  # a description with no type in it at all
    ],
)
def test_what_is_no_type_change_of_a_setting(number):
    r = real(number)
    assert setting_type_changes(r["title"], r["body"]) == []


UF = "### What this PR does / why we need it?\n{what}\n\n### Does this PR introduce _any_ user-facing change?\n{uf}\n"


@pytest.mark.parametrize(
    "what,uf,name",
    [
        (
            "Clean up the config.",
            "Yes. `dump_config` is changed from dict to string.",
            "dump_config",
        ),
        (
            "The type of the `--max-num-seqs` option is changed from int to str.",
            "Yes.",
            "--max-num-seqs",
        ),
        (
            "Change the type of the `kv_transfer_config` setting to `Optional[str]`.",
            "Yes, see above.",
            "kv_transfer_config",
        ),
        ("Fix `VLLM_ASCEND_ENABLE_X` type in the envs.", "Yes.", "VLLM_ASCEND_ENABLE_X"),
    ],
)
def test_wordings_of_a_type_change(what, uf, name):
    found = setting_type_changes("Refactor config", UF.format(what=what, uf=uf))
    assert [n for n, _ in found] == [name]


@pytest.mark.parametrize(
    "what,uf",
    [
        # users see nothing, the description says: no setting's type is told
        ("`dump_config` is changed from dict to string.", "No."),
        # a function's argument, not a setting
        ("The `block_size` argument of the helper function changes from int to list.", "Yes."),
        # a type named, but nothing of it changes
        ("`dump_config` is a dict of paths.", "Yes."),
    ],
)
def test_a_type_said_of_code_or_unchanged_is_none(what, uf):
    assert setting_type_changes("Refactor config", UF.format(what=what, uf=uf)) == []
