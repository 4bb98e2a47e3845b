"""Settings shared by every service (pydantic-settings, `REPODIGEST_` environment variables).

Settings objects are built only in composition roots (`__main__.py`, the CLI), never at import.
"""

from __future__ import annotations

import json

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class CommonSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="REPODIGEST_", env_file=None, extra="ignore")

    nats_url: str = Field("nats://127.0.0.1:4222", description="NATS server(s), comma-separated")
    nats_user: str | None = None
    nats_password: SecretStr | None = None
    nats_token: SecretStr | None = None
    nats_connect_timeout: float = 5.0
    jetstream_replicas: int = Field(1, ge=1, le=5)
    log_level: str = "INFO"
    log_json: bool = False
    health_port: int | None = Field(None, description="serve /healthz and /readyz on this port")
    health_host: str = Field(
        "127.0.0.1", description="interface /healthz, /readyz and /metrics bind to; 0.0.0.0 "
        "where probes or Prometheus come from outside (a Kubernetes pod)")

    def servers(self) -> list[str]:
        return [s.strip() for s in self.nats_url.split(",") if s.strip()]


def split_list(value: object) -> object:
    """A list setting from the environment: comma-separated (`a/b, c/d`) or a JSON list."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value
