"""The arenas' JSON API and the arenas on a player's page (issue 27, docs/api.md)."""

import re
import sqlite3

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from arenas import actions, board, placement
from arenas.models import Arena, ArenaPlayer
from games.models import Player
from games.rankstore import get_rank_store
from tests.arenas.conftest import play_out
from tests.support import log_in_as_guest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_countdown")]


@pytest.fixture
def played(arena, here):
    """Three players in the arena after one race: P0 and P1 moved, P2 did not."""
    players = [here(f"P{i}") for i in range(3)]
    [race] = placement.place(arena.pk)
    play_out(race, movers=players[:2], resigners=[players[2], players[1], players[0]])
    return players, race


def test_the_list_has_running_coming_and_ended_arenas(client, arena, make_arena):
    coming = make_arena(starts_in_s=600)
    body = client.get("/api/arenas/").json()
    assert [a["id"] for a in body["running"]] == [arena.public_id]
    assert [a["id"] for a in body["upcoming"]] == [coming.public_id]
    assert body["running"][0]["phase"] == "running" and body["ended"] == []


def test_an_arena_with_its_standings_live_then_from_the_record(client, arena, played):
    players, race = played
    body = client.get(f"/api/arenas/{arena.public_id}/?per_page=2").json()
    assert body["lobby"]["joined"] == 3 and body["standings"]["total"] == 3
    rows = body["standings"]["rows"]
    assert [row["points"] for row in rows] == [4, 3] and rows[0]["rank"] == 1
    second = client.get(f"/api/arenas/{arena.public_id}/?per_page=2&page=2").json()
    assert [(r["rank"], r["points"]) for r in second["standings"]["rows"]] == [(3, 0)]
    type(arena).objects.filter(pk=arena.pk).update(ends_at=timezone.now())  # ended
    assert client.get(f"/api/arenas/{arena.public_id}/").json()["standings"]["rows"] == rows + [
        second["standings"]["rows"][0]
    ]


def test_a_player_s_races_in_the_arena(client, arena, played):
    players, race = played
    body = client.get(f"/api/arenas/{arena.public_id}/players/{players[0].pk}/").json()
    assert body["points"] == 4 and body["name"] == "P0"
    assert [(r["race"], r["place"], r["points"]) for r in body["races"]] == [(race.code, 1, 4)]


def test_unknown_arenas_players_and_parameters_are_refused(client, arena):
    assert client.get("/api/arenas/nope/").json()["error"] == "not_found"
    missing = client.get(f"/api/arenas/{arena.public_id}/players/99999/")
    assert missing.status_code == 404
    bad = client.get(f"/api/arenas/{arena.public_id}/?per_page=0")
    assert bad.status_code == 400 and bad.json()["parameter"] == "per_page"
    assert client.post("/api/arenas/").status_code == 405


def test_the_player_page_and_document_list_their_arenas(client, arena, played):
    players, _ = played
    document = client.get(reverse("records:api_player", args=[players[1].pk])).json()
    [entry] = document["arenas"]
    assert (entry["id"], entry["points"], entry["place"], entry["races"]) == (
        arena.public_id,
        3,
        2,
        1,
    )
    page = client.get(reverse("records:player", args=[players[1].pk])).content.decode()
    assert "<h2>Arenas</h2>" in page and arena.name in page


def test_a_player_s_page_gives_no_place_in_an_arena_they_have_not_raced_in(client, make_arena):
    """A coming arena they joined says it is coming, and has no place; nor has an arena in which
    they never raced (their document still counts one: the board's order, ties and all)."""
    ann = Player.objects.create(nickname="Ann")
    actions.do_join(make_arena(name="Coming arena", starts_in_s=600), ann)
    page = client.get(reverse("records:player", args=[ann.pk])).content.decode()
    table = re.sub(r"\s+", " ", page[page.index("<h2>Arenas</h2>") :])
    assert re.search(
        r'>Coming arena<span [^>]+>.+?</span></a> <span class="race-badge">coming', table
    )
    assert '<td data-label="Place">–</td>' in table
    document = client.get(reverse("records:api_player", args=[ann.pk])).json()
    assert document["arenas"][0]["place"] == 1


def arenas_listed(client, player) -> tuple[list[str], list[str]]:
    """The names of the arenas the player's API document lists, and of those their page shows."""
    document = client.get(reverse("records:api_player", args=[player.pk])).json()
    page = client.get(reverse("records:player", args=[player.pk])).content.decode()
    table = page[page.index("<h2>Arenas</h2>") :]
    names = [arena["name"] for arena in document["arenas"]]
    return names, [name for name in ("Open arena", "Secret arena") if f">{name}<span" in table]


