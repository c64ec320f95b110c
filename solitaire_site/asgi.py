"""The ASGI application Daphne serves: HTTP (static files, then Django) and websockets.

Websockets pass the Origin check against ALLOWED_HOSTS (read once, when this module is
imported), then get the session and user in their scope (games/sockets.py,
`SocketAuthMiddlewareStack`: Channels' stack without its wrapper around every frame sent, the
user read when the consumer first asks),
then the URL router of solitaire_site/routing.py.
"""

import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solitaire_site.settings")

# Django must be set up before anything imports models (the consumers do). Its HTTP side runs
# each request in one hop to a pool of threads (solitaire_site/http_handler.py).
from solitaire_site.http_handler import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from games.sockets import SocketAuthMiddlewareStack  # noqa: E402
from solitaire_site.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # ASGIStaticFilesHandler answers /static/ from the staticfiles finders (in DEBUG and out
        # of it) and hands every other request to Django.
        "http": ASGIStaticFilesHandler(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            SocketAuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# What is loaded by now lives as long as the process: out of the cyclic garbage collector's
# sight, so it does not trace the same long-lived objects again and again; and a young
# generation of 50,000 objects before a collection instead of 700 (docs/performance.md).
gc.freeze()
gc.set_threshold(50_000, 20, 20)
