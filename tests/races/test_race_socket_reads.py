"""What a race socket reads from the database at its connect, at the start and at the finish of
a race: a crowd of racers (an arena's) opens and ends races together, so each read counts."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.module_loading import import_string

from games.identity import SESSION_PLAYER_KEY
from games.models import Game, Player
from games.play import load
from races import actions, lifecycle, play, snapshots
from races.lifecycle import RacerStatus, RaceRuleError
from races.models import Race, Racer
from tests.required import unavailable

pytestmark = pytest.mark.django_db(transaction=True)


async def settled(socket) -> None:
    """Everything the socket had to do before now is done: it handles one message at a time, so
    its answer to a ping comes after them."""
    await socket.request({"type": "ping", "t": 1}, "pong")


@pytest.fixture
async def ann_racing_bob(make_client, make_race, race_socket, run):
    """Ann (on a socket) and Bob (without one) in Ann's race, in the lobby."""
    ann, bob = await run(make_client, "Ann"), await run(make_client, "Bob")
    race = await run(make_race, ann, time_limit_s=60)
    await run(actions.do_join_race, race, bob.player)
    socket = await race_socket(ann, race.code)
    await socket.expect("snapshot")
    return race, ann, bob, socket


async def test_a_racer_s_board_at_the_start_is_read_with_the_countdown_not_at_the_start(
    ann_racing_bob, run, statements, monkeypatch
):
    """The countdown brings the racer's game to follow, and its board as the start will show it
    (nothing moves before the start), in the countdown's one trip to the database threads: at
    the start the socket reads nothing, however busy those threads are then."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 1000)
    race, ann, _, socket = ann_racing_bob
    await run(actions.do_start_race, race, ann.player)
    await socket.expect("countdown")
    await settled(socket)
    statements()
    board = await socket.board()
    await settled(socket)
    assert statements.sql() == []
    assert board["seq"] == 0 and board["legal"] and board["status"] == "playing"
    move = await socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    assert move["seq"] == 1


async def test_a_socket_opened_in_the_countdown_shows_the_board_at_the_start_without_a_read(
    ann_racing_bob, race_socket, run, statements, monkeypatch
):
    """A racer placed in a race that is already counting down (an arena's, a page reloaded)
    opens the socket then: its connect reads the board with the rest, holds it, and the start
    sends it with no read. It is the board a read at the start gives."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 3000)
    race, ann, bob, ann_socket = ann_racing_bob
    await run(actions.do_start_race, race, ann.player)
    await ann_socket.expect("countdown")
    await settled(ann_socket)  # Ann's socket reads her board after the countdown: not counted
    socket = await race_socket(bob, race.code)
    snapshot = await socket.expect("snapshot")
    assert snapshot["now"] < snapshot["race"]["starts_at"]  # read in the countdown
    await settled(socket)
    assert [f for f in socket.seen if f["type"] == "state"] == []
    statements()
    board = await socket.board()
    await settled(socket)
    assert statements.sql() == []
    racer = await run(Racer.objects.select_related("game").get, race=race, player=bob.player)
    started = await run(Race.objects.get, pk=race.pk)
    read = await run(snapshots.own_board, started, bob.player)
    assert (board["game"], board["seq"], board["legal"], board["view"]) == (
        racer.game.public_id,
        0,
        list(read.legal),
        read.view,
    )


async def test_the_finish_makes_a_racer_s_socket_read_nothing_more(
    ann_racing_bob, run, statements, no_countdown
):
    """Once the `finished` event is sent, a racer's socket has no game to follow and no timer
    to set: it reads nothing (a move after it is refused from the seat read then)."""
    race, ann, bob, socket = ann_racing_bob
    await run(actions.do_start_race, race, ann.player)
    board = await socket.board()
    await run(actions.do_resign, race, bob.player)
    await socket.request({"type": "resign"}, "finished")
    statements()
    await settled(socket)
    assert statements.sql() == []
    refused = await socket.error({"type": "move", "move": board["legal"][0], "seq": 0})
    assert refused["code"] == "race_over", refused
    assert (await run(Race.objects.get, pk=race.pk)).status == Race.Status.FINISHED


async def test_a_resignation_on_the_socket_reads_neither_the_racer_nor_the_game_s_moves(
    ann_racing_bob, run, statements, no_countdown
):
    """The racer's socket holds their racer row (its seat) and their game as played (in
    memory): resigning reads neither again. The game ends from that copy, at the position its
    moves reached, and the race's racers are read once, under the race's row."""
    race, ann, _, socket = ann_racing_bob
    await run(actions.do_start_race, race, ann.player)
    board = await socket.board()
    await socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    await settled(socket)
    statements()
    await socket.request({"type": "resign"}, "progress")
    await settled(socket)
    sql = statements.sql()
    assert [q for q in sql if 'FROM "games_move"' in q] == []
    assert len([q for q in sql if q.startswith("SELECT") and 'FROM "races_racer"' in q]) == 1
    racer = await run(Racer.objects.select_related("game").get, race=race, player=ann.player)
    assert racer.status == RacerStatus.RESIGNED and racer.game.status == Game.Status.RESIGNED
    assert racer.game.state == (await run(load, racer.game)).engine.to_dict()
    assert racer.game.state["moves"] == 1


@pytest.mark.usefixtures("no_countdown")
def test_a_resignation_from_a_copy_another_tab_has_moved_past_ends_the_game_where_it_is(
    running_race,
):
    """The socket's copy of the game is a move behind (another tab moved): the end's
    compare-and-set misses, and the game is read again and ended with that move in it."""
    race, ann = running_race.race, running_race.ann
    seat = play.seat_of(race, ann.player)
    behind = load(seat.racer.game)
    play.do_race_move(race, ann.player, behind.engine.legal_moves()[0], 0)
    actions.do_resign(race, ann.player, seat.racer, behind)
    game = Game.objects.get(pk=seat.racer.game_id)
    assert game.status == Game.Status.RESIGNED and game.state["moves"] == 1
    assert game.state == load(game).engine.to_dict()


@pytest.mark.usefixtures("no_countdown")
def test_a_resignation_from_a_seat_read_before_the_close_is_refused_as_a_fresh_read_would_be(
    running_race,
):
    """A seat read while the race ran, the race closed since (Ann resigned in another tab, Bob
    too): the resignation is refused with `race_over`, as it is without a seat."""
    race, ann, bob = running_race.race, running_race.ann, running_race.bob
    seat = play.seat_of(race, ann.player)
    actions.do_resign(race, ann.player)
    actions.do_resign(race, bob.player)
    for held in [(), (seat.racer, None)]:
        with pytest.raises(RaceRuleError) as refused:
            actions.do_resign(race, ann.player, *held)
        assert refused.value.code == "race_over"


def scope_of(player: Player) -> dict:
    """A socket's scope as the session middleware leaves it, for a guest playing as `player`
    (the session saved by the settings' engine, as a page saves it)."""
    store = import_string(f"{settings.SESSION_ENGINE}.SessionStore")
    session = store()
    session[SESSION_PLAYER_KEY] = player.pk
    session.save()
    return {"user": AnonymousUser(), "session": store(session.session_key)}


def racer_reads(queries) -> list[str]:
    return [
        q["sql"]
        for q in queries
        if q["sql"].startswith("SELECT") and 'FROM "races_racer"' in q["sql"]
    ]


@pytest.mark.usefixtures("no_countdown")
def test_a_racer_s_socket_finds_its_racer_among_those_the_snapshot_reads(running_race):
    race, ann = running_race.race, running_race.ann
    with CaptureQueriesContext(connection) as queries:
        view = snapshots.connect(race.code, scope_of(ann.player), None)
    assert len(racer_reads(queries)) == 1, racer_reads(queries)
    assert view.racer.player_id == ann.player.pk
    assert view.snapshot["you"]["racer"] == view.racer_id == view.racer.public_id
    assert list(view.games.values()) == [view.racer_id]
    assert view.board is not None and view.board.game.pk == view.racer.game_id


@pytest.mark.usefixtures("no_countdown")
def test_a_guest_racer_s_socket_reads_the_race_its_racers_and_itself_in_one_statement(
    running_race,
):
    """An arena's race starts with all its racers opening their sockets at once: the race, its
    racers with their games and players are one read, the guest's own player among them (then
    only the boards' moves)."""
    race, ann = running_race.race, running_race.ann
    assert ann.player.user_id is None
    scope = scope_of(ann.player)
    with CaptureQueriesContext(connection) as queries:
        view = snapshots.connect(race.code, scope, None)
    reads = [  # the session is the cache's (Redis), or without one the database's
        q["sql"]
        for q in queries
        if not q["sql"].startswith('SELECT "games_move"') and "django_session" not in q["sql"]
    ]
    assert len(reads) == 1 and 'FROM "races_racer"' in reads[0], reads
    assert view.player == ann.player and view.racer.player_id == ann.player.pk


@pytest.mark.usefixtures("no_countdown")
def test_a_racer_who_is_no_longer_a_guest_is_not_taken_for_the_session_s_guest(running_race):
    """The session's guest signed up since (their player is an account's now): the socket's
    player is read as `guest_player` reads it, and the session names no guest any more."""
    race, ann = running_race.race, running_race.ann
    scope = scope_of(ann.player)
    user = get_user_model().objects.create_user("ann-account", password="x")
    Player.objects.filter(pk=ann.player.pk).update(user=user)
    view = snapshots.connect(race.code, scope, None)
    assert view.player is None and view.racer is None


@pytest.mark.usefixtures("no_countdown")
def test_a_spectator_s_socket_follows_the_games_the_snapshot_read(running_race):
    race = running_race.race
    eve = Player.objects.create(nickname="Eve")
    with CaptureQueriesContext(connection) as queries:
        view = snapshots.connect(race.code, scope_of(eve), None)
    assert len(racer_reads(queries)) == 1, racer_reads(queries)
    assert view.racer is None and view.snapshot["you"]["racer"] is None
    assert sorted(view.games.values()) == sorted(r["id"] for r in view.snapshot["racers"])
    assert len(view.boards) == 2


@pytest.mark.usefixtures("no_countdown")
@pytest.mark.parametrize("who", ["racer", "spectator"])
def test_a_socket_opening_on_a_running_race_shows_the_game_rows_it_read_with_the_racers(
    running_race, who
):
    """The boards a socket is shown on opening come from the game rows read with the racers:
    no game row is read again, and only the moves of a game that has any (Ann moved, Bob not)."""
    race, ann = running_race.race, running_race.ann
    first = load(play.seat_of(race, ann.player).racer.game).engine.legal_moves()[0]
    play.do_race_move(race, ann.player, first, 0)
    player = ann.player if who == "racer" else Player.objects.create(nickname="Eve")
    with CaptureQueriesContext(connection) as queries:
        view = snapshots.connect(race.code, scope_of(player), None)
    game_reads = [q["sql"] for q in queries if 'FROM "games_game"' in q["sql"]]
    assert game_reads == []
    moves_reads = [q["sql"] for q in queries if 'FROM "games_move"' in q["sql"]]
    assert len(moves_reads) == 1
    boards = [view.board] if who == "racer" else view.boards
    assert len(boards) == (1 if who == "racer" else 2) and all(b is not None for b in boards)


@pytest.mark.usefixtures("no_countdown")
def test_with_redis_a_socket_s_connect_reads_its_session_from_the_cache(running_race):
    """With a Redis, sessions are `cached_db` (solitaire_site/sessions.py): saved to the database
    and to Redis, and read from Redis, so opening a socket asks the database for no session row."""
    if not settings.REDIS_URL:
        unavailable("REDIS_URL is not set: sessions are read from the database alone")
    assert settings.SESSION_ENGINE == "solitaire_site.sessions"
    race, ann = running_race.race, running_race.ann
    scope = scope_of(ann.player)
    with CaptureQueriesContext(connection) as queries:
        view = snapshots.connect(race.code, scope, None)
    assert [q["sql"] for q in queries if "django_session" in q["sql"]] == []
    assert view.player == ann.player and view.racer.player_id == ann.player.pk


@pytest.mark.usefixtures("no_countdown")
def test_a_socket_a_little_behind_reads_only_its_own_racer(running_race):
    """No snapshot: the events since the client's last, and the racer's own row."""
    race, ann = running_race.race, running_race.ann
    race.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        view = snapshots.connect(race.code, scope_of(ann.player), race.event_seq)
    assert view.snapshot is None and view.events == []
    assert view.racer.player_id == ann.player.pk
    own = [sql for sql in racer_reads(queries) if "INNER JOIN" in sql]
    assert len(own) == 1, racer_reads(queries)


def sorted_to_take_one(queries) -> list[str]:
    """The statements that sort rows to keep the first: a lookup by a unique key has one row at
    most, and an `ORDER BY` there only costs Django's compiler its building (games/rows.py)."""
    return [q["sql"] for q in queries if "ORDER BY" in q["sql"] and q["sql"].endswith("LIMIT 1")]


@pytest.mark.usefixtures("no_countdown")
def test_a_racer_s_seat_is_one_read_of_their_racer_game_and_race(running_race):
    race, ann = running_race.race, running_race.ann
    with CaptureQueriesContext(connection) as queries:
        seat = play.seat_of(race, ann.player)
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert seat.racer.player_id == ann.player.pk and seat.race.pk == race.pk
    assert seat.racer.game is not None and seat.race.status == Race.Status.STARTED


@pytest.mark.usefixtures("no_countdown")
def test_a_socket_s_connect_and_a_resignation_sort_nothing_to_take_one_row(running_race):
    race, ann = running_race.race, running_race.ann
    race.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        snapshots.connect(race.code, scope_of(ann.player), race.event_seq)
        snapshots.connect(race.code, scope_of(ann.player), None)
        actions.do_resign(race, ann.player)
    assert sorted_to_take_one(queries) == []
    assert len(queries) > 5
