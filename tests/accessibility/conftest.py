import pytest

from tests.axe_support import axe_source
from tests.seeded_site import seeded_site  # noqa: F401  (fixture)


@pytest.fixture(scope="session")
def axe() -> str:
    """axe-core's script; without it (no `npm ci`) the test is skipped, or fails under CI, before
    a server is started for nothing."""
    return axe_source()
