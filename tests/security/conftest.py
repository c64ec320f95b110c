"""Security fixtures: the hostile suite's (the races app's race fixtures, a running race) and its
harness module, shared rather than copied."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HOSTILE = Path(__file__).resolve().parent.parent / "hostile"
if str(HOSTILE) not in sys.path:
    sys.path.insert(0, str(HOSTILE))

_spec = importlib.util.spec_from_file_location("tests_hostile_conftest", HOSTILE / "conftest.py")
_hostile = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _hostile
_spec.loader.exec_module(_hostile)

make_client = _hostile.make_client
make_race = _hostile.make_race
race_socket = _hostile.race_socket
run = _hostile.run
fast_countdown = _hostile.fast_countdown
running_race = _hostile.running_race
near_win_for = _hostile.near_win_for
generous_budget = _hostile.generous_budget
