"""What arenas add to the apps below them, by their registration points: a race's close
records the race's points in its arena (races.actions.ON_CLOSE); `rebuild_leaderboards`
rebuilds the arenas' boards too (records.leaderboard.MORE_BOARDS); a player's page and API
document list their arenas (records.stats.PLAYER_PARTS); an arena's race has no rematch and its
pages link back to the arena (races.actions.OWNERS); the arena resigns its races' racers who
left or idle itself, in the tick that places them again (races.holdups.LOOKED_AT_ELSEWHERE); its racer, done in it, waits on the race's
socket for their next race in the arena's room (races.consumers.NEXT_RACE_WAITS); the race
pool of an arena's game is stocked for the players who joined it (games.winnable.RACE_DEMAND)."""

from arenas.board import kept_rebuilds
from arenas.holdups import arena_races
from arenas.placement import deals_wanted
from arenas.results import record_race
from arenas.rooms import watch_from_race
from arenas.standings import arena_of, player_arenas
from games.winnable import RACE_DEMAND
from races.actions import ON_CLOSE, OWNERS
from races.consumers import NEXT_RACE_WAITS
from races.holdups import LOOKED_AT_ELSEWHERE
from records.leaderboard import MORE_BOARDS, MoreBoards
from records.stats import PLAYER_PARTS, PlayerPart

ON_CLOSE.append(record_race)
OWNERS.append(arena_of)
LOOKED_AT_ELSEWHERE.append(arena_races)
NEXT_RACE_WAITS.append(watch_from_race)
MORE_BOARDS.append(MoreBoards("arena", kept_rebuilds))
PLAYER_PARTS.append(PlayerPart("arenas", "arenas/_player_arenas.html", player_arenas))
RACE_DEMAND.append(deals_wanted)
