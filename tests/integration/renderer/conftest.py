"""Fixtures for renderer integration tests: an S3 server (moto) and object stores of each kind."""

from __future__ import annotations

import uuid

import pytest

from services.renderer.adapters.pdf import PdfRenderer


@pytest.fixture
async def pdf_engine():
    """A started PDF renderer with one worker (closed after the test)."""
    engine = PdfRenderer(workers=1, timeout=180)
    engine.start()
    try:
        yield engine
    finally:
        engine.close()


@pytest.fixture
def s3_bucket(moto_s3, monkeypatch):
    """A fresh bucket on the moto server, with throwaway credentials; yields (endpoint, bucket)."""
    import boto3

    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    bucket = f"rd-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=moto_s3, region_name="us-east-1").create_bucket(Bucket=bucket)
    return moto_s3, bucket
