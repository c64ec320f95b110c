"""HTTPS=1 is a production deployment's one switch (settings.py's security block): without it
`manage.py check --deploy` warns 4 times, with it the check is clean, plain http is redirected
(health checks excepted) and the proxy's X-Forwarded-Proto is believed; without it that header
is ignored, so `make run` and a local `docker compose up` work on plain http."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "testserver,solitaire.example",
}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """Run with only PATH and `env` in the environment (nothing inherited from the tests)."""
    clean = {"PATH": os.environ.get("PATH", ""), **env}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow  # over a second of CPU: in make test, not make check
def test_check_deploy_warns_four_times_on_plain_http_and_is_clean_with_https():
    plain = run(PRODUCTION, "manage.py", "check", "--deploy")
    assert plain.returncode == 0, plain.stderr
    warned = sorted(set(re.findall(r"security\.W\d+", plain.stdout + plain.stderr)))
    assert warned == ["security.W004", "security.W008", "security.W012", "security.W016"]

    https = run(
        {**PRODUCTION, "HTTPS": "1"}, "manage.py", "check", "--deploy", "--fail-level", "WARNING"
    )
    assert https.returncode == 0, https.stdout + https.stderr
    assert "no issues" in https.stdout


ANSWERS = """
import django
django.setup()
from django.http import HttpResponse
from django.middleware.security import SecurityMiddleware
from django.test import RequestFactory

middleware = SecurityMiddleware(lambda request: HttpResponse(f"secure={request.is_secure()}"))
get = RequestFactory().get
for path, headers in [("/races/", {}), ("/healthz", {}), ("/races/", {"x-forwarded-proto": "https"})]:
    reply = middleware(get(path, headers=headers))
    hsts = reply.get("Strict-Transport-Security", "-")
    print(path, reply.status_code, reply.get("Location", reply.content.decode()), hsts)
"""


def answers(env: dict[str, str]) -> list[str]:
    result = run({**env, "DJANGO_SETTINGS_MODULE": "solitaire_site.settings"}, "-c", ANSWERS)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_https_redirects_plain_http_except_health_checks_and_believes_the_proxy():
    assert answers({**PRODUCTION, "HTTPS": "1"}) == [
        "/races/ 301 https://testserver/races/ -",
        "/healthz 200 secure=False -",
        "/races/ 200 secure=True max-age=31536000; includeSubDomains; preload",
    ]


def test_without_https_plain_http_is_served_and_the_forwarded_scheme_ignored():
    assert answers(PRODUCTION) == [
        "/races/ 200 secure=False -",
        "/healthz 200 secure=False -",
        "/races/ 200 secure=False -",
    ]
