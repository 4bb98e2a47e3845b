"""Notifier settings: the routes (where each repository's digests go) and how hard to try.

Routes come from REPODIGEST_NOTIFIER_ROUTES (a JSON list) and/or REPODIGEST_NOTIFIER_ROUTES_FILE
(a YAML or JSON file holding a list, e.g. a mounted Kubernetes Secret). Webhook URLs carry their
token in the URL, so they are secrets like the SMTP password and the GitHub token: SecretStr,
never logged, never in a dead letter.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from shared.config import CommonSettings

WindowKind = Literal["day", "week", "month", "custom"]
ALL_KINDS: tuple[WindowKind, ...] = ("day", "week", "month", "custom")


class _Route(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # part of the idempotency key: renaming a route makes it a new route (it posts again)
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$")
    repos: tuple[str, ...] = Field(
        ("*",), description="owner/name patterns (fnmatch: vllm-project/*), any of them"
    )
    windows: tuple[WindowKind, ...] = ALL_KINDS
    language: str | None = Field(
        None, description="the report language to digest (default: the report's first)"
    )
    synthetic: bool = Field(False, description="also post reports made from synthetic data")

    def matches(self, repo: str, window_kind: str, synthetic: bool) -> bool:
        return (
            (self.synthetic or not synthetic)
            and window_kind in self.windows
            and any(fnmatchcase(repo.lower(), p.lower()) for p in self.repos)
        )

    def secrets(self) -> list[str]:
        return [
            v.get_secret_value()
            for v in self.__dict__.values()
            if isinstance(v, SecretStr) and v.get_secret_value()
        ]


class WebhookRoute(_Route):
    """Slack, Discord or Microsoft Teams (Workflows) incoming webhook."""

    kind: Literal["slack", "discord", "teams"]
    url: SecretStr


class EmailRoute(_Route):
    kind: Literal["email"]
    smtp_host: str
    smtp_port: int = Field(587, ge=1, le=65535)
    smtp_security: Literal["starttls", "tls", "none"] = "starttls"
    smtp_user: str | None = None
    smtp_password: SecretStr | None = None
    mail_from: str
    mail_to: tuple[str, ...] = Field(min_length=1)
    attach_pdf: bool = True

    @model_validator(mode="after")
    def _login(self) -> EmailRoute:
        if bool(self.smtp_user) != bool(self.smtp_password):
            raise ValueError(f"route {self.name}: smtp_user and smtp_password go together")
        return self


class GithubRoute(_Route):
    """A comment on an issue (or pull request) or on a Discussion, through PyGithub."""

    kind: Literal["github"]
    target: Literal["issue", "discussion"] = "issue"
    number: int = Field(ge=1)
    repo: str | None = Field(
        None,
        pattern=r"^[^/\s]+/[^/\s]+$",
        description="where to comment (default: the report's repository)",
    )
    token: SecretStr | None = Field(None, description="default: REPODIGEST_GITHUB_TOKEN")
    api_url: str | None = Field(None, description="default: REPODIGEST_GITHUB_API_URL")


Route = Annotated[WebhookRoute | EmailRoute | GithubRoute, Field(discriminator="kind")]
_ROUTES = TypeAdapter(list[Route])


class NotifierSettings(CommonSettings):
    """`REPODIGEST_*` environment variables for the notifier service."""

    notifier_routes: list[Route] = Field(
        default_factory=list, description="JSON list of routes (see services/notifier/README.md)"
    )
    notifier_routes_file: str | None = Field(
        None, description="YAML or JSON file with a list of routes (added to NOTIFIER_ROUTES)"
    )
    notifier_public_base_url: str | None = Field(
        None,
        description="public base URL of the artifacts: links are <base>/<artifact key> "
        "(unset: links only where the artifact URI is http(s))",
    )
    notifier_storylines: int = Field(3, ge=0, le=10, description="storylines in a digest")
    notifier_attempts: int = Field(
        5, ge=1, le=20, description="posts per route and delivery (5xx, 429, timeouts retried)"
    )
    notifier_backoff: float = Field(
        1.0,
        ge=0,
        description="first wait between attempts (s), "
        "doubling, with jitter; a Retry-After is honoured instead",
    )
    notifier_backoff_max: float = Field(60.0, gt=0, description="longest wait between attempts")
    notifier_timeout: float = Field(15.0, gt=0, description="seconds per request")
    notifier_deadline: float = Field(
        300.0,
        gt=0,
        le=540,
        description="seconds for one route's attempts in one delivery; "
        "then the report is redelivered later (the consumer's ack_wait is 600 s)",
    )
    notifier_attach_max_bytes: int = Field(
        10_000_000, ge=0, description="larger PDFs are linked, not attached, in e-mails"
    )
    github_token: SecretStr | None = Field(None, description="token for GitHub routes")
    github_api_url: str = "https://api.github.com"
    # reading artifacts (report.json, report.html, report.pdf) where the renderer put them
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    s3_access_key_id: str | None = None
    s3_secret_access_key: SecretStr | None = None

    def routes(self) -> list[WebhookRoute | EmailRoute | GithubRoute]:
        """Every route, from the variable and the file; names must be unique."""
        routes = list(self.notifier_routes)
        if self.notifier_routes_file:
            routes += load_routes_file(self.notifier_routes_file)
        seen: set[str] = set()
        for route in routes:
            if route.name in seen:
                raise ValueError(
                    f"two notifier routes are named {route.name!r}: names key "
                    "what was posted, so each must be unique"
                )
            seen.add(route.name)
        return routes

    def secrets(self) -> list[str]:
        out = [
            s.get_secret_value()
            for s in (
                self.github_token,
                self.s3_secret_access_key,
                self.nats_password,
                self.nats_token,
            )
            if s
        ]
        for route in self.routes():
            out += route.secrets()
        return [s for s in out if s]


def load_routes_file(path: str) -> list[WebhookRoute | EmailRoute | GithubRoute]:
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(
            f"REPODIGEST_NOTIFIER_ROUTES_FILE={path}: cannot read it ({exc.strerror or exc})"
        ) from None
    try:
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
        return _ROUTES.validate_python(data or [])
    except ValidationError as exc:
        raise ValueError(
            f"REPODIGEST_NOTIFIER_ROUTES_FILE={path}: not a list of routes: {describe(exc)}"
        ) from None
    except (ValueError, yaml.YAMLError) as exc:
        raise ValueError(
            f"REPODIGEST_NOTIFIER_ROUTES_FILE={path}: cannot parse it ({type(exc).__name__})"
        ) from None


def describe(exc: ValidationError) -> str:
    """What is wrong, by field, WITHOUT the input values: pydantic's own message repeats the
    input (a route's webhook URL and password with it), which must not reach a log."""
    from shared.bootstrap import validation_problems  # the services' one way of saying it

    return "; ".join(validation_problems(exc))
