"""What one socket on a race is shown: a snapshot, the events it missed, the boards it may see.

A racer sees every racer's progress and only their own board; a spectator sees every racer's
board (the player view) once the race runs; nobody sees a game id or the seed before the race
is over. Reading only (the one write is closing a race whose time is up, on the way in).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.utils import timezone

from games import actions as game_actions
from games.identity import player_from_scope
from games.models import Game, Player
from games.rows import one_or_none
from games.sockets import game_frame
from races import actions
from races.actions import racer_of
from races.clock import epoch_ms, phase_of
from races.events import event_frame, race_dict, racer_dict
from races.lifecycle import DONE, Phase
from races.models import Race, RaceEvent, Racer
from races.play import live_progress_frame, live_racer
from races.results import rating_changes
from races.standings import standing_order

MAX_CATCH_UP = 200
"""A client further behind than this many events gets a fresh snapshot instead."""


@dataclass
class CatchUp:
    """What a socket is sent on connect or `sync`, and what it should follow afterwards."""

    race: Race
    racer_id: str | None
    racer: Racer | None = None
    player: Player | None = None
    """The socket's player (None: a visitor with no player yet, who may only watch)."""
    snapshot: dict | None = None
    events: list[dict] | None = None
    progress: dict | None = None
    """With `events`, once the race runs: a live `progress` frame of every racer still playing,
    from the rows (live progress is not among the events)."""
    board: game_actions.GameUpdate | None = None
    boards: list[dict] = field(default_factory=list)
    games: dict[str, str] = field(default_factory=dict)
    """Game public id -> racer id, for every game whose changes this socket is shown."""
    rows: dict[str, Game] = field(default_factory=dict)
    """Those games' rows, by public id."""
    starts_at_ms: int | None = None
    read_before_start: bool = False
    """Read before the race's start, so without boards: the start brings them."""
    start_board: game_actions.GameUpdate | None = None
    """Read before the start, the racer's own board as the start shows it (nothing moves before
    it), read in the same trip to the database threads and held by the process (not sent): the
    start then needs no read."""
    ends_at_ms: int | None = None
    autostart_at_ms: int | None = None
    """A quick race's lobby end, while it is in the lobby."""


def connect(code: str | None, scope, since: int | None) -> CatchUp | None:
    """What a socket opening on the race with this code is sent first, read at once with who its
    player is (one trip to the database threads); None when there is no such race. The race,
    its racers, their games and players are one read: a racer's own socket (a guest's) needs no
    other, the race's crowd opening theirs together at its start."""
    if not code:
        return None
    racers = list(Racer.objects.filter(race__code=code).select_related("race", "game", "player"))
    race = racers[0].race if racers else one_or_none(Race.objects.filter(code=code))
    if race is None:
        return None
    for racer in racers:
        racer.race = race  # one row, one instance: the close on the way in refreshes it for all
    player = player_from_scope(scope, known=[racer.player for racer in racers])
    return _catch_up(race, player, since, racers)


def snapshot(race: Race, player: Player | None, racers: list[Racer] | None = None) -> dict:
    """Everything a socket shows about the race, as of its last event (`racers`: all of them
    with their games, as just read with the race, or read here)."""
    if racers is None:
        racers = list(race.racers.select_related("game"))
    racer = own_racer(racers, player)
    return {
        "type": "snapshot",
        "event": race.event_seq,
        "race": race_dict(race),
        "racers": [racer_dict(r, race) for r in racers],
        "standings": standing_order(racers),
        "ratings": race_ratings(race, racers),
        "you": {
            "racer": racer.public_id if racer else None,
            "host": player is not None and race.host_id == player.pk,
            "name": racer.name if racer else (player.nickname if player else None),
        },
    }


def race_ratings(race: Race, racers: list[Racer]) -> dict[str, dict]:
    """Per racer id, what a finished rated race did to that racer's rating, as the `finished`
    event says it (so a page opened or reloaded after the race shows it too); {} otherwise."""
    if race.status != Race.Status.FINISHED or not race.rated:
        return {}
    changes = rating_changes(race)
    return {r.public_id: changes[r.player_id] for r in racers if r.player_id in changes}


def events_between(race: Race, after: int, before: int | None = None) -> list[dict]:
    """The event frames numbered after `after` (and before `before`), in order."""
    rows = RaceEvent.objects.filter(race=race, seq__gt=after)
    if before is not None:
        rows = rows.filter(seq__lt=before)
    return [event_frame(e) for e in rows.order_by("seq")]


def catch_up(race: Race, player: Player | None, since: int | None) -> CatchUp:
    """A snapshot, or the events after `since` when the client is only a little behind."""
    return _catch_up(Race.objects.get(pk=race.pk), player, since)


def own_racer(racers: list[Racer], player: Player | None) -> Racer | None:
    return next((r for r in racers if player is not None and r.player_id == player.pk), None)


