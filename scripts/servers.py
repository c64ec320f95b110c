"""Local server processes for load runs, fault drills and end-to-end tests.

Starts Daphne on a port of 127.0.0.1 with a given database and Redis, waits until it answers
/healthz, and stops or kills it; makes a PostgreSQL database and migrates it; runs a private
redis-server and a private PostgreSQL cluster (never the system ones, which others share) for
drills that restart them. Everything here is plain subprocess work: the server's own settings
come from the environment it is given.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from scripts.procstat import rss_kb

ROOT = Path(__file__).resolve().parent.parent
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

# Daphne reads a whole websocket message (1 MB by default) before the consumer's 4096-byte check
# can refuse it; anything over 64 KB is cut off at the protocol instead, with close code 1009
# (solitaire_site/daphne_server.py: Daphne whose autobahn closes instead of resetting). The
# Makefile and the Dockerfile start the same server with the same options.
DAPHNE_LIMITS = ("--websocket-max-message-size", "65536", "--websocket-max-frame-size", "65536")


def check_local(url: str) -> str:
    """The URL, if it points at this machine; ValueError otherwise (load stays on 127.0.0.1)."""
    host = urlsplit(url).hostname or ""
    if host not in LOCAL_HOSTS:
        raise ValueError(f"{url}: only 127.0.0.1 / localhost may be targeted")
    return url.rstrip("/")


WORKER_PORTS = 1000
"""Under pytest-xdist, worker N takes its ports from 20000 + N × 1000 on, below the kernel's
ephemeral range (which outgoing connections and port 0 use), so that two workers never pick the
same port between the check and the server's bind."""
_handed_out = 0


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now."""
    global _handed_out
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]
    first = 20000 + int(worker[2:]) * WORKER_PORTS
    for _ in range(WORKER_PORTS):
        port = first + _handed_out % WORKER_PORTS
        _handed_out += 1
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}-{first + WORKER_PORTS - 1} for {worker}")


def server_env(database_url: str = "", redis_url: str = "", **extra: str) -> dict[str, str]:
    """The environment a Daphne of the project reads its settings from (production-like). Its
    settings module is the caller's own where it has one (under pytest the tests' settings,
    solitaire_site/test_settings.py), else the project's."""
    env = dict(os.environ)
    settings_module = env.get("DJANGO_SETTINGS_MODULE") or "solitaire_site.settings"
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": settings_module,
            "DEBUG": "0",
            "SECRET_KEY": env.get("SECRET_KEY") or "load-and-drill-key-not-for-production",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def wait_until_up(url: str, timeout: float = 30.0, proc: subprocess.Popen | None = None) -> None:
    """Poll GET /healthz until it answers 200; RuntimeError if the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server on {url} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server on {url} did not come up in {timeout:g} s")


@dataclass
class Daphne:
    """One Daphne process serving the project on 127.0.0.1:port."""

    port: int
    env: dict[str, str]
    log_path: Path
    extra_args: list[str] = field(default_factory=list)
    """More daphne options, e.g. ["--ping-interval", "1", "--ping-timeout", "2"]."""
    app: str = "solitaire_site.asgi:application"
    launcher: list[str] = field(
        default_factory=lambda: [sys.executable, "-m", "solitaire_site.daphne_server"]
    )
    """What runs the daphne command line (another module can wrap it: scripts/move_path.py)."""
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def start(self, timeout: float = 30.0) -> Daphne:
        command = [
            *self.launcher,
            "-b",
            "127.0.0.1",
            "-p",
            str(self.port),
            *DAPHNE_LIMITS,
            *self.extra_args,
            self.app,
        ]
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        self.proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        wait_until_up(self.url, timeout, self.proc)
        return self

    def kill(self) -> None:
        """SIGKILL: the process dies mid-whatever, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def rss_kb(self) -> int:
        """The process's resident memory (kB), from /proc (0 once it is gone)."""
        return rss_kb(self.pid) or 0

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def start_daphnes(
    count: int,
    env: dict[str, str],
    log_dir: Path,
    ports: list[int] | None = None,
    extra_args: list[str] | None = None,
) -> list[Daphne]:
    log_dir.mkdir(parents=True, exist_ok=True)
    ports = ports or [free_port() for _ in range(count)]
    servers = [
        Daphne(port, env, log_dir / f"daphne-{port}.log", list(extra_args or []))
        for port in ports[:count]
    ]
    try:
        for server in servers:
            server.start()
    except Exception:
        for server in servers:
            server.stop()
        raise
    return servers


