"""Arena pages: the list, setting one up, the arena page before, during and after, joining and
pausing by its buttons; and the standing schedule (issue 27)."""

import re
import threading
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
import redis.exceptions
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from arenas import actions, board, placement, schedule, standings, views
from arenas.models import Arena, ArenaPlayer, ArenaSchedule
from games.identity import ticket_player_id
from games.models import Player
from games.rankstore import get_rank_store
from tests.arenas.conftest import play_out
from tests.support import log_in_as_guest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]


def test_the_list_shows_coming_running_and_ended_public_arenas(client, make_arena):
    coming = make_arena(starts_in_s=3600, name="Arena A")
    running = make_arena(name="Arena B")
    ended = make_arena(starts_in_s=-7200, name="Arena C")
    make_arena(name="Secret", visibility=Arena.Visibility.LINK)
    page = client.get(reverse("arenas:list")).content.decode()
    assert page.index("Running now") < page.index(running.name) < page.index("Coming up")
    assert page.index("Coming up") < page.index(coming.name) < page.index(">Ended<")
    assert page.index(">Ended<") < page.index(ended.name)
    assert "Secret" not in page


def test_the_list_gives_when_a_running_arena_ends_and_when_the_others_start(client, make_arena):
    running = make_arena(name="Arena B")  # started a minute ago, ends in 29
    coming = make_arena(starts_in_s=3600, name="Arena A")
    page = client.get(reverse("arenas:list")).content.decode()
    tables = dict(re.findall(r'<h2 id="(\w+)-h">.*?<table.*?<thead>(.*?)</tbody>', page, re.S))
    assert "Ends (<span data-zone>UTC</span>)" in tables["running"]
    assert (
        f'data-label="Ends"><time data-local="day" datetime="{running.ends_at:%Y-%m-%dT%H:%M:%S}'
        in tables["running"]
    )
    assert "Starts (<span data-zone>UTC</span>)" in tables["upcoming"]
    assert (
        f'data-label="Starts"><time data-local="day" datetime="{coming.starts_at:%Y-%m-%dT%H:%M:%S}'
        in tables["upcoming"]
    )


def test_a_friend_sets_up_a_link_only_arena_with_the_form(client):
    start = (timezone.now() + timedelta(hours=1)).astimezone(UTC)
    response = client.post(
        reverse("arenas:new"),
        {
            "name": "Friday night",
            "variant": "penguin",
            "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
            "minutes": 20,
            "race_time_limit_s": 180,
            "visibility": "link",
        },
    )
    arena = Arena.objects.get()
    assert response.url == arena.get_absolute_url()
    assert (arena.name, arena.variant, arena.visibility) == ("Friday night", "penguin", "link")
    assert arena.ends_at - arena.starts_at == timedelta(minutes=20)
    assert arena.race_time_limit_s == 180 and arena.created_by is not None
    assert not arena.players.exists()  # "Join it myself" unticked (a form sent without it)


def test_the_organiser_is_in_the_arena_they_set_up_unless_they_untick_join(client):
    """The form's "Join it myself" is ticked at first: the organiser is in the arena from the
    start, their page showing what a joined player's does (they may sit out or leave)."""
    form = client.get(reverse("arenas:new")).content.decode()
    assert 'type="checkbox" name="join"' in form and " checked" in form.split('name="join"')[1][:60]
    start = (timezone.now() + timedelta(hours=1)).astimezone(UTC)
    fields = {
        "variant": "penguin",
        "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "minutes": 20,
        "race_time_limit_s": 300,
        "visibility": "link",
        "join": "on",
    }
    response = client.post(reverse("arenas:new"), fields)
    arena = Arena.objects.get()
    assert response.url == arena.get_absolute_url()
    entry = arena.players.get()
    assert entry.player == arena.created_by and not entry.paused
    page = client.get(arena.get_absolute_url()).content.decode()
    assert 'id="pause-button"' in page and 'id="join-button"' not in page


def test_a_start_in_the_past_is_refused_by_the_form(client):
    start = datetime(2001, 1, 1, 12, 0, tzinfo=UTC)
    response = client.post(
        reverse("arenas:new"),
        {
            "variant": "penguin",
            "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
            "minutes": 30,
            "race_time_limit_s": 300,
            "visibility": "public",
        },
    )
    assert response.status_code == 200 and not Arena.objects.exists()
    # beside the start, which it is about, as a sentence; not above the form
    assert response.context["form"].errors == {"starts_at": ["The start is in the past."]}
    page = response.content.decode()
    field = page[page.index('<div class="field field-starts_at">') :]
    assert "The start is in the past." in field[: field.index("</div>")]
    assert 'aria-invalid="true"' in field[: field.index("</div>")]


