"""The demo repository's vocabulary: its people, areas and paths, models and hardware, title and
body phrases — what the planner (`planner.py`) draws from."""

from __future__ import annotations

DEMO_REPO = "repodigest-demo/llm-serve"

# ---------------------------------------------------------------- people

MAINTAINERS = (
    "mgoin-sim",
    "robertshaw-sim",
    "woosuk-sim",
    "youkaichao-sim",
    "njhill-sim",
    "zhuohan-sim",
    "simon-mo-sim",
    "hmellor-sim",
    "dsikka-sim",
    "lucas-wilk-sim",
)
COLLABORATORS = (
    "tlrmchlsmth-sim",
    "varun-s-sim",
    "ywang96-sim",
    "ProExpertProg-sim",
    "heheda-sim",
    "aarnphm-sim",
)
CONTRIBUTORS = (
    "lin-zhao-dev",
    "mkovacs",
    "priya-infer",
    "chen-wei-ml",
    "tomas-gpu",
    "akira-kv",
    "sofia-quant",
    "omar-serving",
    "ivan-kernels",
    "mei-tokenizer",
    "lukas-sched",
    "noor-spec",
    "daniel-moe",
    "yuki-attn",
    "rafael-cuda",
    "hana-lora",
    "ben-tooluse",
    "elena-disagg",
    "kofi-bench",
    "zara-mm",
)
AMD_CONTRIBUTORS = ("jtan-amd", "rpatel-amd", "hsu-amd", "mlee-amd", "gshtras-amd")
FIRST_TIMERS = tuple(f"first-timer-{i:02d}" for i in range(1, 13))
REPORTERS = tuple(f"demo-user-{i:03d}" for i in range(1, 61))
BOTS = ("dependabot[bot]", "mergify[bot]")

# ---------------------------------------------------------------- the code base

