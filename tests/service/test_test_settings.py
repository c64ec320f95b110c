"""The tests' settings (solitaire_site/test_settings.py) are the project's with a fast password
hasher, for the tests and the servers they start; the service keeps Django's own hasher."""

from __future__ import annotations

import os

from django.conf import global_settings, settings

import solitaire_site.settings as project
import solitaire_site.test_settings as tests_settings
from scripts.servers import server_env, server_setting

MD5 = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def names(module) -> set[str]:
    return {name for name in vars(module) if name.isupper()}


def test_the_tests_settings_differ_from_the_projects_only_in_the_hasher():
    assert names(tests_settings) == names(project) | {"PASSWORD_HASHERS"}
    for name in names(project):
        assert getattr(tests_settings, name) == getattr(project, name), name
    assert tests_settings.PASSWORD_HASHERS == MD5


def test_the_tests_run_under_them():
    assert os.environ["DJANGO_SETTINGS_MODULE"] == "solitaire_site.test_settings"
    assert settings.PASSWORD_HASHERS == MD5


def test_the_service_hashes_with_djangos_default():
    """The project sets no hasher, so a deployed server hashes with Django's default, PBKDF2."""
    assert "PASSWORD_HASHERS" not in names(project)
    assert global_settings.PASSWORD_HASHERS[0].endswith(".PBKDF2PasswordHasher")


def test_a_server_started_by_a_test_reads_the_tests_settings():
    assert server_setting(server_env(), "PASSWORD_HASHERS") == MD5


def test_a_server_started_outside_the_tests_reads_the_projects(monkeypatch):
    """The load generators and drills run from a shell, with no settings module of their own."""
    monkeypatch.delenv("DJANGO_SETTINGS_MODULE")
    env = server_env()
    assert env["DJANGO_SETTINGS_MODULE"] == "solitaire_site.settings"
    assert server_setting(env, "PASSWORD_HASHERS")[0].endswith(".PBKDF2PasswordHasher")