def server_setting(env: dict[str, str], name: str):
    """A setting as a server started with `env` reads it (its default included), so that a
    drill judges by the server's own figure (a retry bound) rather than a copy of it."""
    code = (
        "import json; from django.conf import settings; "
        f"print(json.dumps(getattr(settings, {name!r}, None)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def migrate(env: dict[str, str]) -> None:
    """Bring the database env's DATABASE_URL names up to date. A fresh database (a SQLite file
    that does not exist yet, a PostgreSQL database without tables) is a copy of one migrated
    before, named by the migrations' contents and Django's version (`migrations_key`): a SQLite
    file in the temporary directory, a PostgreSQL template database. A test run starts a few
    dozen servers, each on a fresh database: 2-4 s of CPU a migration."""
    database_url = env.get("DATABASE_URL", "")
    if database_url.startswith(("postgres://", "postgresql://")):
        migrate_postgres(env, database_url)
        return
    target = sqlite_path(database_url)
    if target is None or target.exists():
        run_migrate(env)
        return
    template = Path(tempfile.gettempdir()) / f"solitaire-migrated-{migrations_key()}.sqlite3"
    if not template.exists():
        fresh = template.with_suffix(f".{os.getpid()}.tmp")
        run_migrate({**env, "DATABASE_URL": f"sqlite:///{fresh}"})
        os.replace(fresh, template)  # whole, or not at all, for the other processes
    shutil.copyfile(template, target)


def migrate_postgres(env: dict[str, str], database_url: str) -> None:
    """A database without tables becomes a copy of the template `solitaire_migrated_<key>`
    (CREATE DATABASE ... TEMPLATE), which the first caller of a key migrates under another name
    and renames when whole; one with tables is migrated."""
    import psycopg

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    with psycopg.connect(database_url, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        ).fetchone()[0]
    if tables:
        run_migrate(env)
        return
    template = f"solitaire_migrated_{migrations_key()}"
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", [template])  # one builder a key
        try:
            have = "SELECT 1 FROM pg_database WHERE datname = %s"
            if not conn.execute(have, [template]).fetchone():
                building = f"{template}_{os.getpid()}"
                conn.execute(f'DROP DATABASE IF EXISTS "{building}"')
                conn.execute(f'CREATE DATABASE "{building}"')
                try:
                    run_migrate(
                        {**env, "DATABASE_URL": parts._replace(path=f"/{building}").geturl()}
                    )
                    conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{template}"')
                except BaseException:
                    conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                    raise
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", [template])


def run_migrate(env: dict[str, str]) -> None:
    manage(env, "migrate", "--noinput")


def manage(env: dict[str, str], *command: str) -> None:
    """`manage.py <command>` as the servers started with `env` would run it, quietly."""
    subprocess.run(
        [sys.executable, "manage.py", *command, "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def sqlite_path(database_url: str) -> Path | None:
    """The file of a sqlite:/// URL; None for any other database."""
    if not database_url.startswith("sqlite:///"):
        return None
    return Path(database_url.removeprefix("sqlite:///"))


def migrations_key() -> str:
    """What the migrated schema depends on: every migration file's contents, Django's version."""
    import django

    digest = hashlib.sha256(django.get_version().encode())
    for path in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def create_database(database_url: str, drop: bool = False) -> None:
    """Make the PostgreSQL database the URL names (dropping it first when asked)."""
    import psycopg

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and drop:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


@dataclass
class PrivateRedis:
    """A redis-server of our own (no persistence) on its own port, for drills that restart it."""

    port: int
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return self
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def restart_empty(self) -> None:
        """Kill it and start a fresh, empty one on the same port."""
        self.stop()
        self.start()


def postgres_binaries() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl): on PATH, else the newest of
    /usr/lib/postgresql/*/bin (Debian keeps them off PATH); None if there are none."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    folders = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2] or 0)
    )
    for folder in reversed(folders):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def private_postgres_missing() -> str | None:
    """Why a private PostgreSQL cluster cannot be run here, or None if it can."""
    if postgres_binaries() is None:
        return "PostgreSQL's initdb and pg_ctl are not installed"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root, and runuser (to run PostgreSQL as postgres) is missing"
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, and there is no postgres user to run PostgreSQL as"
    return None


@dataclass
class PrivatePostgres:
    """A PostgreSQL cluster of our own (initdb into a temporary folder; its own port, socket
    folder and log), for drills that stop it: the system one that everyone shares is never
    touched. As root, its programs run as the postgres user (PostgreSQL refuses root)."""

    port: int
    root: Path | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/solitaire"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log_path(self) -> Path:
        return self.root / "postgres.log"

    def run(self, program: str, *args: str) -> None:
        command = [str(postgres_binaries() / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(
            command, cwd=self.root or "/", capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()}")

    def start(self) -> PrivatePostgres:
        """Make the cluster (the first time) and start it; returns once it takes connections."""
        if self.root is None:
            missing = private_postgres_missing()
            if missing:
                raise RuntimeError(missing)
            self.root = Path(tempfile.mkdtemp(prefix="solitaire-postgres-"))
            if os.geteuid() == 0:
                user = pwd.getpwnam("postgres")
                os.chown(self.root, user.pw_uid, user.pw_gid)
            self.run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        self.run(
            "pg_ctl", "start", "-w", "-D", str(self.data), "-l", str(self.log_path), "-o", options
        )
        return self

    def stop(self) -> None:
        """Stop it as a restart does (fast: sessions ended, a checkpoint, then down)."""
        if self.root is not None and (self.data / "postmaster.pid").exists():
            self.run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data))

    def remove(self) -> None:
        """Stop it and delete the cluster."""
        self.stop()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
