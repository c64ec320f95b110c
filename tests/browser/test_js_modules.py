"""The frontend's pure modules (move notation, table geometry) under Node's own test runner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.required import unavailable

JS_TESTS = sorted((Path(__file__).parent / "js").glob("*.test.mjs"))


@pytest.mark.parametrize("path", JS_TESTS, ids=lambda p: p.name)
def test_js_module(path):
    """Every `node --test` case in the file passes."""
    if shutil.which("node") is None:
        unavailable("Node.js is not installed (apt-get install nodejs)")
    result = subprocess.run(
        ["node", "--test", str(path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
