"""The settings of the test suite and of the servers it starts: the project's own settings
(solitaire_site/settings.py, from the environment as ever) with one change.

Passwords are hashed with MD5, as Django's testing documentation advises ("Speeding up the
tests"): the default hasher's million rounds of PBKDF2 cost 0.44 s of CPU a hash here, and a
whole test run signs up and logs in some fifty accounts, in its own processes and in the
Daphnes it starts (25 s of CPU). Nothing else differs; tests/service/test_test_settings.py
holds both halves of that, and that the service itself keeps Django's default hasher.
"""

from solitaire_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
