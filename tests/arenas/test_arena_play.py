"""Playing an arena (issue 27): joining, placing free players in races, a race's points on
the record and on the board, and the bad inputs. The actions are driven directly; the socket is
in test_arena_socket.py."""

import importlib
import json
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arenas import actions, board, consumers, events, placement, rooms, standings
from arenas.actions import ArenaRuleError
from arenas.models import Arena, ArenaPlayer, ArenaRace, ArenaResult
from games import winnable
from games.engine import Game as EngineGame
from games.engine.built_deals import is_built, open_numbers
from games.identity import SESSION_PLAYER_KEY
from games.models import Player, WinnableDeal
from games.rankstore import get_rank_store
from races import actions as race_actions
from races import deals, lifecycle
from races.models import Race, Racer, RatingChange
from races.ratings import updates
from tests.arenas.conftest import play_out

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]

BATCH_STATEMENTS = 17
"""A batch of up to eight races placed, in statements (issue 27): the arena, its free players
and their locks, the deals, then an insert each of races, games, racers, events and the arena's
races. It was 2.6 a player placed (some 170 for eight races of eight) when each race was opened,
joined and started as a lobby would be."""


def test_two_free_players_are_placed_in_one_started_rated_race_of_the_arena(arena, here):
    ann, bob = here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    assert race.status == Race.Status.STARTED and race.rated and race.ranked
    assert race.variant == arena.variant and not race.quick
    assert set(race.racers.values_list("player", flat=True)) == {ann.pk, bob.pk}
    assert ArenaRace.objects.get(race=race).arena == arena
    assert placement.place(arena.pk) == []  # both busy now


def test_each_race_of_an_arena_deals_a_fresh_winnable_deal_the_same_for_its_racers(
    make_arena, here
):
    arena = make_arena(variant="penguin")
    for seed in (424242, 515151):
        WinnableDeal.objects.create(variant="penguin", use=WinnableDeal.Use.RACE, seed=seed)
    players = [here(f"P{i}", on=arena) for i in range(10)]
    races = placement.place(arena.pk)
    assert sorted(race.seed for race in races) == [424242, 515151]
    for race in races:
        assert race.winnable
        assert {r.game.seed for r in race.racers.select_related("game")} == {race.seed}
    assert sum(race.racers.count() for race in races) == len(players)


def test_every_race_of_an_eighty_thieves_arena_deals_a_built_deal_no_pool_needed(make_arena, here):
    """Eighty Thieves has no race pool: its winnable deals are built ones, whose numbers are
    not public, one fresh for each race."""
    arena = make_arena(variant="eighty-thieves")
    for index in range(24):
        here(f"P{index}", on=arena)
    races = placement.place(arena.pk)
    assert len(races) == 3
    assert all(race.winnable and is_built(race.seed) for race in races)
    assert not any(race.seed in open_numbers() for race in races)
    assert len({race.seed for race in races}) == 3
    for race in races:
        assert {r.game.seed for r in race.racers.select_related("game")} == {race.seed}


def test_a_race_placed_while_the_pool_is_empty_keeps_its_random_deal_and_a_search_starts(
    make_arena, here, monkeypatch
):
    """The races start at once, so a random deal dealt for want of a proved one stays theirs
    (never marked winnable); the pool is searched for the next batches."""
    searches = []
    monkeypatch.setattr(deals, "start_search", lambda *asked: searches.append(asked))
    arena = make_arena(variant="penguin")
    WinnableDeal.objects.create(variant="penguin", use=WinnableDeal.Use.RACE, seed=424242)
    for index in range(16):
        here(f"P{index}", on=arena)
    races = sorted(placement.place(arena.pk), key=lambda race: not race.winnable)
    assert [(race.seed == 424242, race.winnable) for race in races] == [
        (True, True),
        (False, False),
    ]
    assert searches == [("penguin", WinnableDeal.Use.RACE)]


@pytest.mark.parametrize(
    ("visibility", "listed"),
    [(Arena.Visibility.PUBLIC, True), (Arena.Visibility.LINK, False)],
)
def test_an_arena_s_races_are_listed_where_the_arena_is(
    make_arena, here, client, visibility, listed
):
    """A link-only arena among friends keeps its races off /races/ too: its races are
    link-only."""
    arena = make_arena(variant="penguin", visibility=visibility)
    here("Ann", on=arena), here("Bob", on=arena)
    [race] = placement.place(arena.pk)
    assert race.visibility == (Race.Visibility.PUBLIC if listed else Race.Visibility.LINK)
    assert (race.code in client.get("/races/").content.decode()) == listed