def test_the_minute_typed_as_now_is_taken_until_the_next_minute_ends():
    """The form gives the start to the minute: a start typed as the current minute is "now"
    whenever in the next minute it is sent, and in the past after that."""
    typed = datetime(2026, 12, 2, 3, 59, tzinfo=UTC)

    def refused(sent_after_s: float) -> list[str]:
        settings = {"variant": "penguin", "minutes": 30, "race_time_limit_s": 300}
        now = typed + timedelta(seconds=sent_after_s)
        found = actions.arena_refusals(**settings, starts_at=typed, visibility="link", now=now)
        return [refusal.reason for refusal in found]

    for sent_after_s in (0, 59.9, 60.5, 119.9):
        assert refused(sent_after_s) == []
    assert refused(120) == ["the start is in the past"]


def test_joining_by_the_button_then_again_says_so_and_pausing_sits_out(client, make_arena):
    arena = make_arena(starts_in_s=600)
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Starts in" in page and "Join the arena" in page and "Remind me" in page
    client.post(reverse("arenas:join", args=[arena.public_id]))
    again = client.post(reverse("arenas:join", args=[arena.public_id]), follow=True)
    assert "You are already in this arena." in again.content.decode()
    assert ArenaPlayer.objects.filter(arena=arena).count() == 1
    client.post(reverse("arenas:pause", args=[arena.public_id]), {"paused": "1"})
    page = client.get(arena.get_absolute_url()).content.decode()
    assert ArenaPlayer.objects.get().paused and "Resume" in page


def test_joining_an_ended_arena_says_it_has_ended(client, make_arena):
    arena = make_arena(starts_in_s=-7200)
    response = client.post(reverse("arenas:join", args=[arena.public_id]), follow=True)
    assert "this arena has ended" in response.content.decode()
    assert not ArenaPlayer.objects.exists()


JSON = {"HTTP_ACCEPT": "application/json"}
"""How the arena page's script sends its buttons (js/arena.js): it asks for JSON, not the page."""


def test_the_page_s_buttons_are_answered_with_the_new_buttons_and_no_page(client, make_arena):
    """Join, pause, resume and leave from the page's script: each answers with the player and
    their status and buttons as they now are, which the page swaps in without a reload."""
    arena = make_arena()
    join, pause, leave = (
        reverse(f"arenas:{name}", args=[arena.public_id]) for name in ("join", "pause", "leave")
    )
    joined = client.post(join, **JSON)
    assert joined.status_code == 200 and joined["Content-Type"] == "application/json"
    entry = ArenaPlayer.objects.get()
    body = joined.json()
    assert body["player"] == entry.player_id and body["note"] == ""
    assert body["who"] == {
        "name": entry.player.nickname,
        "url": reverse("records:player", args=[entry.player_id]),
    }
    assert body["controls"].startswith('<div id="arena-controls">')
    assert (
        "Waiting for another free player" in body["controls"]
        and 'id="pause-button"' in body["controls"]
    )
    # the ticket that makes the page's open socket the player's, for this arena's socket alone
    assert ticket_player_id(body["ticket"], arena.socket_path) == entry.player_id
    assert ticket_player_id(body["ticket"], make_arena().socket_path) is None
    assert client.post(join, **JSON).json()["note"] == "You are already in this arena."

    paused = client.post(pause, {"paused": "1"}, **JSON).json()
    assert ArenaPlayer.objects.get().paused and "Resume" in paused["controls"]
    assert "You are sitting out" in paused["controls"]
    assert '<input type="hidden" name="resume" value="1">' in paused["controls"]
    resumed = client.post(join, {"resume": "1"}, **JSON).json()  # as the Resume button sends it
    assert not ArenaPlayer.objects.get().paused and 'id="pause-button"' in resumed["controls"]
    assert resumed["note"] == "", "a resume is no second join"
    assert "Waiting for another free player" in resumed["controls"]

    left = client.post(leave, **JSON).json()
    assert left["note"].startswith("You left the arena: your points stay")
    assert ArenaPlayer.objects.get().paused and "Resume" in left["controls"]
    # nothing was kept for the next page: the notes went with the answers
    assert "You left the arena" not in client.get(arena.get_absolute_url()).content.decode()


