"""Django's HTTP side under ASGI, with one thread hop a request on a fixed pool of threads.

Django's own ASGIHandler runs sync code through asgiref one piece at a time: each middleware's
`process_request` and `process_response`, the CSRF check, the view, the `request_started` and
`request_finished` signals each hop from the event loop to a thread and back (about sixteen
hops a request with this project's middleware), and each request gets a new thread of its own
(`ThreadSensitiveContext`); what that costs is in docs/performance.md.

`OneHopASGIHandler` reads the body on the event loop, then runs the rest in one call on
`HTTP_THREADS` long-lived threads, as Django's WSGI handler does: the middleware chain built for
sync code, the view, and the response's close (`request_finished`: the thread's database
connection goes back to psycopg's pool before the thread takes another request). Each request
runs in a copy of the event loop's context, so nothing a request sets in a context variable
reaches the next one on that thread; async code a view calls through `async_to_sync` runs on
the event loop, as before. A streaming response (a static file) is closed after it is sent.

Django's request is a reference cycle: the auth middleware's lazy `request.user` and
`request.auser`, and the messages' storage, hold the request that holds them. Left so, each
request and everything it read (its session, user, form, the URL resolver's list of patterns
tried) waits for the cyclic garbage collector, some 70 objects a request, and the collector's
pauses hold every socket of the process. Once its response is sent nothing reads a request
again, so the handler drops what the request holds then (`let_go`), and it is freed at once.

What it gives up: Django cancels an async view when the client disconnects mid-request; a sync
view runs to the end either way, and every view here is sync.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse, HttpRequest, HttpResponseBase
from django.urls import set_script_prefix

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def http_threads() -> ThreadPoolExecutor:
    """The process's HTTP threads, made on first use (settings are read by then)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=settings.HTTP_THREADS, thread_name_prefix="http")
        return _pool


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler with the sync middleware chain, one hop a request."""

    def __init__(self) -> None:
        BaseHandler.__init__(self)  # not ASGIHandler's: it loads the async chain
        self.load_middleware(is_async=False)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        request = None
        try:
            request, response = await self._in_thread(self.respond)(scope, body_file)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await self._in_thread(response.close)()
        finally:
            body_file.close()
            let_go(request)

    @staticmethod
    def _in_thread(function):
        return sync_to_async(function, thread_sensitive=False, executor=http_threads())

    def respond(self, scope, body_file) -> tuple[HttpRequest | None, HttpResponseBase]:
        """The whole request on this thread: signals, middleware, view, and (unless the response
        streams) its close. The request (None where it could not be made) and its response."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size
        if not response.streaming:
            response.close()  # request_finished: this thread's connections go back now
        return request, response


def let_go(request: HttpRequest | None) -> None:
    """Drop what a served request holds (its user, session, messages, resolver match...), so
    that the cycles through it are broken and all of it is freed without the collector."""
    if request is not None:
        request.__dict__.clear()


def get_asgi_application() -> OneHopASGIHandler:
    """What `django.core.asgi.get_asgi_application` does, with this handler."""
    django.setup(set_prefix=False)
    return OneHopASGIHandler()