def test_a_link_only_arena_s_races_placed_as_public_before_are_link_only_after_the_upgrade(
    make_arena, here
):
    """The data step of the migration: the races a link-only arena placed while its races were
    public become link-only; a public arena's stay listed."""
    friends = make_arena(variant="penguin", visibility=Arena.Visibility.LINK)
    listed = make_arena(variant="penguin")
    for on in (friends, listed):
        here(f"Ann of {on.pk}", on=on), here(f"Bob of {on.pk}", on=on)
    races = placement.place(friends.pk) + placement.place(listed.pk)
    Race.objects.update(visibility=Race.Visibility.PUBLIC)  # as placed before
    upgrade = importlib.import_module("arenas.migrations.0004_link_only_arenas_races_link_only")
    upgrade.races_as_their_arena(apps, SimpleNamespace(connection=connection))
    assert [Race.objects.get(pk=race.pk).visibility for race in races] == [
        Race.Visibility.LINK,
        Race.Visibility.PUBLIC,
    ]


def test_the_race_pool_is_stocked_for_the_crowd_that_joined_the_coming_arenas(make_arena, here):
    """A crowd's first placement takes a deal for every race of up to eight, and its races'
    ending together as many again: the pool of the game's race deals holds a quarter of the
    players who joined its arenas running or starting within the hour, ahead."""
    running = make_arena(variant="penguin")
    soon = make_arena(variant="penguin", starts_in_s=30 * 60)
    later = make_arena(variant="penguin", starts_in_s=2 * 60 * 60)
    ended = make_arena(variant="penguin", starts_in_s=-2 * 60 * 60)
    other_game = make_arena(variant="queenie")
    for index, on in enumerate([running] * 70 + [soon] * 30 + [later, other_game] * 9):
        here(f"P{index}", on=on)
    for index in range(9):  # they joined it while it ran
        ArenaPlayer.objects.create(arena=ended, player=Player.objects.create(nickname=f"E{index}"))
    assert placement.deals_wanted("penguin") == 25  # 100 players joined: 25 deals
    assert placement.deals_wanted("queenie") == 3
    assert winnable.pool_target("penguin", WinnableDeal.Use.RACE) == 25
    for index in range(200, 260):  # numbered after the first 118
        here(f"P{index}", on=running)
    assert placement.deals_wanted("penguin") == 40
    assert winnable.pool_target("penguin", WinnableDeal.Use.RACE) == 40
    assert (
        winnable.pool_target("queenie", WinnableDeal.Use.RACE)
        == winnable.POOL_SIZES[WinnableDeal.Use.RACE]
    )


def test_every_racer_of_a_placed_race_starts_from_the_same_position_in_a_game_of_their_own(
    arena, here
):
    players = [here(f"P{i}") for i in range(11)]
    races = placement.place(arena.pk)
    for race in races:
        racers = list(race.racers.select_related("game"))
        starts = {json.dumps(r.game.state, sort_keys=True) for r in racers}
        assert len(starts) == 1 and {r.game.seed for r in racers} == {race.seed}
        assert {r.game.started_at for r in racers} == {race.starts_at}
        start = EngineGame.from_dict(racers[0].game.state)
        assert {r.cards for r in racers} == {start.foundation_count()}
        assert len({r.game_id for r in racers}) == len(racers)  # a game each
    assert sum(race.racers.count() for race in races) == len(players)


def test_a_placed_race_tells_each_join_then_the_countdown_as_joins_one_by_one_would(arena, here):
    """Racers placed together are `joined` one by one in the race's log (each with the standings
    of the racers in so far), then the countdown carries them all."""
    for i in range(3):
        here(f"P{i}")
    [race] = placement.place(arena.pk)
    log = list(race.events.order_by("seq"))
    assert [e.kind for e in log] == ["joined", "joined", "joined", "countdown"]
    assert [e.seq for e in log] == [1, 2, 3, 4]
    racers = list(race.racers.all())
    ids = [r.public_id for r in racers]
    assert [e.data["racer"]["id"] for e in log[:3]] == ids
    assert [e.data["standings"] for e in log[:3]] == [ids[:1], ids[:2], ids]
    assert log[3].data["standings"] == ids
    assert [r["status"] for r in log[3].data["racers"]] == ["playing"] * 3
    race.refresh_from_db()
    assert race.event_seq == 4


def test_a_batch_of_races_costs_the_same_statements_whatever_its_size(arena, make_arena, here):
    """Under load a placement's time is its round trips: a batch's races, racers, games, events
    and deals are written together, so two races cost what eight do, and no row is written and
    then updated (each racer is inserted with their game, status and cards)."""

    def placed(players: int, on) -> list[str]:
        for i in range(players):
            here(f"P{on.pk}-{i}", on=on)
        with CaptureQueriesContext(connection) as queries:
            races = placement.place(on.pk)
        assert len(races) == players // 8
        return [q["sql"] for q in queries]

    two, eight = placed(16, arena), placed(64, make_arena())
    assert len(two) == len(eight) <= BATCH_STATEMENTS, (two, eight)
    assert not [sql for sql in eight if sql.startswith('UPDATE "races_racer"')]
    for racer in Racer.objects.select_related("game"):
        assert racer.game.player_id == racer.player_id and racer.status == "playing"
        assert racer.cards == EngineGame.from_dict(racer.game.state).foundation_count()


