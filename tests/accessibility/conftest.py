from tests.seeded_site import seeded_site  # noqa: F401  (fixture)
