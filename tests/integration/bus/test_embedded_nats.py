"""The embedded nats-server picks its own port (`-p -1`, read from its log) instead of taking one
found free earlier, which another process could take in between; a restart keeps that port, so
clients reconnect to the address they know."""

from __future__ import annotations

import nats
import pytest

from shared.natsserver import EmbeddedNats, NatsServerError, listening_port
from tests.signals import Reconnects


def test_the_port_is_read_from_the_servers_log_line():
    line = "[5159] 2026/12/01 17:22:26.513795 [INF] Listening for client connections on 127.0.0.1:46607\n"
    assert listening_port(line) == 46607
    assert listening_port("[5159] 2026/12/01 17:22:26.513812 [INF] Server is ready") is None


async def test_servers_pick_their_ports_and_keep_them_across_a_restart(tmp_path):
    a, b = EmbeddedNats(store_dir=tmp_path / "a"), EmbeddedNats(store_dir=tmp_path / "b")
    with pytest.raises(NatsServerError):
        a.url  # noqa: B018 - the property raises: no port before the server picked one
    await a.start()
    try:
        await b.start()
        try:
            assert a.port and b.port and a.port != b.port
        finally:
            await b.stop()
        port = a.port
        reconnects = Reconnects()
        nc = await nats.connect(
            a.url,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.1,
            reconnected_cb=reconnects.on_reconnected,
        )
        try:
            await a.restart()
            assert a.port == port
            await reconnects.beyond(0, 30, "the client to reconnect to the restarted server")
            assert nc.is_connected
            assert nc.connected_url.port == port
            await nc.flush()
        finally:
            await nc.close()
    finally:
        await a.stop()