def test_a_racer_done_waits_for_the_next_race_in_one_read_and_one_write(arena, here):
    """A racer done in an arena's race who waits on its socket (`wait`): their racer, the race
    as it stands and its arena in one read, their presence in one write, and their own row of
    the arena's board with it (its entry's read: the socket sends that row at once); a racer
    still racing is refused, and a player not in the race is told so."""
    ann, bob = here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    outsider = here("Cat")  # in the arena, not in the race
    done, racing = ann, bob
    race_actions.do_resign(race, done)
    actions.do_present(arena, done, False)  # their arena page closed, as a race page's is
    with CaptureQueriesContext(connection) as queries:
        found = rooms.present_after_race(race, done)
    arena_found, present, own = found
    assert arena_found == arena and present and len(queries) == 3, [q["sql"] for q in queries]
    assert queries[2]["sql"].startswith('SELECT "arenas_arenaplayer"."player_id"')
    assert json.loads(own[done.pk])["name"] == "Ann"
    assert ArenaPlayer.objects.get(arena=arena, player=done).sockets == 1
    with pytest.raises(lifecycle.RaceRuleError) as refused:
        rooms.present_after_race(race, racing)
    assert refused.value.code == "still_racing"
    with pytest.raises(lifecycle.RaceRuleError) as refused:
        rooms.present_after_race(race, outsider)
    assert refused.value.code == "not_in_race"


def test_one_player_waits_alone(arena, here):
    here("Ann")
    assert placement.place(arena.pk) == []
    assert not Race.objects.exists()


@pytest.fixture
def countdown(no_countdown, monkeypatch):
    """Races placed with their countdown (this module's races otherwise start at once)."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 3000)


def test_a_player_alone_joins_a_race_of_the_arena_still_in_its_countdown(
    arena, here, countdown, monkeypatch, django_capture_on_commit_callbacks
):
    """The last racer of a race comes back to the arena's lobby just after its others were
    placed: rather than wait alone for a second free player, they join a race in its countdown
    that has room, on its deal, from its start, announced to the race's sockets."""
    told = []
    monkeypatch.setattr(events, "placed", lambda arena, races: told.append(races))
    ann = here("Ann")
    here("Bob"), here("Cat")
    [race] = placement.place(arena.pk)
    dee = here("Dee")
    with django_capture_on_commit_callbacks(execute=True):
        assert placement.place(arena.pk) == [race]
    racers = race.racers.select_related("game")
    late, first = racers.get(player=dee), racers.get(player=ann)
    assert late.status == "playing" and late.cards == first.cards
    assert late.game.seed == race.seed and late.game.state == first.game.state
    assert late.game.started_at == race.starts_at and late.game.kind == first.game.kind
    last = race.events.order_by("seq").last()
    assert last.kind == "joined" and last.data["racer"]["id"] == late.public_id
    assert last.data["racer"]["status"] == "playing"
    assert set(last.data["standings"]) == set(racers.values_list("public_id", flat=True))
    assert len(last.data["standings"]) == 4
    assert told == [{dee.pk: race.get_absolute_url()}]
    assert ArenaPlayer.objects.get(arena=arena, player=dee).free_since is None
    assert placement.place(arena.pk) == []  # in a race now


def test_a_player_alone_waits_if_no_race_in_its_countdown_has_room_and_time(
    arena, here, make_arena, countdown
):
    """A full race, a race about to start, a race under way and another arena's race take
    nobody: the player waits for a second free player."""
    for i in range(8):
        here(f"P{i}")
    [full] = placement.place(arena.pk)
    assert full.racers.count() == 8
    here("Ann"), here("Bob")
    [soon] = placement.place(arena.pk)
    here("Cat"), here("Dan")
    [running] = placement.place(arena.pk)
    now = timezone.now()
    Race.objects.filter(pk=soon.pk).update(
        starts_at=now + timedelta(seconds=placement.LATE_JOIN_LEAD_S / 2)
    )
    Race.objects.filter(pk=running.pk).update(starts_at=now - timedelta(seconds=1))
    other = make_arena()
    here("Eve", on=other), here("Fay", on=other)
    placement.place(other.pk)
    gil = here("Gil")
    assert placement.place(arena.pk) == []
    assert ArenaPlayer.objects.get(arena=arena, player=gil).free_since is not None
    assert not Racer.objects.filter(player=gil).exists()


