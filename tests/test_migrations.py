"""The models and their migrations agree: a model change without its migration fails here."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # exits 1 on a change
    assert "No changes detected" in out.getvalue()