def _catch_up(
    race: Race, player: Player | None, since: int | None, racers: list[Racer] | None = None
) -> CatchUp:
    """`catch_up` of a race row just read (`racers`: with it, each with their game). A snapshot
    reads every racer with their game, unless given them, and finds the player's among them; a
    socket only a little behind and given none reads the player's alone."""
    if phase_of(race) == Phase.OVERTIME and actions.do_close_if_due(race):
        race.refresh_from_db()
        racers = None  # the close placed them: read again
    behind = (
        since is not None and since <= race.event_seq and race.event_seq - since <= MAX_CATCH_UP
    )
    if racers is None and not behind:
        racers = list(race.racers.select_related("game"))
    racer = racer_of(race, player) if racers is None else own_racer(racers, player)
    racer_id = racer.public_id if racer else None
    view = CatchUp(race=race, racer_id=racer_id, racer=racer, player=player)
    if behind:
        view.events = events_between(race, since)
        read_at = int(time.time() * 1000)  # before the read: no later live frame looks older
        playing = race.racers.exclude(status__in=DONE) if race.status == Race.Status.STARTED else ()
        if playing:
            at_ms = max(0, read_at - epoch_ms(race.starts_at))
            view.progress = live_progress_frame([live_racer(r) for r in playing], at_ms, read_at)
    else:
        view.snapshot = snapshot(race, player, racers)
    if race.status == Race.Status.STARTED:
        view.starts_at_ms, view.ends_at_ms = epoch_ms(race.starts_at), epoch_ms(race.ends_at)
    if race.status == Race.Status.LOBBY:
        view.autostart_at_ms = epoch_ms(race.autostart_at)
    if race.starts_at is None:
        return view  # in the lobby: nobody has a game yet
    # The games are followed as soon as they exist (a placed race's from its birth, a lobby's from
    # its countdown): their groups are joined before the start, so the start reads boards once.
    followed = [racer] if racer is not None else racers or race.racers.select_related("game")
    for other in followed:
        if other.game_id is not None:
            view.games[other.game.public_id] = other.public_id
            view.rows[other.game.public_id] = other.game
    if timezone.now() >= race.starts_at:
        read_boards(view)
    else:
        view.read_before_start = True
        if racer is not None and racer.game_id is not None:
            view.start_board = game_actions.get_game_update(racer.game, read=False)
    return view


def read_boards(view: CatchUp) -> None:
    """The boards of the view's games as they stand now (none before the start): the racer's
    own (`board`), or every racer's as a spectator sees it (`boards`), from the game rows the
    view was read with (only their moves are read). Those that moved in between are read again
    once their groups are joined (`read_moved_boards`)."""
    if view.racer_id is not None:
        view.board = next(
            (game_actions.get_game_update(g, read=False) for g in view.rows.values()), None
        )
    else:
        view.boards = [
            board_frame(game_actions.get_game_update(view.rows[public_id], read=False), racer_id)
            for public_id, racer_id in view.games.items()
        ]


def read_moved_boards(view: CatchUp) -> None:
    """Once the view's games' groups are joined: the boards of the games that moved or ended
    since `read_boards` (another tab's move, a racer a spectator watches), read again; for the
    others, only their `seq` and status (a move after the join reaches the socket through the
    group). A socket opening on a running race replays its game's log once, not twice."""
    read = {}
    if view.board is not None:
        read[view.board.game.public_id] = (view.board.game.seq, view.board.game.status)
    by_racer = {racer_id: public_id for public_id, racer_id in view.games.items()}
    for frame in view.boards:
        read[by_racer[frame["racer"]]] = (frame["seq"], frame["status"])
    now = Game.objects.filter(public_id__in=list(read)).values_list("public_id", "seq", "status")
    moved = {public_id for public_id, seq, status in now if read[public_id] != (seq, status)}
    if not moved:
        return
    if view.racer_id is not None:
        view.board = game_actions.get_game_update(view.rows[view.board.game.public_id])
        return
    view.boards = [
        board_frame(
            game_actions.get_game_update(view.rows[by_racer[frame["racer"]]]), frame["racer"]
        )
        if by_racer[frame["racer"]] in moved
        else frame
        for frame in view.boards
    ]


def board_frame(update: game_actions.GameUpdate, racer_id: str) -> dict:
    """A racer's board as a spectator sees it: the player view, without the game's id."""
    return spectator_board(game_frame("state", update), racer_id)


def spectator_board(state: dict, racer_id: str) -> dict:
    """A `state` frame of some racer's game turned into the `board` frame spectators get."""
    keep = ("seq", "played", "view", "status", "moves", "elapsed_ms")
    return {"type": "board", "racer": racer_id, **{k: state[k] for k in keep}}


def own_board(race: Race, player: Player | None) -> game_actions.GameUpdate | None:
    racer = racer_of(race, player)
    if racer is None or racer.game_id is None or timezone.now() < race.starts_at:
        return None
    return game_actions.get_game_update(racer.game)
