"""NATS over TLS (a CA, mutual TLS, a tls:// URL) and NKey logins, for the services' broker and the
CLI's connection alike, against a real nats-server started with a certificate made here."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from pathlib import Path

import pytest

from shared.config import CommonSettings
from shared.natsclient import connect
from shared.natsserver import EmbeddedNats, free_port
from shared.service import NatsUnreachable, Runtime

pytestmark = pytest.mark.timeout(120)


def _write_key(key, path: Path) -> str:
    from cryptography.hazmat.primitives import serialization

    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(path)


def _cert(subject: str, key, issuer_key, issuer_name=None, *, ca: bool = False, san=None):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    else:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
    if san:
        builder = builder.add_extension(x509.SubjectAlternativeName(san), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


@pytest.fixture
def pki(tmp_path) -> dict[str, str]:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    def pem(cert, name: str) -> str:
        (tmp_path / name).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        return str(tmp_path / name)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("repodigest test CA", ca_key, ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = _cert(
        "127.0.0.1",
        server_key,
        ca_key,
        ca.subject,
        san=[x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")],
    )
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = _cert("repodigest client", client_key, ca_key, ca.subject)
    other_key = ec.generate_private_key(ec.SECP256R1())
    other_ca = _cert("some other CA", other_key, other_key, ca=True)
    return {
        "ca": pem(ca, "ca.pem"),
        "server": pem(server, "server.pem"),
        "server_key": _write_key(server_key, tmp_path / "server.key"),
        "client": pem(client, "client.pem"),
        "client_key": _write_key(client_key, tmp_path / "client.key"),
        "other_ca": pem(other_ca, "other-ca.pem"),
    }


async def _round_trip_cli(settings: CommonSettings) -> None:
    nc = await connect(settings)
    try:
        assert nc.is_connected
        sub = await nc.subscribe("rd.test.ping")
        await nc.publish("rd.test.ping", b"pong")
        assert (await sub.next_msg(timeout=5)).data == b"pong"
    finally:
        await nc.close()


async def _runtime_starts(settings: CommonSettings) -> None:
    """The services' broker connects and declares the JetStream topology."""
    runtime = Runtime(settings, "tls-test")
    await runtime.start()
    try:
        js = runtime.js
        assert (await js.stream_info("RD_REPORTS")).config.name == "RD_REPORTS"
    finally:
        await runtime.stop()


async def test_tls_with_a_ca_for_the_cli_and_the_services(pki, tmp_path):
    async with EmbeddedNats(
        store_dir=tmp_path / "js", tls=(pki["server"], pki["server_key"])
    ) as server:
        for url in (server.tls_url, server.url):  # tls://, or nats:// upgraded by the CA setting
            settings = CommonSettings(nats_url=url, nats_tls_ca=pki["ca"])
            await _round_trip_cli(settings)
            await _runtime_starts(settings)
        # a certificate no configured CA signed is refused, with the cause in the message
        wrong = CommonSettings(
            nats_url=server.tls_url, nats_tls_ca=pki["other_ca"], nats_connect_timeout=2
        )
        # the cause (for the services: on the handshake's failure, not "no answer" after the
        # connect time-out), and which setting to fix
        for attempt in (connect(wrong), _runtime_starts(wrong)):
            with pytest.raises(NatsUnreachable) as refused:
                await attempt
            assert "TLS certificate is not trusted" in str(refused.value)
            assert "REPODIGEST_NATS_TLS_CA" in str(refused.value)
            assert "Start a nats-server" not in str(refused.value)


async def test_a_refused_port_is_said_at_once_by_the_cli_and_the_services():
    """Issue #17 item 4: "connection refused" at once, not "TimeoutError" after ~12 s."""
    settings = CommonSettings(nats_url=f"nats://127.0.0.1:{free_port()}")
    for attempt in (connect(settings), _runtime_starts(settings)):
        with pytest.raises(NatsUnreachable, match="connection refused") as refused:
            await attempt
        assert "TimeoutError" not in str(refused.value) and "no answer" not in str(refused.value)