@pytest.mark.parametrize("visitor", [True, False])
def test_a_first_join_is_answered_from_the_entry_it_made(make_arena, make_client, visitor):
    """An arena's crowd joins at once: the answer shows the entry the join made, not read again,
    and looks for no race (a player who has just joined is in none of the arena's)."""
    arena = make_arena()
    client = Client() if visitor else make_client("Ann")
    join = reverse("arenas:join", args=[arena.public_id])
    with CaptureQueriesContext(connection) as queries:
        body = client.post(join, **JSON).json()
    sqls = [query["sql"] for query in queries.captured_queries]
    entries = [sql for sql in sqls if sql.startswith('SELECT "arenas_arenaplayer"."id"')]
    savepoints = [sql for sql in sqls if sql.startswith("SAVEPOINT")]
    # The join's own look (`get_or_create`), then one transaction, the entry's insert: none
    # around the join's look and insert (two round trips more). A visitor's guest is made
    # first, as for any action that may be refused (`acting_player`): its own transaction.
    assert len(entries) == 1
    assert len(savepoints) == (2 if visitor else 1), sqls
    assert not any('FROM "races_race"' in sql for sql in sqls)
    assert body["player"] == ArenaPlayer.objects.get().player_id
    assert "Waiting for another free player" in body["controls"]


def test_a_refused_button_is_answered_with_its_code_and_changes_nothing(client, make_arena):
    ended = make_arena(starts_in_s=-7200)
    response = client.post(reverse("arenas:join", args=[ended.public_id]), **JSON)
    assert response.status_code == 409
    assert response.json()["error"] == "arena_over"
    assert response.json()["note"] == "this arena has ended: its podium is final"
    assert response.json()["player"] is None and "join-button" not in response.json()["controls"]
    running = make_arena()
    refused = client.post(reverse("arenas:pause", args=[running.public_id]), **JSON)
    assert refused.status_code == 409 and refused.json()["error"] == "not_in_arena"
    assert refused.json()["note"] == "you have not joined this arena"
    assert refused.json()["player"] is None
    assert not ArenaPlayer.objects.exists()


def test_a_form_sent_without_scripts_still_gets_the_page_back(client, make_arena):
    """A browser's own form post asks for HTML first: it is sent to the arena's page again."""
    arena = make_arena()
    browser_accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = client.post(
        reverse("arenas:join", args=[arena.public_id]), HTTP_ACCEPT=browser_accept
    )
    assert response.status_code == 302 and response["Location"] == arena.get_absolute_url()


def test_a_player_alone_in_a_running_arena_is_told_they_wait(client, make_arena):
    arena = make_arena()
    client.post(reverse("arenas:join", args=[arena.public_id]))
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Waiting for another free player" in page and "1 joined" in page


@pytest.mark.django_db(transaction=True)
def test_the_ended_arena_shows_its_podium_with_each_race_linked(client, arena, here):
    players = [here(f"P{i}") for i in range(4)]
    races = placement.place(arena.pk)
    for race in races:
        play_out(race, movers=players)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Podium" in page and "Final standings" in page
    code = races[0].code
    assert reverse("races:results", args=[code]) in page
    assert reverse("records:race_replay", args=[code]) in page
    for link in ("races:results", "records:race_replay"):  # the race's own pages, as any race's
        assert client.get(reverse(link, args=[code])).status_code == 200
    get_rank_store().delete(board.key(arena))  # a day later: the store keeps it no more
    get_rank_store().delete(board.marker_key(arena))
    again = client.get(arena.get_absolute_url()).content.decode()
    assert again.count('<tr data-player="') == 4, "the final standings, from the record"
    first = ArenaPlayer.objects.order_by("-points").first()
    player_page = client.get(reverse("arenas:player", args=[arena.public_id, first.player_id]))
    assert f"{first.points} points" in player_page.content.decode()


