"""Every app's websocket routes, in one list that asgi.py routes: add an app's list here (above
the last route, which refuses every address no socket serves)."""

from django.urls import re_path

from arenas.routing import websocket_urlpatterns as arenas_websocket_urlpatterns
from daily.routing import websocket_urlpatterns as daily_websocket_urlpatterns
from games.routing import websocket_urlpatterns as games_websocket_urlpatterns
from races.routing import websocket_urlpatterns as races_websocket_urlpatterns


async def no_socket_here(scope, receive, send) -> None:
    """A websocket to an address no socket serves: the handshake is refused (a close before the
    accept, which Daphne answers with 403), as Channels' own `WebsocketDenier` refuses a foreign
    Origin, but with no channel of its own on the layer's Redis and no hop to the database
    thread for a scanner's probe. Without it Channels' router raises: a traceback in the log
    and a 500 for each probe (Channels' issue 2147)."""
    await receive()  # websocket.connect
    await send({"type": "websocket.close"})


websocket_urlpatterns = [
    *games_websocket_urlpatterns,
    *races_websocket_urlpatterns,
    *daily_websocket_urlpatterns,
    *arenas_websocket_urlpatterns,
    re_path("", no_socket_here),
]
