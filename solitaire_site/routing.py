"""Every app's websocket routes, in one list that asgi.py routes: add an app's list here."""

from arenas.routing import websocket_urlpatterns as arenas_websocket_urlpatterns
from daily.routing import websocket_urlpatterns as daily_websocket_urlpatterns
from games.routing import websocket_urlpatterns as games_websocket_urlpatterns
from races.routing import websocket_urlpatterns as races_websocket_urlpatterns

websocket_urlpatterns = [
    *games_websocket_urlpatterns,
    *races_websocket_urlpatterns,
    *daily_websocket_urlpatterns,
    *arenas_websocket_urlpatterns,
]