def test_a_streak_on_the_board_is_named_not_only_a_flame(client, arena):
    """A screen reader reads the emoji alone as "fire": the board names the streak."""
    player = Player.objects.create(nickname="Hot")
    ArenaPlayer.objects.create(
        arena=arena, player=player, points=9, races=2, place_sum=2, podiums_in_a_row=2
    )
    page = client.get(arena.get_absolute_url()).content.decode()
    assert (
        '<span class="streak" role="img" aria-label="on a streak"'
        ' title="On a streak: double points">🔥</span>'
    ) in page


def test_an_ended_arena_nobody_raced_in_has_no_podium_of_zeros(client, make_arena):
    """Players who joined and never raced are in the final standings, on no podium; an ended
    arena speaks of itself in the past, and counts nobody racing or waiting any more."""
    quiet = make_arena(starts_in_s=-7200)
    for name in ("Ann", "Bob"):
        player = Player.objects.create(nickname=name)
        ArenaPlayer.objects.create(arena=quiet, player=player)
    page = re.sub(r"\s+", " ", client.get(quiet.get_absolute_url()).content.decode())
    assert "Final standings" in page and page.count('<tr data-player="') == 2
    assert "<h3>" not in page and "Nobody scored a point in this arena." in page
    assert '<p class="muted" id="arena-lobby">2 joined</p>' in page
    player = reverse("arenas:player", args=[quiet.public_id, player.pk])
    assert "No race in this arena." in client.get(player).content.decode()
    nobody = client.get(make_arena(starts_in_s=-7200).get_absolute_url()).content.decode()
    assert "Nobody joined this arena." in nobody and "Nobody has joined yet" not in nobody


def test_one_point_and_one_race_are_said_in_the_singular(client, make_arena):
    """A fourth place scores 1 point: the podium and the player's page say '1 point', never
    '1 points', and '1 race'."""
    ended = make_arena(starts_in_s=-7200)
    for name, points in (("Ann", 5), ("Bob", 1)):
        player = Player.objects.create(nickname=name)
        ArenaPlayer.objects.create(arena=ended, player=player, points=points, races=1, place_sum=1)
    page = client.get(ended.get_absolute_url()).content.decode()
    podium = re.findall(r"<h3>\d+\. <a [^>]*>([^<]*)</a> — ([^<]*)</h3>", page)
    assert podium == [("Ann", "5 points"), ("Bob", "1 point")]
    bob = client.get(reverse("arenas:player", args=[ended.public_id, player.pk])).content.decode()
    assert "<p>1 point from 1 race.</p>" in bob


@pytest.mark.django_db(transaction=True)
def test_a_race_closing_after_the_arena_s_end_shows_on_its_board_without_counting_the_record(
    arena, here, monkeypatch
):
    """A race under way at the arena's end counts when it closes, and the ended arena is read
    from its board while the store keeps it: its sockets' rows and its API follow that close
    without counting the whole record again (180 ms of CPU for an arena of 1,000); the final
    standings and their podium, from the players' totals that close wrote with its status."""
    players = [here(name) for name in ("Ann", "Bob")]
    [race] = placement.place(arena.pk)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    arena.refresh_from_db()
    assert arena.phase() == Arena.Phase.ENDED
    play_out(race, movers=players)  # the race in hand at the end closes after it
    expected = {p.player_id: p.points for p in ArenaPlayer.objects.filter(arena=arena)}
    assert max(expected.values()) > 0

    def counted_again(arena):
        raise AssertionError("the record was counted again")

    monkeypatch.setattr(board, "recount", counted_again)
    with monkeypatch.context() as from_the_board_alone:
        from_the_board_alone.setattr(board, "totals", counted_again)
        own = standings.own_rows(arena, [p.pk for p in players])
        assert {pid: row["points"] for pid, row in own.items()} == expected
        page = standings.standings_page(arena, 1, 50)
        assert {row["player"]: row["points"] for row in page["rows"]} == expected
    frame = standings.board_frame(arena)
    assert standings.is_final(frame)
    assert {row["player"]: row["points"] for row in frame["rows"]} == expected
    podium = standings.podium(arena, frame)  # every arena page open at the end reloads for it
    assert [place["points"] for place in podium] == sorted(expected.values(), reverse=True)
    assert [len(place["results"]) for place in podium] == [1, 1]


class RankStoreAway:
    """A rank store whose Redis is away (restarting): every call fails as redis-py's does."""

    def __getattr__(self, name):
        def refused(*args, **kwargs):
            raise redis.exceptions.ConnectionError("Error 111 connecting. Connection refused.")

        return refused


