"""The notifier reads a report's artifacts where the renderer put them — an S3 server (moto's,
over HTTP) and a directory — and refuses bytes that do not match the announced SHA-256."""

from __future__ import annotations

import hashlib

import pytest

from services.notifier.adapters.artifacts import ArtifactReader, ArtifactUnavailable
from shared.events import Artifact


def artifact(uri: str, key: str, data: bytes) -> Artifact:
    return Artifact(
        format="json",
        language="en",
        uri=uri,
        key=key,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        content_type="application/json",
    )


async def test_s3_and_file_artifacts_are_read_and_checked(moto_s3, tmp_path, monkeypatch):
    import boto3

    monkeypatch.delenv("AWS_PROFILE", raising=False)
    options = {
        "endpoint_url": moto_s3,
        "region_name": "us-east-1",
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
    }
    boto3.client("s3", **options).create_bucket(Bucket="reports")
    data = b'{"counts": {}}'
    key = "rd/reports/o/r/2026-W24/r1/en/report.json"
    boto3.client("s3", **options).put_object(Bucket="reports", Key=key, Body=data)
    reader = ArtifactReader(None, options)
    assert await reader.read(artifact(f"s3://reports/{key}", key, data)) == data
    with pytest.raises(ArtifactUnavailable, match="S3 read failed"):
        await reader.read(artifact("s3://reports/rd/missing.json", "missing.json", data))

    path = tmp_path / "report.json"
    path.write_bytes(data)
    assert await reader.read(artifact(path.as_uri(), "report.json", data)) == data
    path.write_bytes(b'{"counts": {"changed": 1}}')  # replaced after it was announced
    with pytest.raises(ArtifactUnavailable, match="do not match the SHA-256"):
        await reader.read(artifact(path.as_uri(), "report.json", data))
