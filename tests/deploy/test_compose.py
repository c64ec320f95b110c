"""docker-compose.yml, the Dockerfile and deploy/nginx/ agree with each other (no Docker here;
these are the mistakes that would only show on a real `docker compose up`)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml
from django.conf import settings

from scripts.proxy import PrivateNginx
from scripts.servers import DAPHNE_LIMITS

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
APP_DIR = PurePosixPath(re.search(r"^WORKDIR (\S+)", DOCKERFILE, re.M).group(1))


def mounts(service: str) -> dict[str, str]:
    """target -> source of a service's volumes."""
    pairs = (volume.split(":")[:2] for volume in SERVICES[service].get("volumes", []))
    return {target: source for source, target in pairs}


def test_web_scales_behind_nginx_after_one_migration():
    web = SERVICES["web"]
    assert "ports" not in web, "a fixed host port would stop --scale and bypass the proxy"
    assert web["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "migrate" not in DOCKERFILE.split("CMD", 1)[1], "replicas must not migrate at start"
    assert SERVICES["migrate"]["restart"] == "no"
    assert "migrate --noinput" in SERVICES["migrate"]["command"]
    assert SERVICES["nginx"]["depends_on"]["web"] == {"condition": "service_healthy"}


def test_nginx_shares_a_network_with_the_web_processes_only():
    """The proxy faces the internet: it reaches the Daphnes, not PostgreSQL or Redis."""
    networks = {name: set(service["networks"]) for name, service in SERVICES.items()}
    beside_nginx = {name for name, nets in networks.items() if nets & networks["nginx"]}
    assert beside_nginx == {"nginx", "web"}
    assert {"postgres", "redis"} <= {n for n, nets in networks.items() if nets & networks["web"]}


def test_every_service_that_others_wait_for_has_a_health_check():
    for name in ("postgres", "redis", "web", "nginx"):
        assert SERVICES[name]["healthcheck"]["test"], name
    waited = {
        (dependency, rule["condition"])
        for service in SERVICES.values()
        for dependency, rule in service.get("depends_on", {}).items()
    }
    for dependency, condition in waited:
        if condition == "service_healthy":
            assert "healthcheck" in SERVICES[dependency], dependency


def test_nginx_serves_the_static_files_collectstatic_wrote_once():
    static_root = APP_DIR / Path(settings.STATIC_ROOT).relative_to(settings.BASE_DIR)
    assert "collectstatic" in SERVICES["migrate"]["command"]
    assert not re.search(r"^(RUN|CMD).*collectstatic", DOCKERFILE, re.M), "once, in migrate"
    volume = mounts("migrate")[str(static_root)]
    nginx = mounts("nginx")
    compose_conf = (ROOT / "deploy/nginx/compose.conf").read_text()
    served = re.search(r"set \$static_root (\S+);", compose_conf).group(1)
    assert nginx[served] == volume
    included = re.search(r"include (\S+)/solitaire\.conf;", compose_conf).group(1)
    assert nginx[included] == "./deploy/nginx"
    assert nginx["/etc/nginx/conf.d/default.conf"] == "./deploy/nginx/compose.conf"


def test_nginx_has_room_for_the_websockets():
    """Two connections a socket (browser to nginx, nginx to a Daphne); the image's 1024 a
    worker would refuse racers past ~500 a core."""
    assert mounts("nginx")["/etc/nginx/nginx.conf"] == "./deploy/nginx/nginx.conf"
    main = (ROOT / "deploy/nginx/nginx.conf").read_text()
    assert int(re.search(r"worker_connections (\d+);", main).group(1)) >= 8192
    assert "include /etc/nginx/conf.d/*.conf;" in main


def test_the_image_runs_daphne_as_the_tests_do_and_behind_the_proxy():
    command = " ".join(re.findall(r'"([^"]+)"', DOCKERFILE.split("CMD", 1)[1]))
    assert command.startswith("python -m solitaire_site.daphne_server "), "1009, not a reset"
    assert " ".join(DAPHNE_LIMITS) in command
    assert "--proxy-headers" in command
    assert re.search(r"^USER (?!root)\w+", DOCKERFILE, re.M), "the web process is not root"


def test_the_scheduler_runs_the_module_that_holds_the_schedule():
    assert SERVICES["scheduler"]["command"] == ["python", "-m", "deploy.scheduler"]
    assert (ROOT / "deploy/scheduler.py").exists()


def upstreams(conf: str) -> dict[str, list[str]]:
    """name -> the servers of each `upstream` block of an nginx configuration."""
    blocks = re.findall(r"upstream (\w+) \{\{?(.*?)\}\}?", conf, re.S)
    return {name: re.findall(r"^\s*server (\S+?)[ ;]", body, re.M) for name, body in blocks}


def test_every_upstream_the_site_passes_to_is_every_web_process():
    """solitaire.conf passes to `daphne` (least connections) and, for a race's sockets,
    `daphne_race` (hashed by the race's code): compose.conf and the tests' own nginx
    (scripts/proxy.py) define both, over the same web processes."""
    site = (ROOT / "deploy/nginx/solitaire.conf").read_text()
    passed_to = set(re.findall(r"proxy_pass http://(\w+);", site))
    assert passed_to == {"daphne", "daphne_race"}
    private = PrivateNginx(8000, ["127.0.0.1:8001", "127.0.0.1:8002"], Path("/nowhere"))
    for conf in ((ROOT / "deploy/nginx/compose.conf").read_text(), private.config()):
        defined = upstreams(conf)
        assert set(defined) == passed_to
        assert defined["daphne"] == defined["daphne_race"] != []
        race_block = re.search(r"upstream daphne_race \{\{?(.*?)\}", conf, re.S).group(1)
        assert "hash $race_code consistent;" in race_block
    assert re.search(r"location ~ \^/ws/race/\(\?<race_code>", site)
