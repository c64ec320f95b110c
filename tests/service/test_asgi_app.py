"""The ASGI application: static files and pages over HTTP, websockets behind the origin check."""

from __future__ import annotations

import pytest
from channels.testing import HttpCommunicator

from solitaire_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

HOST = [(b"host", b"localhost")]


async def get(path: str) -> dict:
    """Status, headers and body of a GET (the last body message may omit "body", as ASGI allows,
    which HttpCommunicator.get_response does not accept)."""
    communicator = HttpCommunicator(application, "GET", path, headers=HOST)
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(5)
    body = b""
    while True:
        chunk = await communicator.receive_output(5)
        body += chunk.get("body", b"")
        if not chunk.get("more_body", False):
            break
    await communicator.wait()
    return {"status": start["status"], "headers": start.get("headers", []), "body": body}


async def test_static_files_are_served_by_the_asgi_app():
    """/static/ is answered by the application itself (no separate file server needed)."""
    response = await get("/static/js/board.js")
    assert response["status"] == 200
    assert b"Board" in response["body"]
    headers = dict(response["headers"])
    assert headers[b"Content-Type"].startswith(b"text/javascript")


async def test_a_missing_static_file_is_404():
    """A static path that does not exist is a 404, not a crash."""
    response = await get("/static/js/nope.js")
    assert response["status"] == 404


async def test_pages_are_served_through_django():
    """Other paths go to Django."""
    response = await get("/healthz")
    assert response["status"] == 200 and response["body"] == b'{"ok": true}'


async def test_a_socket_gets_the_session_and_user_and_sends_unwrapped():
    """The websocket stack puts the session and the user in the scope and hands the consumer
    the server's own `send`: a socket never saves the session, so nothing looks at it on every
    frame (games/sockets.py)."""
    from games.sockets import SocketAuthMiddlewareStack

    seen = {}

    async def consumer(scope, receive, send):
        seen.update(scope=scope, send=send)

    async def server_send(message):
        pass

    scope = {"type": "websocket", "path": "/ws/game/x/", "headers": HOST, "query_string": b""}
    await SocketAuthMiddlewareStack(consumer)(scope, None, server_send)
    assert seen["send"] is server_send
    assert "session" in seen["scope"] and "user" in seen["scope"]
    assert not seen["scope"]["user"].is_authenticated


async def test_a_socket_s_handshake_reads_nothing_and_its_user_is_read_when_asked_for(
    client, django_user_model, statements
):
    """A crowd of sockets opening at once (an arena's racers) must not queue behind one thread
    for their sessions: the handshake reads nothing, and the consumer's first question, off the
    event loop, reads the session and the signed-in user (with Channels' own checks)."""
    from asgiref.sync import sync_to_async
    from django.conf import settings

    from games.sockets import SocketAuthMiddlewareStack
    from games.storage import off_loop

    user = await sync_to_async(django_user_model.objects.create_user)("ann", password="pw")
    await sync_to_async(client.force_login)(user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    seen = {}

    async def consumer(scope, receive, send):
        seen["at_handshake"] = statements()
        seen["user"] = await off_loop(lambda: scope["user"].pk)()  # as the consumers ask

    scope = {
        "type": "websocket",
        "path": "/ws/game/x/",
        "headers": [*HOST, (b"cookie", cookie.encode())],
        "query_string": b"",
    }
    statements()
    await SocketAuthMiddlewareStack(consumer)(scope, None, None)
    assert seen == {"at_handshake": 0, "user": user.pk}