def test_a_late_racer_plays_the_race_and_counts_in_its_end(arena, here, countdown):
    """The race is over when the late racer is done too, and they score like the others."""
    ann, bob = here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    cat = here("Cat")
    assert placement.place(arena.pk) == [race]
    Race.objects.filter(pk=race.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    play_out(race, movers=[cat], resigners=[ann, bob])
    assert race.status == Race.Status.STARTED  # Cat still plays
    race_actions.do_resign(race, cat)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    results = {r.player_id: r for r in ArenaResult.objects.filter(race=race)}
    assert set(results) == {ann.pk, bob.pk, cat.pk}
    assert {r.racers for r in results.values()} == {3}
    assert results[cat.pk].moved and results[cat.pk].points > 0


@pytest.mark.parametrize(("free", "sizes"), [(2, [2]), (8, [8]), (9, [5, 4]), (17, [6, 6, 5])])
def test_free_players_split_into_races_of_two_to_eight_as_even_as_can_be(free, sizes):
    assert placement.race_sizes(free) == sizes


def test_a_crowd_is_placed_once_each_in_races_of_at_most_eight(arena, here):
    players = [here(f"P{i}") for i in range(19)]
    races = placement.place(arena.pk)
    assert sorted(r.racers.count() for r in races) == [6, 6, 7]
    placed = list(Racer.objects.values_list("player", flat=True))
    assert sorted(placed) == sorted(p.pk for p in players)


def test_a_crowd_is_placed_a_batch_of_races_a_transaction_each_told_after_its_commit(
    arena, here, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(placement, "RACES_PER_TRANSACTION", 2)
    told = []
    monkeypatch.setattr(events, "placed", lambda arena, races: told.append(sorted(races)))
    players = [here(f"P{i}") for i in range(19)]
    with django_capture_on_commit_callbacks(execute=True):
        races = placement.place(arena.pk)
    assert [r.racers.count() for r in races] == [7, 6, 6]
    assert [len(batch) for batch in told] == [13, 6]
    assert sorted(sum(told, [])) == sorted(p.pk for p in players)


def test_paused_players_and_players_whose_page_is_closed_are_not_placed(arena, here):
    here("Ann"), here("Bob")
    cat, dan = here("Cat"), here("Dan")
    actions.do_pause(arena, cat, True)
    actions.do_present(arena, dan, False)
    [race] = placement.place(arena.pk)
    assert race.racers.count() == 2
    actions.do_pause(arena, cat, False)
    actions.do_present(arena, dan, True)
    [race] = placement.place(arena.pk)
    assert set(race.racers.values_list("player", flat=True)) == {cat.pk, dan.pk}


def test_a_page_count_left_up_by_a_server_that_died_goes_stale(arena, here):
    """Its socket never said goodbye: no server has seen the player lately."""
    ann, bob, cat = here("Ann"), here("Bob"), here("Cat")
    gone = timezone.now() - timedelta(seconds=placement.SEEN_WITHIN_S + 1)
    ArenaPlayer.objects.filter(player=cat).update(seen_at=gone)
    [race] = placement.place(arena.pk)
    assert set(race.racers.values_list("player", flat=True)) == {ann.pk, bob.pk}


def test_a_player_in_another_race_is_not_placed(arena, here, make_arena):
    other = make_arena()
    ann, bob, cat = here("Ann"), here("Bob"), here("Cat")
    actions.do_join(other, ann)
    actions.do_present(other, ann, True)
    here("Dan", on=other)
    [race] = placement.place(other.pk)
    assert race.racers.filter(player=ann).exists()
    [race] = placement.place(arena.pk)
    assert set(race.racers.values_list("player", flat=True)) == {bob.pk, cat.pk}


def test_the_lobby_counts_who_races_who_waits_and_who_sits_out(arena, here, make_arena):
    here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    cat, dan, eve = here("Cat"), here("Dan"), here("Eve")
    actions.do_pause(arena, dan, True)
    actions.do_present(arena, eve, False)  # joined, page closed: neither waiting nor racing
    other = make_arena()
    here("Fay", on=other)
    actions.do_join(other, cat)
    actions.do_present(other, cat, True)
    placement.place(other.pk)  # Cat races in the other arena: racing here too, not waiting
    with CaptureQueriesContext(connection) as queries:
        counts = standings.lobby(arena)
    assert counts == {"joined": 5, "racing": 3, "waiting": 0, "paused": 1}
    assert len(queries) == 1
    # Who races is read once for the count, not once a player: a correlated EXISTS was planned
    # by PostgreSQL, on tables with no statistics yet, as a scan of the races a player.
    assert "EXISTS" not in queries[0]["sql"].upper()
    play_out(race)
    assert standings.lobby(arena) == {"joined": 5, "racing": 1, "waiting": 2, "paused": 1}


def test_players_wait_for_others_to_gather_unless_a_full_race_is_free(arena, here, settings):
    settings.ARENA_GATHER_S = 60
    for name in "ABCDEFG":
        here(name)
    assert placement.place(arena.pk) == []
    here("H")
    assert [r.racers.count() for r in placement.place(arena.pk)] == [8]


def test_a_crowd_that_joined_before_the_start_is_placed_just_before_it_to_race_from_it(
    make_arena, countdown, monkeypatch
):
    """A scheduled arena's players, joined before its start, are placed in its last
    `FIRST_RACES_AHEAD` (their race pages load and open their sockets then, not all at the
    start), in races whose countdown ends at the start, each batch `BATCH_STARTS_APART` after
    the one before; one who joins later joins one of them with room. Within a countdown of the
    start, the races take their whole countdown."""
    monkeypatch.setattr(placement, "RACES_PER_TRANSACTION", 1)
    arena = make_arena(starts_in_s=placement.FIRST_RACES_AHEAD.total_seconds() / 2)
    crowd = [Player.objects.create(nickname=f"P{i}") for i in range(10)]
    for player in crowd:
        actions.do_join(arena, player)
        actions.do_present(arena, player, True)
    races = placement.place(arena.pk)
    assert sorted(race.racers.count() for race in races) == [5, 5]
    for race, after in zip(races, (timedelta(0), placement.BATCH_STARTS_APART), strict=True):
        assert (
            timedelta(0) <= race.starts_at - (arena.starts_at + after) < timedelta(milliseconds=1)
        )
    assert all(
        race.ends_at == race.starts_at + timedelta(seconds=race.time_limit_s) for race in races
    )
    assert all(race.status == Race.Status.STARTED for race in races)  # in their countdown
    late = Player.objects.create(nickname="Late")
    actions.do_join(arena, late)
    actions.do_present(arena, late, True)
    [joined] = placement.place(arena.pk)
    assert joined in races and joined.racers.filter(player=late).exists()

    soon = make_arena(starts_in_s=1)
    for player in (Player.objects.create(), Player.objects.create()):
        actions.do_join(soon, player)
        actions.do_present(soon, player, True)
    before = timezone.now()
    [race] = placement.place(soon.pk)
    assert race.starts_at >= before + timedelta(milliseconds=lifecycle.COUNTDOWN_MS)


def test_nothing_is_placed_before_the_start_or_after_the_end(make_arena):
    for arena in (make_arena(starts_in_s=600), make_arena(starts_in_s=-3600, minutes=30)):
        ArenaPlayer.objects.bulk_create(
            ArenaPlayer(arena=arena, player=Player.objects.create(), sockets=1) for _ in range(3)
        )
        assert placement.place(arena.pk) == []


@pytest.mark.django_db(transaction=True)  # the board is written after the commit
def test_a_race_end_gives_points_puts_them_on_the_board_and_frees_the_racers(arena, here):
    ann, bob, cat = here("Ann"), here("Bob"), here("Cat")
    [race] = placement.place(arena.pk)
    play_out(race, movers=[ann, bob], resigners=[cat, bob, ann])
    results = {r.player_id: r for r in ArenaResult.objects.filter(race=race)}
    places = {r.player_id: r.place for r in race.racers.all()}
    assert {pid: r.place for pid, r in results.items()} == places
    by_place = sorted(results.values(), key=lambda r: r.place)
    # Cat made no move: nothing, whatever the place.
    assert [(r.points if r.moved else None) for r in by_place][:2] == [4, 3]
    assert results[cat.pk].points == 0
    top = board.read_top(arena, 10)
    assert [(row.player_id, row.points) for row in top.rows] == [
        (r.player_id, r.points) for r in by_place
    ]
    # The race pages wait for the next race over the arena's socket, until the arena's end.
    [event] = race.events.filter(kind="arena")
    assert event.data == arena.next_race_wait()
    entries = ArenaPlayer.objects.filter(arena=arena)
    assert all(e.free_since is not None for e in entries)
    [again] = placement.place(arena.pk)  # placed again, with no click
    assert again.racers.count() == 3


def closed_by_the_last_resignation(arena, here, names: list[str]) -> tuple[Race, list[str]]:
    """A race of these players placed and played out, the last of them resigning last (which
    closes it); the race and the statements of that last resignation."""
    players = [here(name) for name in names]
    [race] = placement.place(arena.pk)
    play_out(race, movers=players[:2], resigners=players[:-1])
    with CaptureQueriesContext(connection) as queries:
        race_actions.do_resign(race, players[-1])
    return race, [q["sql"] for q in queries]


def test_a_race_s_points_are_written_in_one_statement_whatever_its_size(arena, here):
    """The close holds the race's row and its racers' arena rows: their results and totals are
    one insert and one update, not one of each a racer."""
    race, sql = closed_by_the_last_resignation(arena, here, ["Ann", "Bob", "Cat", "Dan", "Eve"])
    assert len([s for s in sql if s.startswith('INSERT INTO "arenas_arenaresult"')]) == 1
    assert len([s for s in sql if s.startswith('UPDATE "arenas_arenaplayer"')]) == 1
    assert ArenaResult.objects.filter(race=race).count() == 5
    assert sorted(ArenaPlayer.objects.values_list("races", flat=True)) == [1] * 5


def test_the_last_resignation_stores_its_event_the_close_s_and_the_arena_s_in_one_write(
    arena, here
):
    """The last racer's `progress`, the race's `finished` and the `arena` event that sends the
    racers back to the arena are numbered in order and stored with the race's new status in
    one insert and one update (issue 27: a crowd's races end together), as the resignations
    before it store their one event each."""
    race, sql = closed_by_the_last_resignation(arena, here, ["Ann", "Bob", "Cat"])
    assert len([s for s in sql if s.startswith('INSERT INTO "races_raceevent"')]) == 1
    assert len([s for s in sql if s.startswith('UPDATE "races_race" ')]) == 1
    race.refresh_from_db()
    last = list(race.events.order_by("-seq")[:3])[::-1]
    assert [(e.seq, e.kind) for e in last] == [
        (race.event_seq - 2, "progress"),
        (race.event_seq - 1, "finished"),
        (race.event_seq, "arena"),
    ]
    assert race.status == Race.Status.FINISHED and race.finished_at is not None


RACERS_READ = 'SELECT "races_racer".'
RACER_READS = {"a resignation": 2, "the last resignation, which closes the race": 4}
"""Reads of the racers' table (issue 27: a race's end is most of an arena's database work): the
resigning racer with their game and the race, then under the race's lock all racers, their rows
alone, for the `progress` event and to say whether the race is done. Only the close reads them
with their games and players (its places, its ratings, the `finished` event and the arena's
points all come from that read, and the withheld results are asked for once,
`races.actions.Closing`); the one left is the finished race's games handed to fair play's
assessment. It was 4 and 12, then 3 and 7 (the resigning racer read again under the lock, and the
close's own read), then 2 and 5 (the ratings' read of the signed-in racers, and the withheld
results asked for by the ratings and again by the points), then 2 and 3 (the close took the
resignation's read, games and players and all). Their games and players were a third of each
resignation's CPU (scripts/arena_bench.py --ends, 5.7-6.0 ms against 3.9-4.3): a race's racers
are done one by one, and only the last one's read needs them."""


def with_games_and_players(sql: str) -> bool:
    """A racers' read with their games and players (not fair play's, which adds its own)."""
    joins = ('JOIN "games_game"', 'JOIN "games_player"')
    return all(join in sql for join in joins) and "fairplay" not in sql


def test_a_race_s_racers_are_read_with_their_games_and_players_only_by_its_close(arena, here):
    players = [here(name) for name in ["Ann", "Bob", "Cat", "Dan", "Eve"]]
    [race] = placement.place(arena.pk)
    play_out(race, movers=players[:2], resigners=players[:-2])
    reads, joined = {}, {}
    for what, player in zip(RACER_READS, players[-2:], strict=True):
        with CaptureQueriesContext(connection) as queries:
            race_actions.do_resign(race, player)
        racers = [q["sql"] for q in queries if q["sql"].startswith(RACERS_READ)]
        reads[what] = len(racers)
        joined[what] = len([sql for sql in racers if with_games_and_players(sql)])
    assert reads == RACER_READS
    assert joined == {"a resignation": 0, "the last resignation, which closes the race": 1}
    assert ArenaResult.objects.filter(race=race).count() == 5
    assert set(race.racers.values_list("place", flat=True)) == {1, 2, 3, 4, 5}


def test_a_result_fair_play_withholds_gives_no_points_and_stays_so_on_a_recount(
    arena, here, monkeypatch
):
    """The race's ratings' rule (fair play registers it): the same players get no points."""
    ann, bob = here("Ann"), here("Bob")
    monkeypatch.setattr(updates, "WITHHELD", [lambda race: {ann.pk}])
    [race] = placement.place(arena.pk)
    play_out(race, movers=[ann, bob], resigners=[bob, ann])
    held = ArenaResult.objects.get(race=race, player=ann)
    assert held.place == 1 and held.withheld and held.points == 0
    assert ArenaResult.objects.get(race=race, player=bob).points == 3
    assert board.recount(arena)[ann.pk].points == 0


def test_arena_races_rate_signed_in_racers_as_quick_races_do(arena, here):
    ann, bob = here("Ann"), here("Bob")
    for player in (ann, bob):
        player.user = User.objects.create(username=player.nickname)
        player.save()
    [race] = placement.place(arena.pk)
    play_out(race, movers=[ann, bob])
    assert RatingChange.objects.filter(race=race).count() == 2


def test_a_race_that_ends_after_the_arena_still_counts(arena, here):
    ann, bob = here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    type(arena).objects.filter(pk=arena.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    play_out(race, movers=[ann, bob])
    assert ArenaResult.objects.filter(race=race).count() == 2
    assert placement.place(arena.pk) == []


def test_joining_twice_changes_nothing_and_joining_an_ended_arena_is_refused(make_arena):
    arena = make_arena()
    ann = Player.objects.create(nickname="Ann")
    first, created = actions.do_join(arena, ann)
    again, created_again = actions.do_join(arena, ann)
    assert created and not created_again and first.pk == again.pk
    ended = make_arena(starts_in_s=-7200, minutes=30)
    with pytest.raises(ArenaRuleError, match="has ended") as refused:
        actions.do_join(ended, ann)
    assert refused.value.code == "arena_over"
    assert not ArenaPlayer.objects.filter(arena=ended).exists()


def test_joining_before_the_start_is_allowed(make_arena):
    arena = make_arena(starts_in_s=600)
    entry, _ = actions.do_join(arena, Player.objects.create())
    assert entry.arena == arena


def test_leaving_mid_race_resigns_and_keeps_the_points(arena, here):
    ann, bob, cat = here("Ann"), here("Bob"), here("Cat")
    [race] = placement.place(arena.pk)
    actions.do_leave(arena, ann)
    assert race.racers.get(player=ann).status == "resigned"
    play_out(race, movers=[bob, cat], resigners=[bob, cat])
    entry = ArenaPlayer.objects.get(arena=arena, player=ann)
    assert entry.paused and entry.races == 1
    assert placement.place(arena.pk)[0].racers.filter(player=ann).count() == 0
    actions.do_join(arena, ann)  # back: resumed
    assert not ArenaPlayer.objects.get(arena=arena, player=ann).paused


def test_leaving_in_the_countdown_resigns_and_the_race_ends_with_its_others(arena, here, countdown):
    """Leave before the race's start resigns too, so the absent player does not hold the race
    open until its time limit: once the others are done the race closes, and the leaver, who
    never moved, scores nothing."""
    ann, bob, cat = here("Ann"), here("Bob"), here("Cat")
    [race] = placement.place(arena.pk)
    assert race.starts_at > timezone.now()  # in its countdown
    actions.do_leave(arena, ann)
    left = race.racers.select_related("game").get(player=ann)
    assert (left.status, left.done_ms) == ("resigned", 0)
    assert left.game.status == "resigned" and left.game.finished_at == race.starts_at
    play_out(race, resigners=[bob, cat])  # the others give up in the countdown as well
    assert race.status == "finished" and race.finished_at == race.starts_at
    assert ArenaResult.objects.get(race=race, player=ann).points == 0
    assert ArenaPlayer.objects.get(arena=arena, player=ann).paused


def test_pausing_someone_who_never_joined_is_refused(arena):
    with pytest.raises(ArenaRuleError) as refused:
        actions.do_pause(arena, Player.objects.create(), True)
    assert refused.value.code == "not_in_arena"


@pytest.mark.django_db(transaction=True)
def test_a_lost_board_is_rebuilt_from_the_record_with_every_point(arena, here):
    players = [here(f"P{i}") for i in range(5)]
    for _ in range(3):
        for race in placement.place(arena.pk):
            play_out(race, movers=[r.player for r in race.racers.select_related("player")])
    before = board.read_top(arena, 10)
    store = get_rank_store()
    store.delete(board.key(arena))  # Redis came back empty
    store.delete(board.marker_key(arena))
    assert board.read_top(arena, 10).count == 0
    call_command("rebuild_leaderboards", "--missing", stdout=None)
    after = board.read_top(arena, 10)
    assert [(r.player_id, r.points) for r in after.rows] == [
        (r.player_id, r.points) for r in before.rows
    ]
    assert after.count == len(players)
    store.set(board.key(arena), str(players[0].pk), 0)  # a wrong score: the full rebuild mends it
    store.set(board.key(arena), "999999", 0)  # and drops who is not in the arena
    call_command("rebuild_leaderboards", stdout=None)
    mended = board.read_top(arena, 10)
    assert [(r.player_id, r.points) for r in mended.rows] == [
        (r.player_id, r.points) for r in before.rows
    ]
    recounted = board.recount(arena)
    for entry in ArenaPlayer.objects.filter(arena=arena):
        assert recounted[entry.player_id] == board.standing_of(entry)


def test_an_arena_page_opening_marks_its_player_present_in_one_statement(arena, here):
    """The socket's connect (arenas/consumers.py) asks the player's entry nothing: the presence
    write says whether there is one (a player who has joined then has their own row read, for
    the board the socket is sent at once). A visitor who has not joined is a spectator, and
    nothing of theirs is written."""

    def scope_of(player: Player) -> dict:
        session = SessionStore()
        session[SESSION_PLAYER_KEY] = player.pk
        session.save()
        return {"user": AnonymousUser(), "session": SessionStore(session.session_key)}

    ann, visitor = here("Ann"), Player.objects.create(nickname="Visitor")
    for player, present in ((ann, True), (visitor, False)):
        scope = scope_of(player)
        with CaptureQueriesContext(connection) as queries:
            view = consumers.connect(arena.public_id, scope)
        assert (view.arena, view.player, view.present) == (arena, player, present)
        entries = [q["sql"] for q in queries if '"arenas_arenaplayer"' in q["sql"]]
        assert entries[0].startswith("UPDATE"), entries
        assert len(entries) == (2 if present else 1), entries  # then their own row
        assert (player.pk in view.own) is present
    assert ArenaPlayer.objects.get(player=ann).sockets == 2  # `here` opened one page already
    assert not ArenaPlayer.objects.filter(player=visitor).exists()


def test_a_player_alone_joins_a_race_in_its_countdown_without_waiting_to_gather(
    arena, here, settings, countdown
):
    """The gather's wait is for free players to meet; a race in its countdown with room is that
    meeting. A crowd's last joiner who waited it missed the last countdowns and sat out a
    race's length."""
    settings.ARENA_GATHER_S = 60
    for name in "ABCDEFGH":
        here(name)
    [full] = placement.place(arena.pk)  # eight: no gathering
    assert full.racers.count() == 8
    ann, bob = here("Ann"), here("Bob")
    assert placement.place(arena.pk) == []  # two gather (60 s here)
    ArenaPlayer.objects.filter(player__in=[ann, bob]).update(
        free_since=timezone.now() - timedelta(seconds=61)
    )
    [race] = placement.place(arena.pk)
    cat = here("Cat")
    assert placement.place(arena.pk) == [race]  # alone: into the countdown at once
    assert Racer.objects.filter(race=race, player=cat).exists()


def past_its_time(race) -> None:
    """The race's time limit passed with no socket of it open to close it at its end."""
    Race.objects.filter(pk=race.pk).update(
        starts_at=timezone.now() - timedelta(minutes=10),
        ends_at=timezone.now() - timedelta(seconds=1),
    )


def test_a_race_nobody_closed_at_its_end_frees_its_racers_at_the_next_presence_tick(arena, here):
    """No page of the race was open at its end and no scheduler runs (`make run`): the arena's
    tick, as it says who is present, closes it, and its racers are placed again."""
    ann, bob = here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    past_its_time(race)
    rooms.tick_work(arena, [ann.pk, bob.pk], say_seen=False, since=timezone.now())
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED  # only on presence ticks
    found = rooms.tick_work(
        arena, [ann.pk, bob.pk], say_seen=True, since=timezone.now() - timedelta(minutes=1)
    )
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    assert ArenaResult.objects.filter(race=race).count() == 2
    assert set(found) == {ann.pk, bob.pk} and found[ann.pk][0] != race.get_absolute_url()


def test_an_ended_arena_s_race_nobody_closed_is_closed_when_its_standings_are_read(arena, here):
    """Its podium does not wait for a scheduler: the first read of the standings closes it."""
    for name in ("Ann", "Bob"):
        here(name)
    [race] = placement.place(arena.pk)
    type(arena).objects.filter(pk=arena.pk).update(ends_at=timezone.now() - timedelta(seconds=5))
    arena.refresh_from_db()
    past_its_time(race)
    frame = standings.board_frame(arena)
    assert standings.is_final(frame)
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED


def test_a_page_on_a_killed_server_leaves_the_lobby_s_count_within_seconds(arena, here):
    """A server killed with a player's arena page open never counts that page as closed. Once
    no server has seen the player for `SEEN_WITHIN_S`, they wait in the lobby no longer: the
    count says so, as the placement already passes them over."""
    ann, bob = here("Ann"), here("Bob")
    assert standings.lobby(arena)["waiting"] == 2
    long_ago = timezone.now() - timedelta(seconds=placement.SEEN_WITHIN_S + 1)
    ArenaPlayer.objects.filter(player=ann).update(seen_at=long_ago)  # its server is gone
    assert ArenaPlayer.objects.get(player=ann).sockets == 1
    assert standings.lobby(arena) == {"joined": 2, "racing": 0, "waiting": 1, "paused": 0}
    assert placement.free_entries(arena, timezone.now()).get().player == bob