def test_an_arena_only_by_link_is_listed_on_a_player_s_page_to_that_player_alone(make_arena):
    """Anyone else, a visitor or another player, sees the player's public arenas only: the page
    would give away the link-only arena's link."""
    ann, bob = Player.objects.create(nickname="Ann"), Player.objects.create(nickname="Bob")
    actions.do_join(make_arena(name="Open arena"), ann)
    actions.do_join(make_arena(name="Secret arena", visibility=Arena.Visibility.LINK), ann)
    anns, bobs = Client(), Client()
    log_in_as_guest(anns, ann)
    log_in_as_guest(bobs, bob)
    assert arenas_listed(Client(), ann) == (["Open arena"], ["Open arena"])
    assert arenas_listed(bobs, ann) == (["Open arena"], ["Open arena"])
    assert arenas_listed(anns, ann) == (
        ["Secret arena", "Open arena"],
        ["Open arena", "Secret arena"],
    )


def test_a_player_s_place_in_an_arena_is_their_place_on_its_board_ties_broken_as_there(
    client, arena, here
):
    """Equal points: the lower average place is ahead (docs/arenas.md, "Order"), on the player's
    page and document as on the board, read from the board or, once the store keeps it no more,
    from the record."""
    ahead, behind = here("Ahead"), here("Behind")
    entries = {entry.player_id: entry for entry in ArenaPlayer.objects.filter(arena=arena)}
    totals = {ahead.pk: (6, 2, 2), behind.pk: (6, 3, 6)}  # points, races, place sum
    for pid, (points, races, place_sum) in totals.items():
        entry = entries[pid]
        entry.points, entry.races, entry.place_sum, entry.last_scored_s = (
            points,
            races,
            place_sum,
            60,
        )
        entry.save()
    board.write(arena, entries.values())
    assert [row.player_id for row in board.read_top(arena, 2).rows] == [ahead.pk, behind.pk]

    def places() -> list:
        found = []
        for player in (ahead, behind):
            document = client.get(reverse("records:api_player", args=[player.pk])).json()
            page = client.get(reverse("records:player", args=[player.pk])).content.decode()
            place = document["arenas"][0]["place"]
            assert f'<td data-label="Place">{place}</td>' in page
            found.append(place)
        return found

    assert places() == [1, 2]
    get_rank_store().delete(board.key(arena))  # a day after the end: the store keeps it no more
    get_rank_store().delete(board.marker_key(arena))
    assert places() == [1, 2]


class CountingStore:
    """The rank store, with each call to it counted (a call is one trip to Redis)."""

    def __init__(self, store) -> None:
        self.store, self.calls = store, 0

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self.calls += 1
            return getattr(self.store, name)(*args, **kwargs)

        return call