@pytest.mark.django_db(transaction=True)
def test_while_the_rank_store_is_away_the_arena_is_shown_from_the_record(arena, here, monkeypatch):
    """A Redis restart in a running arena: its page, the players' own rows and the API's
    standings are read from the record (each race's points in PostgreSQL), not refused."""
    players = [here(name) for name in ("Ann", "Bob")]
    [race] = placement.place(arena.pk)
    play_out(race, movers=players)
    expected = {p.player_id: p.points for p in ArenaPlayer.objects.filter(arena=arena)}
    assert max(expected.values()) > 0
    monkeypatch.setattr(board, "get_rank_store", RankStoreAway)
    client = Client()
    log_in_as_guest(client, players[0])
    response = client.get(arena.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    assert (
        page.count('<tr data-player="') == 2
        and f'<tr data-player="{players[0].pk}" class="you" aria-current="true">' in page
    )
    api = client.get(reverse("arenas:api_arena", args=[arena.public_id])).json()
    assert {row["player"]: row["points"] for row in api["standings"]["rows"]} == expected
    own = standings.own_rows(arena, [p.pk for p in players])
    assert {pid: row["points"] for pid, row in own.items()} == expected


def test_a_crowd_loading_the_page_within_a_second_shares_one_read_of_the_board(
    client, arena, here, monkeypatch
):
    """Racers coming back from their races load the arena's page many times a second: each
    is shown the board this process read in that second, as the arena's sockets are."""
    here("Ann")
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 60)  # "that second", however slow the machine
    reads = []
    read = standings.board_frame
    monkeypatch.setattr(standings, "board_frame", lambda *a: reads.append(a) or read(*a))
    pages = [client.get(arena.get_absolute_url()).content.decode() for _ in range(3)]
    assert len(reads) == 1 and all("Ann" in page for page in pages)
    here("Bob")
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 0)  # a second later
    assert "Bob" in client.get(arena.get_absolute_url()).content.decode()
    assert len(reads) == 2


def test_a_crowd_shares_the_board_s_rows_and_each_sees_their_own_highlighted(
    arena, here, monkeypatch
):
    """The board's rows are rendered once for the board of the second; a viewer on the board
    gets their own row rendered for them, in its place."""
    players = [here(name) for name in ("Ann", "Bob", "Cy")]
    placement.place(arena.pk)  # on the board, with points 0
    # The four pages within the board's second, however slow the machine (CI's took longer).
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 60)
    rendered = []
    row = views.board_row
    monkeypatch.setattr(views, "board_row", lambda *a, **k: rendered.append(k) or row(*a, **k))
    pages = {}
    for player in [*players, None]:
        client = Client()
        if player is not None:
            log_in_as_guest(client, player)
        pages[player] = client.get(arena.get_absolute_url()).content.decode()
    assert rendered == [{}, {}, {}, {"you": True}, {"you": True}, {"you": True}]
    for player in players:
        page = pages[player]
        assert page.count('<tr data-player="') == 3 and page.count('class="you"') == 1
        # marked for a screen reader too: the current row, "(you)" after the name
        assert f'<tr data-player="{player.pk}" class="you" aria-current="true">' in page
        link = reverse("arenas:player", args=[arena.public_id, player.pk])
        own = f'<a href="{link}">{player.nickname}</a> <span class="visually-hidden">(you)</span>'
        assert own in page and page.count("(you)") == 1
    assert 'class="you"' not in pages[None] and pages[None].count('<tr data-player="') == 3
    assert "aria-current" not in pages[None] and "(you)" not in pages[None]


def test_a_player_below_the_board_s_top_sees_their_own_row_pinned_under_it(
    arena, here, monkeypatch
):
    players = [here(name) for name in ("Ann", "Bob", "Cy")]
    placement.place(arena.pk)
    top = standings.board_frame
    monkeypatch.setattr(standings, "board_frame", lambda a: top(a, size=1))
    pinned = {}
    for player in players:
        client = Client()
        log_in_as_guest(client, player)
        page = client.get(arena.get_absolute_url()).content.decode()
        mark = f'<tr data-player="{player.pk}" class="you pinned" aria-current="true">'
        if mark in page:
            pinned[player.nickname] = page[page.index(mark) :].split("</tr>")[0]
        assert page.count('<tr data-player="') == (2 if mark in page else 1)
    ranks = board.read_own(arena, [p.pk for p in players])
    assert sorted(pinned) == sorted(p.nickname for p in players if ranks[p.pk].rank > 1)
    for player in players:
        if player.nickname in pinned:
            row = pinned[player.nickname]
            link = reverse("arenas:player", args=[arena.public_id, player.pk])
            name = (
                f'<a href="{link}">{player.nickname}</a> <span class="visually-hidden">(you)</span>'
            )
            cells = [ranks[player.pk].rank, name, 0, 0]
            assert row.endswith("".join(f"<td>{cell}</td>" for cell in cells))


