"""Renderer settings: where artifacts go (NATS object store, S3, a directory) and PDF workers."""

from __future__ import annotations

from pydantic import Field, SecretStr

from shared.config import CommonSettings


class RendererSettings(CommonSettings):
    """`REPODIGEST_*` environment variables for the renderer service."""

    artifacts_url: str = Field(
        "nats",
        description="where reports are stored: nats (the RD_ARTIFACTS object store), "
        "s3://bucket/prefix[?endpoint_url=...&region=...&addressing_style=path], "
        "file:///abs/path or a directory path",
    )
    s3_endpoint_url: str | None = Field(
        None, description="S3-compatible endpoint, e.g. http://minio:9000 (unset for AWS)"
    )
    s3_region: str | None = Field(None, description="S3 region, e.g. us-east-1")
    s3_access_key_id: str | None = Field(
        None, description="S3 access key id (unset: boto3's chain: env, profile, instance role)"
    )
    s3_secret_access_key: SecretStr | None = None
    s3_session_token: SecretStr | None = None
    s3_addressing_style: str | None = Field(
        None, description="'path' for MinIO and most S3-compatible servers"
    )
    s3_max_attempts: int = Field(
        5,
        ge=1,
        le=20,
        description="attempts per S3 call (boto3 retries) before the report "
        "is nacked and redelivered with backoff",
    )
    site_enabled: bool = Field(
        True,
        description="regenerate the archive's pages (index.html, reports/<owner>/<repo>/"
        "index.html, .../<window>/index.html) in the artifact store after each report-ready "
        "(before its summary is acknowledged)",
    )
    pdf_workers: int = Field(1, ge=1, le=16, description="WeasyPrint worker processes")
    pdf_timeout: float = Field(300.0, gt=0, description="seconds one PDF may take")
    pdf_max_tasks_per_child: int = Field(
        50, ge=1, description="documents per worker process before it is recycled"
    )

    # the optional narrator: prose from an OpenAI-compatible model, verified against the figures
    narrator_url: str | None = Field(
        None,
        description="base URL of an OpenAI-compatible chat-completions API, e.g. "
        "http://vllm:8000/v1 (unset: template prose only)",
    )
    narrator_model: str = Field("", description="model name sent to the narrator API")
    narrator_api_key: SecretStr | None = Field(
        None, description="bearer token for the narrator API (never logged or stored)"
    )
    narrator_prompt_version: str = Field(
        "v1",
        pattern=r"^[0-9A-Za-z_.-]+$",
        description="prompt file services/renderer/prompts/narrate.<version>.<lang>.md",
    )
    narrator_timeout: float = Field(30.0, gt=0, description="seconds per narrator request")
    narrator_deadline: float = Field(
        90.0,
        gt=0,
        description="seconds for all narrator attempts of one report and language; "
        "then the template prose is used",
    )
    narrator_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="narrator requests per report and language (timeouts, 429 and 5xx are retried)",
    )
    narrator_backoff: float = Field(
        1.0, ge=0, description="first wait between narrator attempts in seconds (doubles)"
    )
    narrator_max_tokens: int = Field(2048, ge=64, description="the narrator answer's max_tokens")
    narrator_token_budget: int = Field(
        12000,
        ge=256,
        description="estimated prompt + answer tokens allowed per report and "
        "language; a larger prompt is not sent",
    )
    narrator_temperature: float = Field(0.2, ge=0, le=2)
    narrator_json_mode: bool = Field(
        True, description="ask for response_format json_object (turn off for servers without it)"
    )
    narrator_cache: bool = Field(
        True, description="cache answers in the artifact store under narrator-cache/"
    )
