"""The repo's nginx configuration (deploy/nginx/solitaire.conf), run for real in front of local
Daphnes, and the fault drill that kills a Daphne behind it.

`PrivateNginx` writes a small main configuration of its own (pid, logs and temporary files in
its folder, the upstreams `daphne` and `daphne_race` of the given Daphnes, a port of
127.0.0.1) that includes the repo's file unchanged, the way deploy/nginx/compose.conf does in
docker compose, and runs Debian's nginx with it (never the system's nginx or its
configuration).

    proxy-daphne-kill  two Daphnes behind nginx, racers connected through it only (each race's
                       on the Daphne its code picks). The Daphne with the most racers is
                       SIGKILLed mid-race; its racers reconnect to the same proxy address, nginx
                       hands them to the other Daphne, and they finish with nothing lost.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from scripts.servers import ROOT, free_port, wait_until_up

SITE_CONF = ROOT / "deploy/nginx/solitaire.conf"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")
MIME_TYPES = Path("/etc/nginx/mime.types")
# Daphne behind the proxy takes the client's address and scheme from nginx's headers, as the
# Dockerfile's command does.
BEHIND_PROXY = ["--proxy-headers"]


def nginx_binary() -> str | None:
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@dataclass
class PrivateNginx:
    """nginx on 127.0.0.1:port in front of `upstreams` ("127.0.0.1:8001", ...), serving
    `static_root` at /static/, with the repo's site configuration."""

    port: int
    upstreams: list[str]
    workdir: Path
    static_root: Path | None = None
    tls: tuple[Path, Path] | None = None
    """(certificate, key): also serve TLS on `tls_port`, as compose does on 443 with HTTPS=1."""
    tls_port: int | None = None
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"https://127.0.0.1:{self.tls_port}"

    def config(self) -> str:
        static_root = self.static_root or self.workdir / "static"
        servers = "\n".join(f"        server {upstream};" for upstream in self.upstreams)
        temp = " ".join(
            f"{kind}_temp_path {self.workdir / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        # As root, the workers would otherwise run as `nobody`, who cannot read a private
        # temporary folder; as anyone else nginx ignores the line.
        user = pwd.getpwuid(os.geteuid()).pw_name
        mime = f"include {MIME_TYPES};" if MIME_TYPES.exists() else ""
        return f"""
daemon off;
user {user};
worker_processes 1;
pid {self.workdir / "nginx.pid"};
error_log {self.workdir / "error.log"} warn;
events {{ worker_connections 4096; }}
http {{
    {mime}
    default_type application/octet-stream;
    access_log {self.workdir / "access.log"};
    {temp}
    upstream daphne {{
        zone daphne 64k;
        least_conn;
{servers}
        keepalive 16;
    }}
    upstream daphne_race {{
        zone daphne_race 64k;
        hash $race_code consistent;
{servers}
    }}
    server {{
        listen 127.0.0.1:{self.port};
        set $static_root {static_root};
        include {SITE_CONF};
    }}
    {self.tls_server(static_root)}
}}
"""

    def tls_server(self, static_root: Path) -> str:
        if self.tls is None:
            return ""
        certificate, key = self.tls
        return f"""server {{
        listen 127.0.0.1:{self.tls_port} ssl;
        ssl_certificate {certificate};
        ssl_certificate_key {key};
        set $static_root {static_root};
        include {SITE_CONF};
    }}"""

    def start(self, timeout: float = 10.0) -> PrivateNginx:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        conf = self.workdir / "nginx.conf"
        conf.write_text(self.config())
        error_log = self.workdir / "error.log"
        command = [binary, "-p", str(self.workdir), "-c", str(conf), "-e", str(error_log)]
        check = subprocess.run([*command, "-t"], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"nginx refused the configuration:\n{check.stderr}")
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:  # up once a Daphne's /healthz answers through it
            wait_until_up(self.url, timeout, self.proc)
        except RuntimeError as error:
            raise RuntimeError(f"nginx: {error}\n{self.errors()}") from error
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def errors(self) -> str:
        path = self.workdir / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def proxy_for(servers, static_root: Path | None = None, tls: tuple[Path, Path] | None = None):
    """A PrivateNginx in front of these Daphnes (scripts.servers.Daphne), stopped on the way out;
    with `tls` (certificate, key) it serves TLS on a second port too."""
    with tempfile.TemporaryDirectory(prefix="nginx-") as tmp:
        os.chmod(tmp, 0o755)  # the workers may run as another user
        upstreams = [f"127.0.0.1:{s.port}" for s in servers]
        tls_port = free_port() if tls else None
        nginx = PrivateNginx(free_port(), upstreams, Path(tmp), static_root, tls, tls_port)
        nginx.start()
        try:
            yield nginx
        finally:
            nginx.stop()


def collect_static(target: Path, env: dict[str, str]) -> None:
    """collectstatic into `target` instead of STATIC_ROOT (what compose's migrate service does
    into its volume)."""
    code = (
        "import sys, django; django.setup(); from django.conf import settings; "
        "settings.STATIC_ROOT = sys.argv[1]; from django.core.management import call_command; "
        "call_command('collectstatic', interactive=False, verbosity=0)"
    )
    subprocess.run([sys.executable, "-c", code, str(target)], cwd=ROOT, env=env, check=True)


def race_sockets_opened(log: str) -> int:
    """How many race websockets a Daphne's access log shows opened."""
    return len(re.findall(r'"WSCONNECT /ws/race/', log))


def race_sockets_open(log: str) -> Counter[str]:
    """The race websockets a Daphne's access log shows open now, by race code."""
    opened = Counter(re.findall(r'"WSCONNECT /ws/race/([^/]+)/', log))
    opened.subtract(re.findall(r'"WSDISCONNECT /ws/race/([^/]+)/', log))
    return +opened