def test_threads_that_find_the_board_stale_wait_for_one_read(monkeypatch):
    """Pages that come together when the board is stale read it once between them."""
    arena = SimpleNamespace(public_id="stale-board", phase=lambda: Arena.Phase.RUNNING)
    reads = []

    def slow_read(_arena):
        reads.append(1)
        time.sleep(0.2)
        return {"rows": [], "read": len(reads)}

    monkeypatch.setattr(standings, "board_frame", slow_read)
    monkeypatch.setitem(standings._latest, arena.public_id, (time.monotonic() - 60, {"old": 1}))
    frames = []
    threads = [
        threading.Thread(target=lambda: frames.append(standings.current_board(arena)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(reads) == 1 and frames == [{"rows": [], "read": 1}] * 4


def test_the_schedule_makes_the_coming_arenas_once():
    ArenaSchedule.objects.create(variant="penguin", every_minutes=60, length_minutes=30)
    ArenaSchedule.objects.create(variant="queenie", every_minutes=60, active=False)
    call_command("run_arenas", "--hours", "5", stdout=None)
    call_command("run_arenas", "--hours", "5", stdout=None)
    arenas = list(Arena.objects.all())
    assert len(arenas) == 5 and {a.variant for a in arenas} == {"penguin"}
    assert all(
        a.starts_at.minute == 0 and a.ends_at - a.starts_at == timedelta(minutes=30) for a in arenas
    )


def test_the_standard_schedule_is_an_arena_of_each_game_every_hour_made_once():
    call_command("run_arenas", "--standard-schedule", "--hours", "1", stdout=None)
    call_command("run_arenas", "--standard-schedule", "--hours", "1", stdout=None)
    schedules = list(ArenaSchedule.objects.all())
    assert len(schedules) == len({s.variant for s in schedules}) == 5
    assert {(s.every_minutes, s.length_minutes) for s in schedules} == {(60, 30)}
    assert len({s.offset_minutes for s in schedules}) == 5
    assert Arena.objects.count() == 5  # one of each game within the hour


def test_the_schedule_s_start_times_follow_its_offset():
    every = ArenaSchedule(variant="penguin", every_minutes=30, offset_minutes=10)
    start = datetime(2026, 1, 1, 9, 11, tzinfo=UTC)
    found = schedule.starts_between(every, start, start + timedelta(hours=1))
    assert [t.strftime("%H:%M") for t in found] == ["09:40", "10:10"]


def test_an_organiser_may_not_set_a_race_limit_longer_than_the_arena(make_arena):
    with pytest.raises(actions.ArenaRuleError) as refused:
        actions.do_create_arena(
            None, variant="penguin", starts_at=timezone.now(), minutes=5, race_time_limit_s=600
        )
    assert refused.value.code == "bad_time_limit"


def test_the_admin_edits_the_schedule_and_lists_the_arenas(admin_client, arena):
    every = ArenaSchedule.objects.create(variant="penguin")
    assert admin_client.get(reverse("admin:arenas_arena_changelist")).status_code == 200
    assert (
        admin_client.get(reverse("admin:arenas_arena_change", args=[arena.pk])).status_code == 200
    )
    page = reverse("admin:arenas_arenaschedule_change", args=[every.pk])
    answer = admin_client.post(
        page,
        {
            "variant": "queenie",
            "every_minutes": 30,
            "offset_minutes": 5,
            "length_minutes": 20,
            "active": "on",
        },
    )
    assert answer.status_code == 302
    every.refresh_from_db()
    assert (every.variant, every.every_minutes, every.length_minutes) == ("queenie", 30, 20)


ROW = re.compile(r'<tr data-player="(\d+)"(?: class="(you(?: pinned)?)")?')


def board_of(page: str) -> list[tuple[int, str]]:
    """The board's rows on a page: each player's id, and "you" or "you pinned" for their own."""
    return [(int(pid), mark or "") for pid, mark in ROW.findall(page)]


def pager_of(page: str) -> tuple[str | None, str | None, str]:
    """The standings' pager: its previous and next links, and where it says the page is ("2 of
    3")."""
    nav = page[page.index('<nav class="pager"') :].split("</nav>")[0]
    prev, after = (
        re.search(r'href="([^"]+)" rel="prev"', nav),
        re.search(r'href="([^"]+)" rel="next"', nav),
    )
    return (
        prev.group(1) if prev else None,
        after.group(1) if after else None,
        " of ".join(
            re.search(r'<strong aria-current="page">(\d+)</strong> of (\d+)', nav).groups()
        ),
    )


@pytest.fixture
def five_ranked(arena, here):
    """Five players in the arena, on its board in order of their points (50 down to 10)."""
    players = [here(f"P{i}") for i in range(5)]
    entries = list(ArenaPlayer.objects.filter(arena=arena))
    for entry in entries:
        entry.points = 50 - 10 * [p.pk for p in players].index(entry.player_id)
        entry.races, entry.place_sum = 1, 1
        entry.save()
    board.write(arena, entries)
    return players


def test_the_standings_are_paged_with_the_player_s_own_row_pinned_on_every_page(
    arena, five_ranked, monkeypatch
):
    """?page=N shows the standings a page at a time (50 rows; 2 here), with links to the
    previous and next pages; the player's own row stays pinned under any page they are not on."""
    monkeypatch.setattr(standings, "TOP", 2)
    ids = [p.pk for p in five_ranked]
    last = Client()
    log_in_as_guest(last, five_ranked[-1])
    url = arena.get_absolute_url()
    first = last.get(url).content.decode()
    assert board_of(first) == [(ids[0], ""), (ids[1], ""), (ids[4], "you pinned")]
    assert pager_of(first) == (None, "?page=2", "1 of 3")
    second = last.get(url, {"page": 2}).content.decode()
    assert board_of(second) == [(ids[2], ""), (ids[3], ""), (ids[4], "you pinned")]
    assert pager_of(second) == ("?page=1", "?page=3", "2 of 3")
    third = last.get(url, {"page": 3}).content.decode()
    assert board_of(third) == [(ids[4], "you")]
    assert pager_of(third) == ("?page=2", None, "3 of 3")
    assert "Only the first page follows the races live" in second
    visitor = Client().get(url, {"page": 2}).content.decode()
    assert board_of(visitor) == [(ids[2], ""), (ids[3], "")]


def test_a_page_of_the_standings_that_is_not_there_is_refused_with_its_reason(
    client, arena, five_ranked, monkeypatch
):
    monkeypatch.setattr(standings, "TOP", 2)
    url = arena.get_absolute_url()
    past = client.get(url, {"page": 4})
    assert past.status_code == 404 and "have 3 pages" in past.content.decode()
    for bad in ("0", "two", "-1"):
        refused = client.get(url, {"page": bad})
        assert refused.status_code == 400
        assert f"page: &#x27;{bad}&#x27; is not a whole number" in refused.content.decode()


def test_an_ended_arena_s_later_pages_are_read_from_the_record_without_counting_it_again(
    client, arena, five_ranked, monkeypatch
):
    """A day after the end the store keeps the board no more: a page of the standings is read
    from the players' totals, never counted again from every result."""
    monkeypatch.setattr(standings, "TOP", 2)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    get_rank_store().delete(board.key(arena))
    get_rank_store().delete(board.marker_key(arena))

    def counted_again(arena):
        raise AssertionError("the record was counted again")

    monkeypatch.setattr(board, "recount", counted_again)
    page = client.get(arena.get_absolute_url(), {"page": 2}).content.decode()
    assert board_of(page) == [(five_ranked[2].pk, ""), (five_ranked[3].pk, "")]
    assert pager_of(page) == ("?page=1", "?page=3", "2 of 3")


@pytest.mark.django_db(transaction=True)
def test_an_ended_arena_s_standings_are_final_only_once_its_last_race_has_closed(
    client, arena, here, monkeypatch
):
    """A race under way at the end counts when it closes: until then the ended arena's page
    says how many races are still finishing, shows no podium, and keeps its script and socket
    (the board's frames count them too); then its standings are final, with the podium."""
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 0)  # each page reads the board anew
    players = [here(name) for name in ("Ann", "Bob")]
    [race] = placement.place(arena.pk)
    assert "finishing" not in standings.board_frame(arena)  # running: nothing finishes yet
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    arena.refresh_from_db()
    assert standings.board_frame(arena)["finishing"] == 1
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Standings — 1 race still finishing" in page
    assert "Final standings" not in page and "Podium" not in page
    assert 'data-finishing="1"' in page and "data-final" not in page  # its script goes on
    play_out(race, movers=players)
    assert standings.board_frame(arena)["finishing"] == 0
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Final standings" in page and "Podium" in page
    assert "still finishing" not in page and 'data-final="true"' in page


@pytest.mark.django_db(transaction=True)
def test_a_page_loaded_as_the_arena_ends_counts_its_races_still_finishing(
    client, arena, here, monkeypatch
):
    """Every page open at the end reloads then, within a second of the board this process read
    while the arena ran, which has no count of the races finishing: the page counts them itself
    rather than call the standings final."""
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 60)  # "that second", however slow the machine
    for name in ("Ann", "Bob"):
        here(name)
    placement.place(arena.pk)
    client.get(arena.get_absolute_url())  # the board of the arena's last second
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Standings — 1 race still finishing" in page
    assert "Final standings" not in page and "Podium" not in page


SHOWN_POINTS = re.compile(r'<tr data-player="(\d+)"[^>]*>\s*<td>\d+</td><td>.*?</td><td>(\d+)</td>')


def final_points(page: str) -> tuple[dict[int, int], list[int]]:
    """The points a final page shows: each player's on the board, and the podium's in order."""
    assert "Final standings" in page and "Podium" in page
    rows = {int(pid): int(points) for pid, points in SHOWN_POINTS.findall(page)}
    podium = [
        int(p) for p in re.findall(r"<h3>\d+\. <a [^>]*>[^<]*</a> — (\d+) points?</h3>", page)
    ]
    return rows, podium


def record_points(arena: Arena) -> tuple[dict[int, int], list[int]]:
    """Each player's points in the record, and the first three's in order."""
    points = dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "points"))
    return points, sorted(points.values(), reverse=True)[:3]


