"""A websocket to an address no socket serves is refused at the handshake (the client reads
403), with nothing in the server's error log: scanners' probes fill no log with tracebacks."""

from __future__ import annotations

import logging

import pytest
from channels.testing import WebsocketCommunicator
from hostile_harness import ORIGIN

UNSERVED = ["/ws/foo/", "/", "/ws/", "/ws/game", "/ws/daily/x/", "/wp-admin/", "/static/x.js"]
UNSERVED += ["/ws/race/", "/ws/race/K7QX2M/extra/", "/ws/arena/", "/ws/%00/", "/ws/\u202e/"]
"""Probes, and addresses beside the sockets' own: no code, a part too many, no last slash."""


@pytest.mark.parametrize("path", UNSERVED)
async def test_an_address_no_socket_serves_is_refused_with_nothing_logged(path, caplog):
    """The handshake is refused (a close before the accept: Daphne answers 403), not a
    router's exception (a traceback and a 500)."""
    from solitaire_site.asgi import application

    caplog.set_level(logging.WARNING)
    communicator = WebsocketCommunicator(application, path, headers=[(b"origin", ORIGIN)])
    connected, _ = await communicator.connect(timeout=10)
    assert not connected
    await communicator.wait(timeout=1)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
