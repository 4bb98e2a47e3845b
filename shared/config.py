"""Settings shared by every service (pydantic-settings, `REPODIGEST_` environment variables).

Settings objects are built only in composition roots (`__main__.py`, the CLI), never at import.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    import ssl


class CommonSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="REPODIGEST_", env_file=None, extra="ignore")

    nats_url: str = Field("nats://127.0.0.1:4222", description="NATS server(s), comma-separated")
    nats_user: str | None = None
    nats_password: SecretStr | None = None
    nats_token: SecretStr | None = None
    # TLS: a CA bundle to verify the server (else the system's), and a client certificate and key
    # where the server asks for one; a tls:// URL alone is TLS against the system's CAs
    nats_tls_ca: str | None = Field(
        None, description="PEM file of the CA that signed the server's certificate"
    )
    nats_tls_cert: str | None = Field(None, description="PEM client certificate (mutual TLS)")
    nats_tls_key: str | None = Field(None, description="PEM private key of the client certificate")
    # decentralised auth: a .creds file (user JWT + seed), or an NKey seed file; they come
    # before a user/password or a token
    nats_creds: str | None = Field(None, description="NATS credentials file (.creds)")
    nats_nkey: str | None = Field(None, description="file holding an NKey user seed (SU...)")
    nats_connect_timeout: float = 5.0
    jetstream_replicas: int = Field(1, ge=1, le=5)
    # every process declares the streams, so every process knows the count (one ConfigMap key);
    # a stream partitioned otherwise is refused, never silently re-dealt (topology.py)
    summarizer_partitions: int = Field(
        1,
        ge=1,
        le=64,  # shared.messaging.partitions.MAX_PARTITIONS
        description="summarizer replicas, each folding its partition of the repositories "
        "(RD_ENRICHED and RD_REPORTS deal them out by a subject transform); the same on "
        "every service and the CLI; 1: no partitions",
    )
    log_level: str = "INFO"
    log_json: bool = False
    health_port: int | None = Field(
        None,
        ge=0,
        le=65535,
        description="serve /healthz, /readyz and /metrics on this port (0: "
        "one the system picks, logged as 'health endpoints on http://HOST:PORT'); unset: none",
    )
    health_host: str = Field(
        "127.0.0.1",
        description="interface /healthz, /readyz and /metrics bind to; 0.0.0.0 "
        "where probes or Prometheus come from outside (a Kubernetes pod)",
    )

    @model_validator(mode="after")
    def _tls_pair(self) -> CommonSettings:
        if bool(self.nats_tls_cert) != bool(self.nats_tls_key):
            raise ValueError(
                "REPODIGEST_NATS_TLS_CERT and REPODIGEST_NATS_TLS_KEY go together: "
                "set both (a client certificate and its key) or neither"
            )
        return self

    def servers(self) -> list[str]:
        return [s.strip() for s in self.nats_url.split(",") if s.strip()]

    def nats_tls(self) -> bool:
        return bool(
            self.nats_tls_ca
            or self.nats_tls_cert
            or any(s.lower().startswith("tls://") for s in self.servers())
        )

    def nats_ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for NATS, or None for plain connections.

        Raises NatsSettingsError naming the variable whose file cannot be used."""
        import ssl

        if not self.nats_tls():
            return None
        try:
            ctx = ssl.create_default_context(cafile=self.nats_tls_ca)
        except (OSError, ssl.SSLError) as exc:
            raise NatsSettingsError(
                f"REPODIGEST_NATS_TLS_CA={self.nats_tls_ca}: cannot use it "
                f"as a CA bundle ({_reason(exc)})"
            ) from None
        if self.nats_tls_cert and self.nats_tls_key:
            try:
                ctx.load_cert_chain(self.nats_tls_cert, self.nats_tls_key)
            except (OSError, ssl.SSLError) as exc:
                raise NatsSettingsError(
                    f"REPODIGEST_NATS_TLS_CERT={self.nats_tls_cert} / REPODIGEST_NATS_TLS_KEY="
                    f"{self.nats_tls_key}: cannot load the client certificate ({_reason(exc)})"
                ) from None
        return ctx

    def nats_auth_files(self) -> None:
        """Check the credentials or NKey seed file before connecting: readable, and holding what
        nats-py needs (a .creds file: a user JWT and the user's seed, the one the JWT is about;
        an NKey file: a user seed). nats-py fails on anything else with a TypeError, or reads a
        .creds file without a JWT block for ever. Messages name the variable and the file, never
        what the file holds."""
        for var, path in (
            ("REPODIGEST_NATS_CREDS", self.nats_creds),
            ("REPODIGEST_NATS_NKEY", self.nats_nkey),
        ):
            if path:
                try:
                    with open(path, "rb") as f:
                        content = f.read()
                except OSError as exc:
                    raise NatsSettingsError(
                        f"{var}={path}: cannot read it ({_reason(exc)})"
                    ) from None
                problem = (
                    _creds_problem(content)
                    if var == "REPODIGEST_NATS_CREDS"
                    else _seed_problem(content.strip())
                )
                if problem:
                    raise NatsSettingsError(f"{var}={path}: {problem}")


def _block(content: bytes, begin: bytes) -> bytes | None:
    """The line after the `-----BEGIN ...-----` line naming `begin` (how nats-py reads a .creds
    file), or None."""
    lines = content.splitlines()
    for i, line in enumerate(lines):
        if begin in line:
            return lines[i + 1].strip() if i + 1 < len(lines) else b""
    return None


def _user_key(seed: bytes) -> str | None:
    """The public key of a user seed, or None when it is not one."""
    import nkeys

    if not seed.startswith(b"SU"):
        return None
    try:
        return nkeys.from_seed(bytearray(seed)).public_key.decode()
    except Exception:  # noqa: BLE001 - nkeys raises several kinds for a damaged seed
        return None


def _seed_problem(seed: bytes) -> str | None:
    if _user_key(seed) is None:
        return (
            "not an NKey user seed (a file holding one line, SU...; nsc or nk -gen user make one)"
        )
    return None


def _creds_problem(content: bytes) -> str | None:
    import base64

    shape = (
        "not a NATS credentials file (a user JWT between -----BEGIN NATS USER JWT----- "
        "lines, then the user's NKey seed, as nsc writes it)"
    )
    token, seed = _block(content, b"BEGIN NATS USER JWT"), _block(content, b"BEGIN USER NKEY SEED")
    if not token or not seed:
        return shape
    try:
        payload = token.split(b".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + b"=" * (-len(payload) % 4)))
        subject = claims["sub"]
    except (IndexError, ValueError, KeyError, TypeError):
        return shape + ": its JWT cannot be read"
    public = _user_key(seed)
    if public is None:
        return shape + ": its seed is not an NKey user seed"
    if public != subject:
        return "its seed is not the key of the user its JWT is about (a JWT and a seed of different users)"
    return None


class NatsSettingsError(ValueError):
    """A NATS TLS or credentials setting names a file that cannot be used."""


def _reason(exc: BaseException) -> str:
    return (
        getattr(exc, "strerror", None)
        or getattr(exc, "reason", None)
        or str(exc)
        or type(exc).__name__
    )


def split_list(value: object) -> object:
    """A list setting from the environment: comma-separated (`a/b, c/d`) or a JSON list."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value