@pytest.mark.django_db(transaction=True)
def test_the_final_standings_are_the_record_s_though_the_board_has_not_the_last_race_yet(
    client, arena, here, monkeypatch
):
    """The last race's close commits its points with its status; the board is written after the
    commit. A page that reads between the two finds no race finishing: its final standings,
    their later pages, the player's own row and the podium are the record's, with that race's
    points, not the board's without them (a final page opens no socket: nothing would correct
    it)."""
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 0)  # each page reads the board anew
    players = [here(name) for name in ("Ann", "Bob")]
    [race] = placement.place(arena.pk)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    arena.refresh_from_db()
    monkeypatch.setattr(board, "write", lambda arena, entries, store=None: None)  # held back
    play_out(race, movers=players)
    assert {row.points for row in board.read_top(arena, 2).rows} == {0}, "the board is behind"
    expected = record_points(arena)
    assert max(expected[0].values()) > 0
    assert final_points(client.get(arena.get_absolute_url()).content.decode()) == expected
    monkeypatch.setattr(standings, "TOP", 1)
    second = min(players, key=lambda p: expected[0][p.pk])
    log_in_as_guest(client, second)
    for page in (1, 2):  # pinned under the first page, the only row of the second
        shown = client.get(arena.get_absolute_url(), {"page": page}).content.decode()
        rows = dict(final_points(shown)[0])
        assert rows[second.pk] == expected[0][second.pk]


@pytest.mark.django_db(transaction=True)
def test_a_board_read_while_the_arena_ran_is_not_shown_as_its_final_standings(
    client, arena, here, monkeypatch
):
    """Every page open at the end reloads then, within a second of the board this process read
    while the arena ran: a race that closed since is on the final page all the same."""
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 60)  # "that second", however slow the machine
    players = [here(name) for name in ("Ann", "Bob")]
    [race] = placement.place(arena.pk)
    client.get(arena.get_absolute_url())  # the board of the arena's last second
    play_out(race, movers=players)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    expected = record_points(arena)
    assert max(expected[0].values()) > 0
    assert final_points(client.get(arena.get_absolute_url()).content.decode()) == expected