AREAS: dict[str, dict] = {
    "core": dict(
        paths=[
            "vllm/v1/core/sched/scheduler.py",
            "vllm/v1/core/sched/output.py",
            "vllm/v1/core/kv_cache_manager.py",
            "vllm/v1/core/block_pool.py",
            "vllm/v1/engine/core.py",
            "vllm/v1/engine/async_llm.py",
            "vllm/v1/worker/gpu_model_runner.py",
            "vllm/v1/request.py",
        ],
        tests=[
            "tests/v1/core/test_scheduler.py",
            "tests/v1/core/test_prefix_caching.py",
            "tests/v1/engine/test_engine_core.py",
        ],
        titles=[
            "Preempt lowest-priority requests first when KV cache blocks run out",
            "Avoid redundant block allocation for chunked prefill in the scheduler",
            "Make async scheduling safe when a request is aborted mid-step",
            "Refactor EngineCore output processing into a dedicated loop",
            "Support prefix caching with sliding-window layers in the hybrid allocator",
            "Reduce Python overhead of scheduler step for large batches",
            "Track per-request KV cache usage for better preemption decisions",
            "Free encoder cache entries eagerly after the last consumer",
        ],
    ),
    "attention": dict(
        paths=[
            "vllm/attention/layer.py",
            "vllm/attention/selector.py",
            "vllm/v1/attention/backends/flash_attn.py",
            "vllm/v1/attention/backends/flashinfer.py",
            "vllm/v1/attention/backends/mla/common.py",
            "vllm/v1/attention/backends/triton_attn.py",
            "vllm/attention/backends/abstract.py",
        ],
        tests=[
            "tests/kernels/attention/test_flash_attn.py",
            "tests/kernels/attention/test_flashinfer.py",
            "tests/v1/attention/test_mla_backends.py",
        ],
        titles=[
            "Add FlashInfer sliding-window support for {model}",
            "Enable full CUDA Graph capture for the MLA decode path",
            "Use FlashAttention 3 by default on Hopper GPUs",
            "Support attention sinks in the Triton attention backend",
            "Unify attention metadata builders across v1 backends",
            "Fix cascade attention with prefix caching for long prompts",
        ],
    ),
    "moe": dict(
        paths=[
            "vllm/model_executor/layers/fused_moe/layer.py",
            "vllm/model_executor/layers/fused_moe/fused_moe.py",
            "vllm/model_executor/layers/fused_moe/modular_kernel.py",
            "vllm/model_executor/layers/fused_moe/deepep_ht_prepare_finalize.py",
            "vllm/model_executor/layers/fused_moe/configs/E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3.json",
            "vllm/model_executor/layers/fused_moe/cutlass_moe.py",
        ],
        tests=[
            "tests/kernels/moe/test_moe.py",
            "tests/kernels/moe/test_modular_kernel_combinations.py",
        ],
        titles=[
            "Add tuned fused MoE configs for {model} on H200",
            "Support expert parallel load balancing (EPLB) for {model}",
            "Refactor modular MoE kernel prepare/finalize interface",
            "Enable DeepEP low-latency kernels for decode",
            "Fuse top-k routing and gating for grouped experts",
            "Add FP8 block-scaled CUTLASS grouped GEMM for MoE",
        ],
    ),
    "spec_decode": dict(
        paths=[
            "vllm/v1/spec_decode/eagle.py",
            "vllm/v1/spec_decode/ngram_proposer.py",
            "vllm/v1/spec_decode/metadata.py",
            "vllm/v1/sample/rejection_sampler.py",
            "vllm/config/speculative.py",
        ],
        tests=[
            "tests/v1/spec_decode/test_eagle.py",
            "tests/v1/spec_decode/test_ngram.py",
            "tests/v1/sample/test_rejection_sampler.py",
        ],
        titles=[
            "Support EAGLE-3 drafts for {model}",
            "Enable CUDA Graph for the EAGLE proposer",
            "Add tree attention for speculative decoding",
            "Support MTP speculative decoding with prefix caching",
            "Vectorise n-gram proposer lookup",
            "Fix acceptance-rate metrics for multi-token prediction",
        ],
    ),
    "rocm": dict(
        paths=[
            "csrc/rocm/attention.cu",
            "csrc/rocm/skinny_gemms.cu",
            "csrc/rocm/ops.h",
            "vllm/platforms/rocm.py",
            "vllm/attention/ops/rocm_aiter_mla.py",
            "vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py",
            "docker/Dockerfile.rocm",
        ],
        tests=[
            "tests/kernels/attention/test_rocm_attention_selector.py",
            "tests/kernels/moe/test_rocm_aiter_topk.py",
        ],
        titles=[
            "Enable AITER MLA decode for {model} on MI300X",
            "Add skinny GEMM kernels for small batch decode on MI325",
            "Use AITER fused MoE by default on gfx942",
            "Fix FP8 KV cache scaling on ROCm",
            "Support custom all-reduce on MI355X",
            "Upgrade ROCm base image to 7.0",
        ],
    ),
    "kv_connector": dict(
        paths=[
            "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
            "vllm/distributed/kv_transfer/kv_connector/v1/lmcache_connector.py",
            "vllm/distributed/kv_transfer/kv_connector/v1/base.py",
            "vllm/distributed/kv_transfer/kv_connector/factory.py",
            "vllm/distributed/kv_transfer/kv_transfer_state.py",
        ],
        tests=[
            "tests/v1/kv_connector/unit/test_nixl_connector.py",
            "tests/v1/kv_connector/unit/test_multi_connector.py",
        ],
        titles=[
            "Support heterogeneous TP sizes in the NIXL connector",
            "Add KV cache offloading to CPU through the connector API",
            "Report KV transfer failures back to the scheduler",
            "Add a multi-connector that chains P2P and storage backends",
            "Make disaggregated prefill robust to decode worker restarts",
        ],
    ),
    "quantization": dict(
        paths=[
            "vllm/model_executor/layers/quantization/fp8.py",
            "vllm/model_executor/layers/quantization/awq_marlin.py",
            "vllm/model_executor/layers/quantization/modelopt.py",
            "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors_moe.py",
            "csrc/quantization/fp8/common.cu",
            "csrc/quantization/gptq_marlin/gptq_marlin.cu",
        ],
        tests=["tests/quantization/test_fp8.py", "tests/quantization/test_compressed_tensors.py"],
        titles=[
            "Support NVFP4 MoE weights for {model}",
            "Add per-token group FP8 quantization kernel",
            "Support W4A8 compressed-tensors checkpoints",
            "Enable Marlin kernels for AWQ MoE layers",
            "Fix dynamic FP8 scale overflow for long prompts",
        ],
    ),
    "kernel": dict(
        paths=[
            "csrc/layernorm_kernels.cu",
            "csrc/activation_kernels.cu",
            "csrc/ops.h",
            "csrc/torch_bindings.cpp",
            "csrc/attention/paged_attention_v1.cu",
            "CMakeLists.txt",
            "vllm/_custom_ops.py",
        ],
        tests=["tests/kernels/core/test_layernorm.py", "tests/kernels/core/test_activation.py"],
        titles=[
            "Fuse RMSNorm with FP8 quantization",
            "Add SiLU-and-mul kernel with vectorised loads",
            "Port rotary embedding kernel to support partial rotary dims",
            "Speed up top-k/top-p sampling kernel for large vocabularies",
            "Build kernels for SM 12.0 (Blackwell consumer GPUs)",
        ],
    ),
    "frontend": dict(
        paths=[
            "vllm/entrypoints/openai/serving_chat.py",
            "vllm/entrypoints/openai/protocol.py",
            "vllm/entrypoints/openai/api_server.py",
            "vllm/entrypoints/llm.py",
            "vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py",
            "vllm/entrypoints/openai/tool_parsers/qwen3coder_tool_parser.py",
            "vllm/entrypoints/openai/serving_responses.py",
        ],
        tests=[
            "tests/entrypoints/openai/test_chat.py",
            "tests/tool_use/test_tool_calls.py",
            "tests/entrypoints/openai/test_response_api.py",
        ],
        titles=[
            "Support streaming tool calls in the {model} tool parser",
            "Add `reasoning_effort` to the Responses API",
            "Return prompt token ids in chat completions when requested",
            "Validate `max_tokens` against the context length before scheduling",
            "Add structured output support to the Responses API",
            "Handle parallel tool calls in the Hermes parser",
        ],
    ),
    "model": dict(
        paths=[
            "vllm/model_executor/models/qwen3_moe.py",
            "vllm/model_executor/models/llama4.py",
            "vllm/model_executor/models/deepseek_v2.py",
            "vllm/model_executor/models/gemma3.py",
            "vllm/model_executor/models/registry.py",
            "vllm/model_executor/models/glm4_moe.py",
            "docs/models/supported_models.md",
        ],
        tests=[
            "tests/models/registry.py",
            "tests/models/language/generation/test_common.py",
            "tests/models/multimodal/processing/test_common.py",
        ],
        titles=[
            "Add support for {model}",
            "Support LoRA adapters for {model}",
            "Enable pipeline parallelism for {model}",
            "Add multimodal processor for {model} vision encoder",
            "Fix weight loading for {model} with tied embeddings",
        ],
    ),
    "ci": dict(
        paths=[
            ".buildkite/test-pipeline.yaml",
            ".buildkite/scripts/hardware_ci/run-amd-test.sh",
            ".buildkite/release-pipeline.yaml",
            ".github/workflows/pre-commit.yml",
            ".pre-commit-config.yaml",
        ],
        tests=[],
        titles=[
            "Add {model} to the nightly accuracy tests",
            "Run the {hw} test suite nightly",
            "Split the slow distributed tests into their own Buildkite step",
            "Retry flaky multi-node tests once before failing",
            "Run AMD CI on MI325 agents",
            "Cache pip downloads in the docker build step",
            "Skip documentation-only changes in the GPU pipeline",
        ],
    ),
    "doc": dict(
        paths=[
            "docs/features/spec_decode.md",
            "docs/getting_started/installation/gpu.md",
            "docs/serving/distributed_serving.md",
            "docs/features/quantization/fp8.md",
            "docs/design/paged_attention.md",
            "README.md",
        ],
        tests=[],
        titles=[
            "Add a deployment example for {model}",
            "Document {model} on {hw}",
            "Document EAGLE-3 configuration options",
            "Update installation guide for CUDA 12.9 wheels",
            "Explain disaggregated prefill deployment with NIXL",
            "Fix broken links in the quantization docs",
            "Add a troubleshooting section for NCCL hangs",
        ],
    ),
    "deps": dict(
        paths=[
            "requirements/common.txt",
            "requirements/cuda.txt",
            "requirements/rocm.txt",
            "requirements/test.txt",
            "pyproject.toml",
        ],
        tests=[],
        titles=[
            "Bump torch to 2.9.0",
            "Pin transformers below 4.58 until the tokenizer fix lands",
            "Upgrade FlashInfer to 0.4.1",
            "Bump xgrammar to 0.1.25",
        ],
    ),
    "misc": dict(
        paths=[
            "vllm/config/__init__.py",
            "vllm/envs.py",
            "vllm/utils/__init__.py",
            "vllm/logger.py",
            "vllm/engine/arg_utils.py",
        ],
        tests=["tests/test_config.py", "tests/engine/test_arg_utils.py"],
        titles=[
            "Deprecate the `--disable-log-requests` flag",
            "Move environment variable parsing into `vllm.envs`",
            "Log the resolved attention backend once at start-up",
            "Clean up unused helpers in `vllm.utils`",
            "Warn when `max_num_seqs` exceeds the CUDA Graph capture sizes",
        ],
    ),
}

