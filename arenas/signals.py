"""What arenas add to the apps below them, by their registration points: a race's close
records the race's points in its arena (races.actions.ON_CLOSE); `rebuild_leaderboards`
rebuilds the arenas' boards too (records.leaderboard.MORE_BOARDS)."""

from arenas.board import rebuild_kept
from arenas.results import record_race
from races.actions import ON_CLOSE
from records.leaderboard import MORE_BOARDS

ON_CLOSE.append(record_race)
MORE_BOARDS.append(rebuild_kept)
