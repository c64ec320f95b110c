"""HTTPS=1 for real: TLS ends at the repo's nginx (a certificate made here), a Daphne behind it
runs with HTTPS=1 and --proxy-headers, as docker compose runs them in production.

Plain http is redirected to https (health checks are not), cookies are marked Secure, HSTS is
sent, a form posts past the CSRF check over https, and a race socket opens over wss.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import http.client
import ipaddress
import re
import ssl
import tempfile
import urllib.request
from pathlib import Path

import pytest
import websockets
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from scripts.proxy import BEHIND_PROXY, nginx_binary, proxy_for
from scripts.servers import migrate, server_env, start_daphnes
from tests.live import Visitor, expect
from tests.required import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("https_proxy")]


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1, valid for a day: (certificate, key) files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def https_stack():
    """(nginx, client TLS context): nginx with TLS in front of one Daphne running HTTPS=1."""
    if nginx_binary() is None:
        unavailable("nginx is not installed (apt-get install nginx): TLS at the proxy is untested")
    with tempfile.TemporaryDirectory(prefix="https-test-") as tmp:
        folder = Path(tmp)
        certificate = self_signed(folder)
        env = server_env(f"sqlite:///{folder / 'db.sqlite3'}", "", HTTPS="1")
        migrate(env)
        servers = start_daphnes(1, env, folder / "logs", extra_args=BEHIND_PROXY)
        try:
            with proxy_for(servers, tls=certificate) as nginx:
                yield nginx, ssl.create_default_context(cafile=str(certificate[0]))
        finally:
            for server in servers:
                server.stop()


def plain_get(nginx, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", nginx.port, timeout=30)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, reply.getheader("Location", "")
    finally:
        conn.close()


def test_plain_http_is_redirected_to_https_but_health_checks_are_answered(https_stack):
    nginx, _ = https_stack
    status, location = plain_get(nginx, "/races/new/")
    assert status == 301 and location.startswith("https://127.0.0.1:")
    assert plain_get(nginx, "/healthz") == (200, "")


def test_over_https_cookies_are_secure_forms_post_and_sockets_open(https_stack):
    nginx, context = https_stack
    visitor = Visitor()
    visitor.opener = urllib.request.build_opener(  # the same cookies, trusting our certificate
        urllib.request.HTTPCookieProcessor(visitor.jar),
        urllib.request.HTTPSHandler(context=context),
    )
    with visitor.opener.open(f"{nginx.tls_url}/races/new/", timeout=30) as page:
        assert page.status == 200
        assert page.headers["Strict-Transport-Security"].startswith("max-age=")
    form = {
        "variant": "penguin",
        "deal": "random",
        "seed": "",
        "max_players": 8,
        "time_limit": "300",
        "visibility": "link",
        "name": "Ann",
    }
    landed = visitor.post(f"{nginx.tls_url}/races/new/", form)  # past CSRF, over https
    code = re.search(r"/races/([A-Z0-9]{6})/$", landed).group(1)
    cookies = {cookie.name: cookie for cookie in visitor.jar}
    assert cookies["sessionid"].secure and cookies["csrftoken"].secure

    async def snapshot() -> dict:
        async with websockets.connect(
            nginx.tls_url.replace("https://", "wss://") + f"/ws/race/{code}/",
            ssl=context,
            additional_headers={"Cookie": f"sessionid={visitor.cookie('sessionid')}"},
            origin=nginx.tls_url,
            open_timeout=10,
        ) as ws:
            return await expect(ws, "snapshot")

    assert [racer["name"] for racer in asyncio.run(snapshot())["racers"]] == ["Ann"]