MODELS = (
    "Qwen3-Next",
    "Llama-4-Scout",
    "DeepSeek-V3.2",
    "Gemma-3n",
    "GLM-4.6",
    "Kimi-K2",
    "gpt-oss-120b",
    "Mistral-Small-3.2",
    "Qwen3-VL",
    "MiniMax-M2",
)
NVIDIA_HARDWARE = ("H100", "H200", "B200", "L40S", "A100", "GB200")
AMD_HARDWARE = ("MI300X", "MI325X", "MI355X")
HARDWARE = NVIDIA_HARDWARE + AMD_HARDWARE
GENERIC_TITLES = (
    "Refactor {noun}",
    "Add metrics for {noun}",
    "Support {feature} in {noun}",
    "Reduce host overhead in {noun}",
    "Simplify the configuration of {noun}",
    "Add unit tests for {noun}",
    "Make {noun} work with {feature}",
    "Remove dead code in {noun}",
    "Improve error messages in {noun}",
    "Enable {noun} for {model}",
    "Add a debug log for {noun}",
    "Avoid a device sync in {noun}",
)
AREA_NOUNS = {
    "core": ("the scheduler", "prefix caching", "the KV cache manager", "async scheduling"),
    "attention": ("the FlashInfer backend", "the MLA decode path", "cascade attention"),
    "moe": ("fused MoE", "the EPLB rebalancer", "the DeepEP dispatcher"),
    "spec_decode": ("the EAGLE proposer", "the rejection sampler", "MTP drafting"),
    "rocm": ("the AITER MLA path", "ROCm custom all-reduce", "the ROCm skinny GEMM"),
    "kv_connector": ("the NIXL connector", "the LMCache connector", "KV transfer handshakes"),
    "quantization": ("FP8 block quantization", "the Marlin MoE kernel", "NVFP4 weight loading"),
    "kernel": ("the RMSNorm kernel", "the rotary embedding kernel", "the sampling kernel"),
    "frontend": ("streaming chat completions", "the Hermes tool parser", "the Responses API"),
    "model": ("weight loading", "the vision encoder", "the multimodal processor"),
    "misc": ("argument parsing", "environment variable handling", "start-up logging"),
}
FEATURES = (
    "prefix caching",
    "chunked prefill",
    "FP8 KV cache",
    "CUDA Graph",
    "speculative decoding",
    "expert parallelism",
    "LoRA",
    "structured outputs",
    "tensor parallelism 8",
)
WHY = (
    "Users running {model} on {hw} hit this in production.",
    "It removes a bottleneck that shows up with {feature}.",
    "This is needed before {feature} can be enabled by default.",
    "The old path was hard to maintain and slowed down {model}.",
    "Several users asked for it in the forum.",
)
USER_FACING_YES = (
    "Yes. {model} can now be served with `vllm serve` without extra flags.",
    "Yes: a new `--enable-{slug}` option, off by default.".replace("{slug}", "fast-path"),
    "Yes. The OpenAI-compatible server accepts the new field.",
)
# a line of work across both weeks, named by a model no other title uses
STORY_MODEL = "Hunyuan-A13B"
SYMPTOMS = (
    "illegal memory access",
    "NaN outputs",
    "a hang at start-up",
    "a shape mismatch",
    "wrong token ids",
    "OOM during profiling",
    "a deadlock on shutdown",
    "a crash",
)

