"""Ingest settings: which repositories to poll, GitHub credentials, webhooks, an offline backfill."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from shared.config import CommonSettings, split_list
from shared.events import check_repo


class IngestSettings(CommonSettings):
    """`REPODIGEST_*` environment variables for the ingest service.

    `repos` accepts a comma-separated list (`REPODIGEST_REPOS=vllm-project/vllm,owner/name`) or a
    JSON list.
    """

    repos: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="repositories to poll on GitHub, OWNER/NAME, comma-separated",
    )
    poll_interval: float = Field(
        300.0, gt=0, description="seconds between two polls of one repository"
    )
    poll_backfill_days: float | None = Field(
        14.0,
        ge=0,
        description="how far back the first poll of a repository reads (days); "
        "empty or 0: its whole history",
    )
    github_token: SecretStr | None = Field(
        None, description="GitHub token (fine-grained: read-only Pull requests, Issues, Metadata)"
    )
    github_api_url: str = Field(
        "https://api.github.com",
        description="GitHub REST API base URL (GitHub Enterprise: https://HOST/api/v3)",
    )
    github_per_page: int = Field(100, ge=1, le=100, description="page size for GitHub listings")
    github_graphql_backfill: bool = Field(
        True,
        description="the poller's first sync of a repository reads its pull requests "
        "through GitHub GraphQL (50 with their files per request; needs a token), then REST",
    )
    webhook_enabled: bool = Field(False, description="serve the GitHub webhook endpoint")
    webhook_secret: SecretStr | None = Field(
        None, description="secret configured on the GitHub webhook (X-Hub-Signature-256)"
    )
    webhook_host: str = Field("0.0.0.0", description="interface the webhook endpoint binds to")
    webhook_port: int = Field(
        8080, ge=0, le=65535, description="port of the webhook endpoint (0: any free port)"
    )
    webhook_path: str = Field("/webhooks/github", description="path of the webhook endpoint")
    # what unauthenticated clients can make the endpoint hold (bodies are read before the
    # signature can be checked)
    webhook_max_body: int = Field(
        25 * 1024 * 1024,
        ge=1024,
        le=25 * 1024 * 1024,
        description="largest delivery body in bytes (GitHub's own cap: 25 MB); larger: 413",
    )
    webhook_max_bodies: int = Field(
        4,
        ge=1,
        description="bodies received at once (memory: this times the largest body); "
        "more: 503 with Retry-After",
    )
    webhook_max_connections: int = Field(
        64, ge=1, description="open connections to the webhook endpoint; more are closed at once"
    )
    webhook_header_timeout: float = Field(
        10.0, gt=0, description="seconds a request's headers may take; slower: 408, closed"
    )
    webhook_body_timeout: float = Field(
        30.0, gt=0, description="seconds a request's body may take; slower: 408"
    )
    webhook_idle_timeout: int = Field(
        5, ge=1, description="seconds a kept-alive connection may idle between requests"
    )
    backfill_source: str | None = Field(
        None,
        description="source published once at start-up: demo, replay:PATH, "
        "events:PATH, gharchive:PATH (a file or a glob of hour files), git:PATH, github (one "
        "REST sync of REPODIGEST_BACKFILL_REPO) or github-graphql (its pull requests through "
        "GraphQL, 50 with their files per request, then one REST sync)",
    )
    backfill_repo: str | None = Field(
        None,
        description="repository the backfill is filtered to (default: the source's own, "
        "or the only one in it)",
    )
    demo_week: str = Field(
        "2026-W24", description="ISO week the demo source generates (plus the week before it)"
    )
    demo_seed: int = Field(7, description="seed of the demo generator")

    @field_validator("repos", mode="before")
    @classmethod
    def _split(cls, v: object) -> object:
        return split_list(v)

    @field_validator("repos")
    @classmethod
    def _check(cls, v: list[str]) -> list[str]:
        return [check_repo(r) for r in v]

    @field_validator("backfill_repo")
    @classmethod
    def _check_one(cls, v: str | None) -> str | None:
        return None if not v else check_repo(v)
