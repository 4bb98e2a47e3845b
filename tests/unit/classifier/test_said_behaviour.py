"""Issue #15 ("whether it is user-facing and how"): changes in behaviour users meet that are no
setting added, removed or renamed — an environment variable the change now sets for them (a new
default), one they no longer need to set, and a template "No" to a change that adds support for a
model, a hardware or a quantization scheme (not told as "no user-facing change"). On REAL
descriptions of vllm-project/vllm-ascend (../shared/data/vllm-ascend-history, read in place),
negatives included; every sentence quoted is a span of its body."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import _adds_support, digest_of, is_span
from tests.conftest import history_prs

pytestmark = pytest.mark.shared_data

REPO = "vllm-project/vllm-ascend"


def digest(number: int):
    row = history_prs()[number]
    return digest_of(row["title"], row["body"] or "", repo=REPO, number=number), row


def kinds(number: int) -> dict[str, str]:
    d, _row = digest(number)
    return {i.name: i.kind for i in d.interface}


# (number, an environment variable it gives a new default, the words of the sentence told)
NEW_DEFAULTS = [
    # under `vllm_ascend/__init__.py`: "Set `VLLM_USE_V2_MODEL_RUNNER=0` for non-`0.23.0`." —
    # though the title is "[CI] upgrade vllm to 0619": the list stands under a file of the code
    (10935, "VLLM_USE_V2_MODEL_RUNNER", "Set VLLM_USE_V2_MODEL_RUNNER=0"),
    # RL mode "- sets `VLLM_SERVER_DEV_MODE=1`;"
    (13748, "VLLM_SERVER_DEV_MODE", "sets VLLM_SERVER_DEV_MODE=1"),
    # the answer (read as "no") says "Users do not need to set
    # `PYTORCH_NPU_ALLOC_CONF=expandable_segments:True` manually any more."
    (5855, "PYTORCH_NPU_ALLOC_CONF", "do not need to set"),
]


@pytest.mark.parametrize("number,name,words", NEW_DEFAULTS)
def test_an_environment_variable_the_change_sets_is_a_new_default(number, name, words):
    d, row = digest(number)
    got = {i.name: i for i in d.interface}
    assert name in got, d.interface
    assert got[name].kind == "default"
    assert words in got[name].sentence
    assert is_span(got[name].sentence, row["body"])


# (number, an environment variable it names with a value, what it is rather than a new default)
NOT_NEW_DEFAULTS = [
    # the same description's test: "under tests/e2e/…: set
    # `VLLM_REGEX_COMPILATION_TIMEOUT_S=30` during the test"
    (10935, "VLLM_REGEX_COMPILATION_TIMEOUT_S"),
    # CI: "[CI] Set HCCL_IF_BASE_PORT for 560T cluster …" sets its workflows' value
    (12303, "HCCL_IF_BASE_PORT"),
    (12313, "HCCL_INTER_HCCS_DISABLE"),
    # a test config: "[CI] Enable FLASHCOMM1 … in ds32 testing"
    (6115, "VLLM_ASCEND_ENABLE_FLASHCOMM1"),
    # users told how to use it: "users need to **set VLLM_BATCH_INVARIANT=1** to install …",
    # "If you want to use NZ format, you should set VLLM_ASCEND_ENABLE_NZ=1" (added, no default)
    (10034, "VLLM_BATCH_INVARIANT"),
    (3356, "VLLM_ASCEND_ENABLE_NZ"),
    # a shell line of how to run it: "export VLLM_ASCEND_FUSION_OP_TRANSPOSE_KV_CACHE_BY_BLOCK=0"
    (6366, "VLLM_ASCEND_FUSION_OP_TRANSPOSE_KV_CACHE_BY_BLOCK"),
    (2172, "VLLM_USE_V1"),
    # "Previously, it was necessary to set the environment variables HCCL_INTRA_PCIE_ENABLE=1"
    (5545, "HCCL_INTRA_PCIE_ENABLE"),
    # not sentence-first: "… for large grids set `TRITON_ALL_BLOCKS_PARALLEL=1` when grids > 65535"
    (6301, "TRITON_ALL_BLOCKS_PARALLEL"),
]


@pytest.mark.parametrize("number,name", NOT_NEW_DEFAULTS)
def test_a_value_set_elsewhere_or_told_to_users_is_no_new_default(number, name):
    assert kinds(number).get(name) != "default"


def test_a_setting_taken_away_is_removed_not_a_new_default():
    # "users no longer need to set `VLLM_ASCEND_APPLY_DSV4_PATCH=1`" in the answer, then "Removes
    # the obsolete VLLM_ASCEND_APPLY_DSV4_PATCH environment variable …" (real #10333)
    assert kinds(10333) == {"VLLM_ASCEND_APPLY_DSV4_PATCH": "removed"}
    assert kinds(3356) == {"VLLM_ASCEND_ENABLE_NZ": "added"}  # (still added)


# a template "No" to a change that adds support for a model, a hardware or a scheme
SUPPORT_ADDED = [
    11264,  # "[Feature]Adapt GLM-5.2", answer "No"
    11014,  # "w4a16-mxfp4 quantization scheme adaptation", answer "No. This is an internal …"
    10236,  # "Add support for W8A8FP8 dynamic quantization on Ascend950"
    11536,  # "Support Gemma4 graph execution on A2/A3"
    3103,  # "[Model]Add support for qwen3_vl and qwen3_vl_moe"
]


@pytest.mark.parametrize("number", SUPPORT_ADDED)
def test_a_no_to_a_change_that_adds_support_is_not_told_as_no_user_facing_change(number):
    d, _row = digest(number)
    assert d.user_facing == "unknown"


# a "No" kept: lint, tests, docs, an upstream adaptation, an op on a place, a dtype of an op
STILL_NO = [
    7511,  # "[Lint]Add lint hooks … forbidden imports" — contributors', not users'
    14719,  # "[Test][Feature] Add GLM-5.2 with DCP E2E test configuration"
    12426,  # "[Doc][Feature] Add Qwen3.5/3.6-27B support documentation for Ascend950DT series"
    7578,  # "adapt to main2main for model runner v2"
    11701,  # "[Feature] Add Mega moe support for a3": the op replaced, on a3
    6393,  # "DispatchGmmCombineDecode support bf16/float16 gmm1/gmm2 weight"
    13982,  # "SFA C8 supports ModelRunnerV2."
]


@pytest.mark.parametrize("number", STILL_NO)
def test_a_no_to_a_change_of_code_tests_or_docs_stays_no(number):
    d, _row = digest(number)
    assert d.user_facing == "no"


def test_adds_support_reads_the_name_supported():
    assert _adds_support("[Feature]Adapt GLM-5.2", "")
    assert _adds_support("", "w4a16-mxfp4 quantization scheme adaptation")
    assert not _adds_support("adapt the mla_v1 with the `mla_preprocess` kernel", "")
    assert not _adds_support("[Bugfix] Support Qwen3.5 on A2", "")  # a fix
    assert not _adds_support("Support for long prompts", "")  # no name