# prefix -> (weight, area or None for "pick one", labels)
PREFIXES: dict[str, tuple[int, str | None, tuple[str, ...]]] = {
    "[Bugfix]": (18, None, ("bug",)),
    "[Perf]": (8, None, ("performance",)),
    "[ROCm]": (8, "rocm", ("rocm",)),
    "[Spec Decode]": (5, "spec_decode", ("speculative-decoding",)),
    "[MoE]": (6, "moe", ()),
    "[Kernel]": (7, "kernel", ()),
    "[Quantization]": (5, "quantization", ("quantization",)),
    "[CI]": (7, "ci", ("ci/build",)),
    "[Doc]": (6, "doc", ("documentation",)),
    "[Frontend]": (8, "frontend", ("frontend",)),
    "[Model]": (9, "model", ("new-model",)),
    "[KV Connector]": (4, "kv_connector", ("kv-connector",)),
    "[Core]": (7, "core", ("v1",)),
    "[Misc]": (6, None, ()),
}
PICKABLE = (
    "core",
    "attention",
    "moe",
    "spec_decode",
    "rocm",
    "kv_connector",
    "quantization",
    "kernel",
    "frontend",
    "model",
    "misc",
)
PERF_AREAS = ("core", "attention", "moe", "spec_decode", "rocm", "quantization", "kernel")
ISSUE_KINDS: dict[str, tuple[int, str]] = {
    "[Bug]": (55, "bug"),
    "[Feature]": (20, "feature request"),
    "[RFC]": (8, "RFC"),
    "[Usage]": (17, "usage"),
}
LARGE_CHANGES = (  # title, area, path roots, shape, purpose
    (
        "[Misc] Apply ruff format to vllm/model_executor",
        "misc",
        ("vllm/model_executor/layers/", "vllm/model_executor/models/"),
        "format",
        "Mechanical formatting change; no behaviour change.",
    ),
    (
        "[Core] Remove the V0 engine and its tests",
        "core",
        ("vllm/engine/", "vllm/worker/", "vllm/core/", "tests/basic_correctness/"),
        "removal",
        "The V1 engine is the default everywhere; the V0 code paths are removed.",
    ),
    (
        "[Quantization] Remove the deprecated GGUF loader and its kernels",
        "quantization",
        (
            "csrc/quantization/gguf/",
            "vllm/model_executor/layers/quantization/",
            "tests/quantization/",
        ),
        "removal",
        "GGUF support was deprecated two releases ago.",
    ),
    (
        "[Kernel] Vendor CUTLASS 4.2 MoE grouped GEMM kernels",
        "kernel",
        ("csrc/cutlass_extensions/", "csrc/moe/"),
        "vendor",
        "Vendors the grouped GEMM kernels so that the build no longer fetches them.",
    ),
)
MERGIFY_TEXT = (
    "This pull request has merge conflicts that must be resolved before it can be "
    "merged. Please rebase the PR."
)
SYNTHETIC = "Synthetic demo data generated by repodigest (not a real {kind})."