async def test_mutual_tls_needs_the_client_certificate(pki, tmp_path):
    async with EmbeddedNats(
        store_dir=tmp_path / "js", tls=(pki["server"], pki["server_key"]), tls_verify_ca=pki["ca"]
    ) as server:
        settings = CommonSettings(
            nats_url=server.tls_url,
            nats_tls_ca=pki["ca"],
            nats_tls_cert=pki["client"],
            nats_tls_key=pki["client_key"],
        )
        await _round_trip_cli(settings)
        await _runtime_starts(settings)
        with pytest.raises(NatsUnreachable):
            await connect(
                CommonSettings(
                    nats_url=server.tls_url, nats_tls_ca=pki["ca"], nats_connect_timeout=2
                )
            )


def test_tls_and_credential_files_that_cannot_be_used_are_named(pki, tmp_path):
    with pytest.raises(ValueError, match="REPODIGEST_NATS_TLS_CERT and REPODIGEST_NATS_TLS_KEY"):
        CommonSettings(nats_tls_cert=pki["client"])
    missing = str(tmp_path / "nope.pem")
    with pytest.raises(NatsUnreachable, match="REPODIGEST_NATS_TLS_CA=.*nope.pem"):
        Runtime(CommonSettings(nats_tls_ca=missing), "tls-test")
    with pytest.raises(NatsUnreachable, match="REPODIGEST_NATS_NKEY=.*nope.pem"):
        Runtime(CommonSettings(nats_nkey=missing), "tls-test")
    with pytest.raises(NatsUnreachable, match="REPODIGEST_NATS_CREDS=.*nope.pem"):
        Runtime(CommonSettings(nats_creds=missing), "tls-test")
    # a file that is there but holds no user seed (here a public key) is named, not sent
    public = tmp_path / "public.nk"
    public.write_text("UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4\n")
    with pytest.raises(
        NatsUnreachable, match="REPODIGEST_NATS_NKEY=.*public.nk: not an NKey user seed"
    ) as bad:
        Runtime(CommonSettings(nats_nkey=str(public)), "tls-test")
    assert "UDXU4" not in str(bad.value)  # what the file holds is never repeated


def test_the_settings_come_from_the_environment(monkeypatch, pki, tmp_path):
    monkeypatch.setenv("REPODIGEST_NATS_TLS_CA", pki["ca"])
    monkeypatch.setenv("REPODIGEST_NATS_TLS_CERT", pki["client"])
    monkeypatch.setenv("REPODIGEST_NATS_TLS_KEY", pki["client_key"])
    monkeypatch.setenv("REPODIGEST_NATS_CREDS", str(tmp_path / "u.creds"))
    monkeypatch.setenv("REPODIGEST_NATS_NKEY", str(tmp_path / "u.nk"))
    s = CommonSettings()
    assert (s.nats_tls_ca, s.nats_tls_cert, s.nats_tls_key) == (
        pki["ca"],
        pki["client"],
        pki["client_key"],
    )
    assert s.nats_creds.endswith("u.creds") and s.nats_nkey.endswith("u.nk")


@pytest.fixture
def nkey_user(tmp_path) -> tuple[str, str]:
    """(public key, seed file) of a new NKey user."""
    import nkeys

    seed = nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER)
    public = nkeys.from_seed(bytearray(seed)).public_key.decode()
    path = tmp_path / "user.nk"
    path.write_bytes(seed + b"\n")
    return public, str(path)


async def test_nkey_login_for_the_cli_and_the_services(nkey_user, tmp_path):
    public, seed_file = nkey_user
    config = f'authorization {{ users = [ {{ nkey: "{public}" }} ] }}\n'
    async with EmbeddedNats(store_dir=tmp_path / "js", config=config) as server:
        settings = CommonSettings(nats_url=server.url, nats_nkey=seed_file)
        await _round_trip_cli(settings)
        await _runtime_starts(settings)
        # without the seed the server refuses, and the message says which settings log in
        anonymous = CommonSettings(nats_url=server.url, nats_connect_timeout=2)
        with pytest.raises(NatsUnreachable, match="refused the login.*REPODIGEST_NATS_NKEY"):
            await connect(anonymous)
        with pytest.raises(NatsUnreachable, match="refused the login.*REPODIGEST_NATS_NKEY"):
            await _runtime_starts(anonymous)
