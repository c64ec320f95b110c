"""The session and user of a websocket's scope, without Channels' wrapper around `send`.

Channels' `SessionMiddleware` wraps `send` so that an HTTP response saves a modified session
and sets its cookie. A websocket message never does either (only `http.response.start` is
saved on), yet the wrapper looked at the lazy session on every frame a socket sent: a few per
cent of a Daphne's CPU under load (docs/performance.md). Sockets read the session; pages write
it.
"""

from __future__ import annotations

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware


class SocketSessionMiddleware(SessionMiddleware):
    """`SessionMiddleware` for websockets: the session in the scope, `send` passed as it is."""

    async def __call__(self, scope, receive, send):
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def SocketAuthMiddlewareStack(inner):  # noqa: N802 (named like Channels' AuthMiddlewareStack)
    """Cookies, the session (read only) and the user, as `AuthMiddlewareStack` gives them."""
    return CookieMiddleware(SocketSessionMiddleware(AuthMiddleware(inner)))
