"""Decentralised NATS auth for tests: operator, account and user NKeys and the JWTs that tie them
together (NATS JWT v2, as github.com/nats-io/jwt writes them: a `{"typ":"JWT","alg":"ed25519-nkey"}`
header, base64url without padding, `jti` the base32 SHA-512/256 of the standard claims with no
`jti`, the issuer's ed25519 signature of `header.payload`), and the `.creds` file a user logs in
with. Written here, by hand, so that the tests check our client settings against a nats-server in
operator mode without the `nsc` tool."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass

import nkeys

NO_LIMIT = -1


@dataclass(frozen=True)
class Identity:
    """An NKey pair: its seed (secret) and its public key."""

    seed: bytes
    public: str

    @classmethod
    def new(cls, prefix: int) -> Identity:
        seed = nkeys.encode_seed(os.urandom(32), prefix)
        return cls(seed, nkeys.from_seed(bytearray(seed)).public_key.decode())

    def sign(self, data: bytes) -> bytes:
        return nkeys.from_seed(bytearray(self.seed)).sign(data)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _json(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def encode(issuer: Identity, subject: str, name: str, nats: dict) -> str:
    """A JWT v2 of `nats` claims about `subject`, signed by `issuer`."""
    standard = {"iat": int(time.time()), "iss": issuer.public, "name": name, "sub": subject}
    # Go's json.Marshal of ClaimsData: fields in declaration order, jti before iat
    jti = (
        base64.b32encode(hashlib.new("sha512_256", _json(standard)).digest()).rstrip(b"=").decode()
    )
    claims = {"jti": jti, **standard, "nats": {**nats, "version": 2}}
    signed = f"{_b64(_json({'typ': 'JWT', 'alg': 'ed25519-nkey'}))}.{_b64(_json(claims))}"
    return f"{signed}.{_b64(issuer.sign(signed.encode()))}"


def decode_claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def operator_jwt(operator: Identity, system_account: str | None = None) -> str:
    nats: dict = {"type": "operator"}
    if system_account:
        nats["system_account"] = system_account
    return encode(operator, operator.public, "repodigest-test-operator", nats)


def account_jwt(operator: Identity, account: Identity, name: str, *, jetstream: bool) -> str:
    limits: dict = {
        "subs": NO_LIMIT,
        "data": NO_LIMIT,
        "payload": NO_LIMIT,
        "imports": NO_LIMIT,
        "exports": NO_LIMIT,
        "wildcards": True,
        "conn": NO_LIMIT,
        "leaf": NO_LIMIT,
    }
    if jetstream:  # a non-zero storage limit is what enables JetStream for the account
        limits |= {
            "mem_storage": NO_LIMIT,
            "disk_storage": NO_LIMIT,
            "streams": NO_LIMIT,
            "consumer": NO_LIMIT,
        }
    return encode(
        operator,
        account.public,
        name,
        {"limits": limits, "default_permissions": {"pub": {}, "sub": {}}, "type": "account"},
    )


def user_jwt(account: Identity, user: Identity, name: str) -> str:
    return encode(
        account,
        user.public,
        name,
        {
            "pub": {},
            "sub": {},
            "subs": NO_LIMIT,
            "data": NO_LIMIT,
            "payload": NO_LIMIT,
            "type": "user",
        },
    )


def creds(user_token: str, user: Identity) -> str:
    """A .creds file as `nsc` writes it (jwt.FormatUserConfig)."""
    return (
        f"-----BEGIN NATS USER JWT-----\n{user_token}\n------END NATS USER JWT------\n\n"
        "************************* IMPORTANT *************************\n"
        "NKEY Seed printed below can be used to sign and prove identity.\n"
        "NKEYs are sensitive and should be treated as secrets.\n\n"
        f"-----BEGIN USER NKEY SEED-----\n{user.seed.decode()}\n------END USER NKEY SEED------\n\n"
        "*************************************************************\n"
    )


@dataclass(frozen=True)
class Operator:
    """An operator, its system account and one account with JetStream, as nats-server config."""

    operator: Identity
    system: Identity
    account: Identity

    @classmethod
    def new(cls) -> Operator:
        return cls(
            Identity.new(nkeys.PREFIX_BYTE_OPERATOR),
            Identity.new(nkeys.PREFIX_BYTE_ACCOUNT),
            Identity.new(nkeys.PREFIX_BYTE_ACCOUNT),
        )

    def server_config(self) -> str:
        """Operator mode with a MEMORY resolver holding both accounts."""
        op = operator_jwt(self.operator, self.system.public)
        sys_jwt = account_jwt(self.operator, self.system, "SYS", jetstream=False)
        acc_jwt = account_jwt(self.operator, self.account, "REPODIGEST", jetstream=True)
        return (
            f'operator: "{op}"\n'
            f'system_account: "{self.system.public}"\n'
            "resolver: MEMORY\n"
            "resolver_preload: {\n"
            f'  {self.system.public}: "{sys_jwt}"\n'
            f'  {self.account.public}: "{acc_jwt}"\n'
            "}\n"
        )

    def user_creds(self, name: str = "repodigest") -> tuple[str, Identity]:
        """(.creds text, user) of a new user of the account."""
        user = Identity.new(nkeys.PREFIX_BYTE_USER)
        return creds(user_jwt(self.account, user, name), user), user