def reads(client, player, monkeypatch) -> tuple[int, int, int]:
    """What the player's page and API document cost: the database's queries, the rows they
    return, and the trips to the arenas' boards in the rank store."""
    store = CountingStore(get_rank_store())
    monkeypatch.setattr(board, "get_rank_store", lambda: store)
    returned = []

    def counted(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        returned.append(max(context["cursor"].rowcount, 0))
        return result

    with connection.execute_wrapper(counted):
        assert client.get(reverse("records:player", args=[player.pk])).status_code == 200
        assert client.get(reverse("records:api_player", args=[player.pk])).status_code == 200
    return len(returned), sum(returned), store.calls


def test_a_player_s_ten_arenas_cost_their_page_as_much_whatever_the_arenas_sizes(
    client, make_arena, monkeypatch
):
    """Each arena's place is read from its board, the boards of all of them in one trip, or,
    for an arena the store keeps no more (a day after its end), counted by the database (how
    many rank ahead): neither the queries, nor the rows they return, nor the trips to the rank
    store grow with the crowds of the arenas listed."""
    player = Player.objects.create(nickname="Regular")
    running = [make_arena(name=f"Running {i}") for i in range(5)]
    old = [make_arena(starts_in_s=-3 * 86_400, name=f"Old {i}") for i in range(5)]
    for arena in running:
        actions.do_join(arena, player)
    ArenaPlayer.objects.bulk_create(ArenaPlayer(arena=arena, player=player) for arena in old)
    small = reads(client, player, monkeypatch)
    for n in range(20):
        crowd = Player.objects.create(nickname=f"Crowd {n}")
        for arena in running:
            actions.do_join(arena, crowd)
        ArenaPlayer.objects.bulk_create(
            ArenaPlayer(arena=arena, player=crowd, points=n + 1) for arena in old
        )
    assert reads(client, player, monkeypatch) == small
    assert small[2] == 2, "one trip to the boards for each of the two"
    document = client.get(reverse("records:api_player", args=[player.pk])).json()
    places = {arena["name"]: arena["place"] for arena in document["arenas"]}
    assert all(places[arena.name] == 21 for arena in old), "20 ahead, each with points"


def test_the_database_counts_a_place_as_the_board_orders_it_through_every_tie_break(arena, here):
    """An arena the store keeps no more has its places counted by the database: the same as
    the board's, points first, then the average place in thousandths (rounded as the board
    rounds them: a half to the even), then the last scoring race (capped), then, for equal
    scores, the player's id as text ("90000001" before "9000009")."""
    totals = {  # a player's id (None: any) and totals: points, races, place sum, last scoring
        "first": (None, (7, 1, 1, 10)),
        "half": (None, (5, 16, 17, 100)),  # 1062.5 thousandths: 1062, ahead of the next
        "next": (None, (5, 1000, 1063, 50)),
        "capped": (7_000_001, (5, 2, 3, 250_000)),  # past the cap: the next one's score
        "at cap": (7_000_002, (5, 2, 3, 99_999)),
        "10": (90_000_001, (0, 0, 0, None)),
        "9": (9_000_009, (0, 0, 0, None)),
    }
    ids = {}
    for name, (pk, _) in totals.items():
        if pk is None:
            ids[name] = here(name).pk
        else:
            actions.do_join(arena, Player.objects.create(pk=pk, nickname=name))
            ids[name] = pk
    entries = {entry.player_id: entry for entry in ArenaPlayer.objects.filter(arena=arena)}
    for name, (_, found) in totals.items():
        entry = entries[ids[name]]
        entry.points, entry.races, entry.place_sum, entry.last_scored_s = found
        entry.save()
    board.write(arena, entries.values())
    on_board = board.read_own(arena, list(entries))
    counted = {pid: board.record_row(entry).rank for pid, entry in entries.items()}
    assert counted == {pid: row.rank for pid, row in on_board.items()}
    assert sorted(totals, key=lambda name: counted[ids[name]]) == list(totals)


def test_an_ended_arena_s_standings_are_final_from_the_record_though_the_board_missed_a_race(
    client, arena, here, monkeypatch
):
    """The board is written after the close commits; a write that failed leaves the board
    behind until a rebuild. Once the arena has ended and none of its races is on, the API's
    standings are final and read from the record, as the page's are: that race's points are
    in them. Until then it says how many races are still finishing."""
    players = [here(name) for name in ("Ann", "Bob")]
    [race] = placement.place(arena.pk)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    running = client.get(f"/api/arenas/{arena.public_id}/").json()
    assert (running["phase"], running["finishing"], running["final"]) == ("ended", 1, False)
    monkeypatch.setattr(board, "write", lambda arena, entries, store=None: None)  # a lost write
    play_out(race, movers=players)
    assert {row.points for row in board.read_top(arena, 2).rows} == {0}, "the board is behind"
    recorded = dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "points"))
    body = client.get(f"/api/arenas/{arena.public_id}/").json()
    assert (body["finishing"], body["final"]) == (0, True)
    assert {r["player"]: r["points"] for r in body["standings"]["rows"]} == recorded
    assert sorted(recorded.values()) != [0, 0]


def test_a_running_arena_has_no_count_of_races_finishing(client, arena):
    body = client.get(f"/api/arenas/{arena.public_id}/").json()
    assert (body["phase"], body["finishing"], body["final"]) == ("running", None, False)


@pytest.mark.parametrize("vendor", sorted(board.BYTEWISE))
def test_the_record_orders_equal_scores_by_the_member_s_bytes_in_either_database(vendor):
    """A place counted by the database (`board.record_row`) breaks a tie as the rank store does,
    by the member's bytes ("10" before "9", "B" before "b"), in PostgreSQL and in the embedded
    default's SQLite, whose bytewise collation is not PostgreSQL's "C" (a page that counted a
    place there failed: no such collation sequence)."""
    query = 'SELECT %s < %s COLLATE "{0}", %s < %s COLLATE "{0}"'.format(board.BYTEWISE[vendor])
    if vendor == "sqlite":
        found = sqlite3.connect(":memory:").execute(query.replace("%s", "?"), TIES).fetchone()
    elif connection.vendor == vendor:
        with connection.cursor() as cursor:
            cursor.execute(query, TIES)
            found = cursor.fetchone()
    else:
        pytest.skip(f"the tests run on {connection.vendor}")
    assert tuple(map(bool, found)) == (True, True)


TIES = ["10", "9", "B", "b"]
