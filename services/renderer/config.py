"""Renderer settings: where artifacts go (NATS object store, S3, a directory) and PDF workers."""

from __future__ import annotations

from pydantic import Field, SecretStr

from shared.config import CommonSettings


class RendererSettings(CommonSettings):
    """`REPODIGEST_*` environment variables for the renderer service."""

    artifacts_url: str = Field(
        "nats", description="where reports are stored: nats (the RD_ARTIFACTS object store), "
        "s3://bucket/prefix[?endpoint_url=...&region=...&addressing_style=path], "
        "file:///abs/path or a directory path")
    s3_endpoint_url: str | None = Field(
        None, description="S3-compatible endpoint, e.g. http://minio:9000 (unset for AWS)")
    s3_region: str | None = Field(None, description="S3 region, e.g. us-east-1")
    s3_access_key_id: str | None = Field(
        None, description="S3 access key id (unset: boto3's chain: env, profile, instance role)")
    s3_secret_access_key: SecretStr | None = None
    s3_session_token: SecretStr | None = None
    s3_addressing_style: str | None = Field(
        None, description="'path' for MinIO and most S3-compatible servers")
    s3_max_attempts: int = Field(
        5, ge=1, le=20, description="attempts per S3 call (boto3 retries) before the report "
        "is nacked and redelivered with backoff")
    pdf_workers: int = Field(1, ge=1, le=16, description="WeasyPrint worker processes")
    pdf_timeout: float = Field(300.0, gt=0, description="seconds one PDF may take")
    pdf_max_tasks_per_child: int = Field(
        50, ge=1, description="documents per worker process before it is recycled")
