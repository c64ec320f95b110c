"""The apps' dependencies point one way (docs/architecture.md, "Layers"): games is the base and
knows nothing above it; races and daily know games; records knows all three; arenas knows games,
races and records, and adds itself to them by registration (records never imports it); fairplay
knows all five and adds itself to them by registration (an arena's points follow its holds); no
app imports the project package. No module hides an import inside a function but the few listed here,
each for its reason."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("games", "races", "daily", "records", "arenas", "fairplay")
MAY_IMPORT = {
    "games": set(),
    "races": {"games"},
    "daily": {"games"},
    "records": {"games", "races", "daily"},
    "arenas": {"games", "races", "records"},
    "fairplay": {"games", "races", "daily", "records", "arenas"},
}
# Function-local imports in the apps (the file and what it imports), each with its reason.
# An app's receivers and registrations load in its AppConfig.ready, once the models can.
LOCAL_IMPORTS = {
    ("games/apps.py", "games.identity"),
    ("games/apps.py", "games.converters.PublicId"),
    ("games/apps.py", "games.converters.RowId"),
    ("races/apps.py", "races.actions"),
    ("daily/apps.py", "daily.signals"),
    ("records/apps.py", "records.signals"),
    ("fairplay/apps.py", "fairplay.signals"),
    ("arenas/apps.py", "arenas.signals"),
}


def modules(app: str):
    for path in sorted((ROOT / app).rglob("*.py")):
        if "migrations" in path.parts:
            continue
        yield path, ast.parse(path.read_text(), str(path))


def imported(node: ast.AST) -> list[str]:
    """The modules (or names in them) an import statement brings in."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [f"{node.module}.{alias.name}" for alias in node.names]
    return []


@pytest.mark.parametrize("app", APPS)
def test_an_app_imports_only_the_apps_below_it(app):
    wrong = []
    for path, tree in modules(app):
        for node in ast.walk(tree):
            for name in imported(node):
                top = name.split(".")[0]
                if top in (*APPS, "solitaire_site") and top != app and top not in MAY_IMPORT[app]:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_imports_inside_functions_are_the_listed_few():
    found = set()
    for app in APPS:
        for path, tree in modules(app):
            for function in ast.walk(tree):
                if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(function):
                    for name in imported(node):
                        found.add((str(path.relative_to(ROOT)), name))
    assert found == LOCAL_IMPORTS


def test_every_app_is_in_the_installed_package():
    """`pip install .` (the image) ships every app: pyproject.toml lists each package."""
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = {
        name.rstrip("*") for name in found["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    assert {*APPS, "solitaire_site"} <= listed


def test_every_row_lock_lets_foreign_key_checks_through():
    """`select_for_update(no_key=True)` everywhere: a lock serialises the writers of a row, and
    a transaction that only inserts a row referring to it is not held up (its foreign-key check
    takes `FOR KEY SHARE`, which a plain `FOR UPDATE` blocks; tests/arenas/test_arena_locks.py).
    A lock meant to hold those inserts up says so, `no_key=False` (an admin's edit of a
    schedule, which may remove the arenas a join would refer to)."""
    plain = []
    for app in APPS:
        for path, tree in modules(app):
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "select_for_update"
                    and not any(k.arg == "no_key" for k in node.keywords)
                ):
                    plain.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert plain == []
