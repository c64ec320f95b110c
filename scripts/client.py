"""What the load scripts and drills use from outside the servers: a guest's browser over HTTP
(cookies, and form POSTs with the CSRF token), and a plain SQL read of the servers' database."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
from urllib.parse import urlencode, urlsplit


class Browser:
    """Cookies, GETs and form POSTs with the CSRF token; redirects are returned, not followed."""

    def __init__(self, base: str) -> None:
        self.base = base
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port or 80
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, form: dict | None = None, accept: str | None = None
    ) -> tuple[int, dict, str]:
        """`accept`: the Accept header a page's script sends (none: a plain browser's)."""
        headers = {"Cookie": self.cookie_header(), "User-Agent": "solitaire-loadtest"}
        if accept is not None:
            headers["Accept"] = accept
        body = None
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.base
            headers["Referer"] = self.base + path
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, path, body, headers)
            reply = conn.getresponse()
            text = reply.read().decode("utf-8", "replace")
            self.keep_cookies(reply.headers.get_all("Set-Cookie") or [])
            return reply.status, dict(reply.headers), text
        finally:
            conn.close()

    async def load(self, path: str) -> int:
        """A GET on the event loop, its body read and dropped: a page load among a crowd's, each
        on a connection of its own as each browser's is (a pool of threads would queue them
        here, where the server would not); the status."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Cookie: {self.cookie_header()}\r\nUser-Agent: solitaire-loadtest\r\n"
                "Connection: close\r\n\r\n".encode()
            )
            await writer.drain()
            reply = await reader.read()  # to the end: the server closes the connection
        finally:
            writer.close()
        head = reply.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        self.keep_cookies(
            [
                line.partition(":")[2].strip()
                for line in head[1:]
                if line.lower().startswith("set-cookie:")
            ]
        )
        return int(head[0].split()[1])

    def keep_cookies(self, set_cookies: list[str]) -> None:
        for value in set_cookies:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())


def query(database_url: str, sql: str, params: list) -> list[tuple]:
    """Rows of one query on the database the servers use (PostgreSQL or an SQLite file).

    Plain SQL, not the ORM: the script may run inside another Django process (a test) whose
    own database is a different one. `sql` writes its placeholders as `%s`.
    """
    if database_url.startswith("sqlite:///"):
        import sqlite3

        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as db:
            return db.execute(sql.replace("%s", "?"), params).fetchall()
    import psycopg

    with psycopg.connect(database_url) as db:
        return db.execute(sql, params).fetchall()
