"""What the load scripts and drills use from outside the servers: a guest's browser over HTTP
(cookies, and form POSTs with the CSRF token), and a plain SQL read of the servers' database."""

from __future__ import annotations

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

    def request(self, method: str, path: str, form: dict | None = None) -> tuple[int, dict, str]:
        headers = {"Cookie": self.cookie_header(), "User-Agent": "solitaire-loadtest"}
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
            for value in reply.headers.get_all("Set-Cookie") or []:
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            return reply.status, dict(reply.headers), text
        finally:
            conn.close()

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
