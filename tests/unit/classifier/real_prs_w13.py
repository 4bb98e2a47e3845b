"""Real merged pull requests of vllm-project/vllm-ascend (2026-W13), as the history file
/work/shared/data/vllm-ascend-history/merged_prs_with_bodies.jsonl holds them: number, title, the
description's opening (up to 1,500 characters) and every changed file with its additions and
deletions. Used by the tests of what a change is (modules, kinds) and how much it matters."""

from __future__ import annotations

import json
from typing import Any

REAL_PRS: dict[int, dict[str, Any]] = {
    7511: {
        "title": "[Lint]Add lint hooks for clang-format, shellcheck, forbidden imports, and boolean context manager checks",
        "body": "### What this PR does / why we need it?\nThis PR introduces several upstream `vllm`-aligned lint hooks into\n`vllm-ascend` and makes them part of the actual `pre-commit` flow.\n\nMain changes in this PR:\n- add `check-boolean-context-manager` to catch boolean expressions in\n`with` statements\n- add `check-forbidden-imports` to forbid direct `re` imports and\ndisallowed direct `triton` imports\n- enable shell script linting through `tools/shellcheck.sh`\n- add root `.clang-format` aligned with upstream `vllm`, enable\n`clang-format` in `pre-commit`, temporarily **exclude all `csrc/**`**\nfrom `clang-format` to avoid bringing a large native code reformat into\nthis PR\n\nThis PR focuses on landing the smaller and immediately useful lint\nalignment first, without mixing in the larger requirements-management\nmigration.\n\n### Does this PR introduce _any_ user-facing change?\nNo.\n\nThis PR only updates repository lint configuration, static checks, and\ninternal import/style enforcement. It does not change runtime behavior\nor public interfaces.\n\n### How was this patch tested?\nTested locally in the project virtual environment.\n\nCommands used:\n```bash\nbash format.sh\n```\nVerified checks passed:\n``` bash\nruff check...............................................................Passed\nruff format..............................................................Passed\ncodespell................................................................Passed\ntypos.............................................................",
        "files": [
            (".clang-format", 26, 0),
            (".github/workflows/dockerfiles/Dockerfile.lint", 1, 1),
            (".github/workflows/scripts/ci_log_summary.py", 2, 1),
            (".pre-commit-config.yaml", 24, 7),
            ("collect_env.py", 1, 1),
            ("requirements.txt", 1, 0),
            ("tests/e2e/nightly/single_node/models/scripts/single_node_config.py", 1, 1),
            ("tools/aisbench.py", 1, 1),
            ("tools/check_boolean_context_manager.py", 87, 0),
            ("tools/check_forbidden_imports.py", 96, 0),
            ("tools/enforce_regex_import.py", 0, 96),
            ("tools/format_contributors.py", 2, 1),
            ("tools/shellcheck.sh", 5, 9),
            (
                "vllm_ascend/distributed/kv_transfer/kv_pool/ascend_store/backend/mooncake_backend.py",
                1,
                1,
            ),
            ("vllm_ascend/model_loader/netloader/interaction/elastic.py", 1, 1),
            ("vllm_ascend/model_loader/netloader/utils.py", 1, 1),
            ("vllm_ascend/ops/linear_op.py", 1, 1),
            ("vllm_ascend/ops/triton/batch_invariant/matmul.py", 3, 2),
            ("vllm_ascend/ops/triton/batch_invariant/rmsnorm.py", 3, 2),
            ("vllm_ascend/ops/triton/linearnorm/split_qkv_rmsnorm_mrope.py", 1, 2),
            ("vllm_ascend/ops/triton/linearnorm/split_qkv_rmsnorm_rope.py", 1, 2),
            ("vllm_ascend/ops/triton/mamba/causal_conv1d.py", 1, 2),
            ("vllm_ascend/quantization/modelslim_config.py", 1, 1),
            ("vllm_ascend/utils.py", 1, 1),
        ],
    },
    7574: {
        "title": "[Feat] Add npugraph_ex enablement logging",
        "body": "### What this PR does / why we need it?\n\n- Replace local logging with vllm.logger for consistency\n- Add info log when enable_npugraph_ex is enabled\n- Add info log when enable_static_kernel is enabled\n- Unify logging message format to use config switch names consistently\n- This helps users understand which compilation optimizations are active\n\n### Does this PR introduce _any_ user-facing change?\n\nYes. Users will now see informational log messages when\nenable_npugraph_ex or enable_static_kernel features are enabled,\nproviding better visibility into the compilation optimization settings\nbeing used.\n\n### How was this patch tested?\n\n- Code passes all pre-commit hooks (ruff check, ruff format, codespell,\ntypos)\n- Follows project coding conventions and style guidelines\n- Logger import matches the pattern used elsewhere in the codebase\n\nSigned-off-by: p00465316 <panchao13@huawei.com>\nCo-authored-by: p00465316 <panchao13@huawei.com>",
        "files": [
            ("vllm_ascend/compilation/compiler_interface.py", 5, 3),
        ],
    },
    7506: {
        "title": "[BugFix][P/D] fix padding error on FullGraph mode && fix layerwise connector mamba accuracy",
        "body": "### What this PR does / why we need it?\n1. When the FullGraph mode is used, the branches in the Triton operator\nare compiled and fixed during the graph capture process, causing the\nbranch condition in the `fused_recurrent_gated_delta_rule` operator,\nwhich checks whether `ssm_state_indices >= 0` before writing to the SSM\ncache, to become invalid. Now, the write operation is performed\nregardless of the value. This results in the operator performing address\noffset calculations and writing to the SSM cache based on the -1 offset\nafter -1 is used for padding in vLLM GDN backend. Since the conv cache\nand SSM cache in vLLM Ascend implementation are actually a single\ncontinuous tensor divided into two parts, this leads to data overwriting\nand the generation of NaN values.\nThis PR addresses two cases where padding -1 is required in the GDN\nmetadata builder. The same logic is used to replace the padding with 0\nto avoid the problem of memory overwriting, because block 0 is a\nreserved block.\n2. Fix layerwise connector bug for mamba cache sending on heterogeneous\nTP.\n\n- vLLM version: v0.17.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/8b6325758cce5f9c36d38f2462edbd368b97a07c\n---------\nSigned-off-by: nwpu-zxr <zhouxuerong2@huawei.com>",
        "files": [
            ("vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_layerwise_connector.py", 5, 4),
            ("vllm_ascend/worker/model_runner_v1.py", 6, 0),
        ],
    },
    7514: {
        "title": "[P/D] [Bugfix] fix mooncake layerconnector dead when update_decoder_info fail",
        "body": "### What this PR does / why we need it?\nFix mooncake layerconnector dead when update_decoder_info fail. For the\nscenario where node D is dead, node P failing to update_decoder_info\nshould not cause node P to become dead.\n\n### Does this PR introduce _any_ user-facing change?\n\n### How was this patch tested?\nby CI\n\n- vLLM version: v0.17.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/8b6325758cce5f9c36d38f2462edbd368b97a07c\n\n---------\n\nSigned-off-by: liziyu <liziyu16@huawei.com>",
        "files": [
            ("vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_layerwise_connector.py", 9, 1),
        ],
    },
    7510: {
        "title": "Main2main Upgrade vllm commit to 0320 17:00",
        "body": '### What this PR does / why we need it?\nMain2main Upgrade vllm commit to 0320 17:00\n\n1. fix vllm refactored `_moe_forward` to call\n`runner.forward_impl_chunked()` when `runner.use_dp_chunking` is True.\nvllm PR:"[MoE Refactor] DefaultMoERunner simplification\n[#33049](https://github.com/vllm-project/vllm/pull/33049)"\n\n2.fix vllm moved the call to `self._set_compile_ranges()` in\n`VllmConfig.__post_init__` from **before** `check_and_update_config()`\nto **after** it (to allow platforms to lower `max_num_batched_tokens`\nfirst). vllm PR: "fix(xpu): Re-compute compile ranges after\nplatform-specific config updates"\n[#37523](https://github.com/vllm-project/vllm/pull/37523)\n\n\n### Does this PR introduce _any_ user-facing change?\nNA\n\n### How was this patch tested?\nNA\n\n- vLLM version: v0.17.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/8b6325758cce5f9c36d38f2462edbd368b97a07c\n\n---------\n\nSigned-off-by: leo-pony <nengjunma@outlook.com>\nCo-authored-by: Claude Code <noreply@anthropic.com>',
        "files": [
            (".github/workflows/bot_pr_create.yaml", 1, 1),
            (".github/workflows/dockerfiles/Dockerfile.lint", 1, 1),
            (".github/workflows/pr_test_full.yaml", 1, 1),
            (".github/workflows/pr_test_light.yaml", 3, 3),
            (".github/workflows/schedule_codecov_refresh.yaml", 1, 1),
            ("docs/source/community/versioning_policy.md", 1, 1),
            ("vllm_ascend/ascend_config.py", 1, 1),
            ("vllm_ascend/ops/fused_moe/fused_moe.py", 6, 0),
        ],
    },
    7551: {
        "title": "Main2main Upgrade vllm commit to 0323 00:48:31",
        "body": "### What this PR does / why we need it?\nMain2main Upgrade vllm commit to 0323 00:48:31\n\n1. add missing num_prompt_tokens_cpu_tensor to NPUInputBatch, vllm PR:\nhttps://github.com/vllm-project/vllm/pull/37303\n\n- vLLM version: v0.18.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/35141a7eeda941a60ad5a4956670c60fd5a77029\n\nSigned-off-by: 22dimensions <waitingwind@foxmail.com>\nCo-authored-by: Claude Code <noreply@anthropic.com>",
        "files": [
            (".github/workflows/bot_pr_create.yaml", 1, 1),
            (".github/workflows/dockerfiles/Dockerfile.lint", 1, 1),
            (".github/workflows/pr_test_full.yaml", 1, 1),
            (".github/workflows/pr_test_light.yaml", 3, 3),
            (".github/workflows/schedule_codecov_refresh.yaml", 1, 1),
            ("docs/source/community/versioning_policy.md", 1, 1),
            ("vllm_ascend/worker/npu_input_batch.py", 14, 2),
        ],
    },
    7478: {
        "title": "Main2main upgrade vllm commit to 03 19 17:00",
        "body": '### What this PR does / why we need it?\nUpgrade vllm commit to 2026.03.19.\n\n1.Fix socket removed from StatelessProcessGroup. Upstream vLLM PR\n[#36330](https://github.com/vllm-project/vllm/pull/36330) ("elastic_ep:\nFix stateless group port races") refactored StatelessProcessGroup and\nremoved the socket: socket.socket | None field. The socket ownership was\nmoved to a new create_tcp_store() helper instead of being stored as a\nfield on the dataclass.\n\n2.fix `virtual_engine` parameter removed from `set_forward_context().\nUpstream [V0 Deprecation] Deprecate virtual engine\n[#37195](https://github.com/vllm-project/vllm/pull/37195)\n\n### Does this PR introduce _any_ user-facing change?\nNA\n\n### How was this patch tested?\nNA\n\n- vLLM version: v0.17.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/8b6325758cce5f9c36d38f2462edbd368b97a07c\n\n---------\n\nSigned-off-by: leo-pony <nengjunma@outlook.com>',
        "files": [
            (".github/workflows/bot_pr_create.yaml", 1, 1),
            (".github/workflows/dockerfiles/Dockerfile.lint", 1, 1),
            (".github/workflows/pr_test_full.yaml", 1, 1),
            (".github/workflows/pr_test_light.yaml", 3, 3),
            (".github/workflows/schedule_codecov_refresh.yaml", 1, 1),
            ("docs/source/community/versioning_policy.md", 1, 1),
            ("tests/ut/distributed/device_communicators/test_pyhccl.py", 10, 4),
            ("vllm_ascend/ascend_forward_context.py", 3, 1),
            ("vllm_ascend/ops/mla.py", 2, 2),
            ("vllm_ascend/patch/worker/patch_qwen3_5.py", 2, 2),
            ("vllm_ascend/patch/worker/patch_qwen3_next.py", 2, 2),
            ("vllm_ascend/platform.py", 1, 1),
        ],
    },
    7761: {
        "title": "[CI][310p] add qwen3.5-4B model weight for edge-device 310p",
        "body": "### What this PR does / why we need it?\n\nThe 310P edge device needs to run Qwen3.5-4B with **TP=1**, so we need\nto request that this option be added to the model list.\n\nSigned-off-by: Tflowers-0129 <2906339855@qq.com>",
        "files": [
            (".github/workflows/misc/model_list.json", 1, 0),
        ],
    },
    7557: {
        "title": 'Revert "GMM custom operator optimization in small batch scenarios (vllm-project#7100)"',
        "body": "### What this PR does / why we need it?\nThis reverts commit 42bcad7e9b68cf92d9b98a9072eff10edc8d6f33. The commit\ncause accuracy decrease of qwen3Next, 150 items of gsm8k, 98 -> 91.\n\n- vLLM version: v0.18.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/6a9cceb219fcbd6b1eb540ddfdc77ec160f0e209\n\nSigned-off-by: Your Name <you@example.com>\nCo-authored-by: Your Name <you@example.com>",
        "files": [
            ("csrc/torch_binding.cpp", 1, 1),
            ("vllm_ascend/device/device_op.py", 11, 29),
            ("vllm_ascend/ops/fused_moe/moe_mlp.py", 18, 41),
        ],
    },
    7424: {
        "title": "[310p]: add rmsnorm gated fallback and unit test",
        "body": "### What this PR does / why we need it?\nRFC #7394\n310P cannot use the fused `rmsnormgated` operator and must fall back to\nthe native implementation.\n\n### Does this PR introduce _any_ user-facing change?\nNO\n### How was this patch tested?\nut\n- vLLM version: v0.17.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/4497431df654e46fb1fb5e64bf8611e762ae5d87\n\n---------\n\nSigned-off-by: Tflowers-0129 <2906339855@qq.com>",
        "files": [
            ("tests/ut/_310p/ops/test_layernorm_310.py", 41, 0),
            ("vllm_ascend/_310p/ops/layernorm.py", 12, 0),
            ("vllm_ascend/utils.py", 6, 1),
        ],
    },
    7533: {
        "title": "[310p][feat] Added a patch file for 310P to adapt to Qwen3.5",
        "body": "### What this PR does / why we need it?\nAdded a patch file for 310P to adapt to Qwen3.5\n### Does this PR introduce _any_ user-facing change?\nNone\n### How was this patch tested?\n\n- vLLM version: v0.18.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/8b6325758cce5f9c36d38f2462edbd368b97a07c\n\n---------\n\nSigned-off-by: YangShuai52 <yangshuai153@huawei.com>",
        "files": [
            ("vllm_ascend/patch/worker/__init__.py", 9, 3),
            ("vllm_ascend/patch/worker/patch_qwen3_5_310.py", 250, 0),
        ],
    },
    7398: {
        "title": "[310P]fused recurrent gated delta rule pytorch core and ut",
        "body": "### What this PR does / why we need it?\nRFC https://github.com/vllm-project/vllm-ascend/issues/7394\nAdd a PyTorch implementation of the fused recurrent gated delta ruler on\n310P.\n### Does this PR introduce _any_ user-facing change?\nNO\n### How was this patch tested?\nUT\n- vLLM version: v0.17.0\n- vLLM main:\nhttps://github.com/vllm-project/vllm/commit/4497431df654e46fb1fb5e64bf8611e762ae5d87\n\n---------\n\nSigned-off-by: Tflowers-0129 <2906339855@qq.com>\nCo-authored-by: wangxiyuan <wangxiyuan1007@gmail.com>",
        "files": [
            (
                "tests/e2e/nightly/single_node/ops/singlecard_ops/triton/test_fused_recurrent_gated_delta_rule.py",
                79,
                0,
            ),
            ("vllm_ascend/_310p/ops/fla/__init__.py", 5, 1),
            ("vllm_ascend/_310p/ops/fla/fused_recurrent_gated_delta_rule.py", 225, 0),
        ],
    },
}


def item_json(number: int) -> str:
    """The PR as a line `repodigest classify` reads."""
    pr = REAL_PRS[number]
    return json.dumps(
        {
            "number": number,
            "title": pr["title"],
            "body": pr["body"],
            "repo": "vllm-project/vllm-ascend",
            "files": [{"path": p, "additions": a, "deletions": d} for p, a, d in pr["files"]],
        }
    )
