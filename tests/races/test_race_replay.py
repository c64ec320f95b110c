"""A race watched again (records/race_replays.py): the JSON endpoint and the page, public once the
race is over, in one compact document that a GET builds without writing, in a fixed number of
queries; and the race's games sent to the losing-move search when it ends."""

from __future__ import annotations

import datetime as dt
import gzip

import orjson
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from daily.models import LosingMove
from games.actions import get_game_update
from games.engine import new_game
from games.models import Game, Move
from games.replay import apply, cached_replay
from races import actions
from races import play as race_play
from races.models import Race, Racer
from records import analysis
from records.demo import own_timestamps
from tests.daily.test_replay_size import long_game

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")


def api(code: str) -> str:
    return f"/api/races/{code}/replay/"


def page(code: str) -> str:
    return f"/replay/race/{code}/"


@pytest.fixture
def trio(make_client, make_race, no_countdown):
    """Ann, Bob and Carol race (Penelope's Web): Ann plays two moves, undoes one and plays
    another, Bob plays one, Carol none; nobody has finished yet."""
    ann, bob, carol = make_client("Ann"), make_client("Bob"), make_client("Carol")
    race = make_race(ann, time_limit_s=300)
    actions.do_join_race(race, bob.player)
    actions.do_join_race(race, carol.player)
    actions.do_start_race(race, ann.player)

    def play(client, undo_after: int = 0, moves: int = 1) -> None:
        game = race.racers.get(player=client.player).game
        for i in range(moves):
            game.refresh_from_db()
            move = get_game_update(game).legal[0]
            race_play.do_race_move(race, client.player, move, game.seq)
            if i + 1 == undo_after:
                race_play.do_race_undo(race, client.player, game.seq + 1)

    play(ann, undo_after=2, moves=3)
    play(bob)
    race.refresh_from_db()
    race.clients = {"ann": ann, "bob": bob, "carol": carol}
    return race


def finish(race: Race) -> Race:
    for client in race.clients.values():
        actions.do_resign(race, client.player)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    return race


def test_a_race_being_run_is_refused_with_its_reason(trio, client):
    """Before the race is over nobody, its racers included, gets its replay: 403 and why."""
    for viewer in (client, trio.clients["ann"]):
        response = viewer.get(api(trio.code))
        assert response.status_code == 403
        assert response.json()["error"] == "not_yet"
        assert "not over yet" in response.json()["reason"]
        response = viewer.get(page(trio.code))
        assert response.status_code == 403
        assert b"not over yet" in response.content
        assert b"race-replay-config" not in response.content


def test_a_lobby_an_unknown_code_and_a_cancelled_race(make_client, make_race, client):
    """A lobby is not over (403); no race or a cancelled one has nothing to replay (404)."""
    host = make_client("Host")
    lobby = make_race(host)
    assert client.get(api(lobby.code)).status_code == 403
    assert client.get(api("ZZZZZZ")).json()["error"] == "not_found"
    assert client.get(page("ZZZZZZ")).status_code == 404
    Race.objects.filter(pk=lobby.pk).update(status=Race.Status.CANCELLED)
    response = client.get(api(lobby.code))
    assert response.status_code == 404 and "cancelled" in response.json()["reason"]
    assert client.post(api(lobby.code)).status_code == 405
    assert client.get(api(lobby.code) + "?t=5").status_code == 400


def test_the_replay_holds_every_racer_on_the_race_clock(trio, client):
    """Every racer in the order they joined, with place, result and player link; the deal once,
    in full; each racer's steps lead from it to their game's last position, timed from the
    race's start; the undo is a step of its own."""
    race = finish(trio)
    data = client.get(api(race.code.lower())).json()
    assert data["race"] == race.code and data["variant"] == race.variant
    assert [r["name"] for r in data["racers"]] == ["Ann", "Bob", "Carol"]
    racers = {r.name: r for r in race.racers.select_related("game")}
    deal = new_game(race.variant, race.seed).to_dict()
    assert data["deal"]["view"] == {k: v for k, v in deal.items() if k not in ("seed", "moves")}
    for row in data["racers"]:
        racer = racers[row["name"]]
        assert row["place"] == racer.place and row["status"] == "resigned"
        assert row["player"]["url"] == f"/players/{racer.player_id}/"
        assert row["replay"] == f"/replay/{racer.game.public_id}/"
        view = data["deal"]["view"]
        for _, _, _, edits in row["steps"]:
            view = apply(view, edits)
        final = {k: v for k, v in racer.game.state.items() if k not in ("seed", "moves")}
        assert view == final, row["name"]
        times = [step[1] for step in row["steps"]]
        assert times == sorted(times) and all(0 <= ms <= data["end_ms"] for ms in times)
        assert row["done_ms"] <= data["end_ms"]
    assert [s[0] for s in data["racers"][0]["steps"]].count("undo") == 1
    assert len(data["racers"][0]["steps"]) == 4 and data["racers"][2]["steps"] == []


def test_the_page_carries_the_replay_and_links_back(trio, client):
    race = finish(trio)
    response = client.get(page(race.code))
    assert response.status_code == 200
    text = response.content.decode()
    assert 'id="race-replay-config"' in text and "race-replay.js" in text
    assert f"/races/{race.code}/results/" in text
    results = client.get(f"/races/{race.code}/results/").content.decode()
    assert f'href="/replay/race/{race.code}/"' in results
    for racer in race.racers.all():
        assert f"/replay/race/{race.code}/?racer={racer.public_id}" in results


def test_the_page_counts_its_racers_one_racer_in_the_singular(trio, make_client, make_race, client):
    """The heading counts the racers: '3 racers', and a host who raced alone '1 racer'."""
    race = finish(trio)
    assert (
        "Penelope&#x27;s Web, 3 racers</span></h1>" in client.get(page(race.code)).content.decode()
    )
    alone = make_client("Solo")
    solo = make_race(alone, time_limit_s=300)
    actions.do_start_race(solo, alone.player)
    actions.do_resign(solo, alone.player)
    solo.refresh_from_db()
    assert solo.status == Race.Status.FINISHED
    assert ", 1 racer</span></h1>" in client.get(page(solo.code)).content.decode()


def test_steps_of_a_game_started_apart_are_put_on_the_race_clock(trio, client):
    """A game whose clock started before its race's (none does today) is shifted onto it."""
    race = finish(trio)
    ann = race.racers.get(name="Ann").game
    before = [s[1] for s in client.get(api(race.code)).json()["racers"][0]["steps"]]
    Game.objects.filter(pk=ann.pk).update(started_at=ann.started_at - dt.timedelta(seconds=2))
    cache.clear()
    after = [s[1] for s in client.get(api(race.code)).json()["racers"][0]["steps"]]
    own = orjson.loads(cached_replay(Game.objects.get(pk=ann.pk)).steps)
    assert [s[1] for s in own] == [ms + 2000 for ms in before]  # on the game's own clock
    assert after == before  # the same moments on the race's clock


def test_each_racer_s_losing_move_where_it_is_stored(trio, client):
    """The mark stored for a game's whole log is sent; one for a shorter log is not yet."""
    race = finish(trio)
    ann, bob = (race.racers.get(name=n).game for n in ("Ann", "Bob"))
    LosingMove.objects.create(game=ann, seq=ann.seq, frame=2)
    LosingMove.objects.create(game=bob, seq=bob.seq - 1, frame=1)
    rows = {r["name"]: r for r in client.get(api(race.code)).json()["racers"]}
    assert (rows["Ann"]["analysed"], rows["Ann"]["losing_frame"]) == (True, 2)
    assert (rows["Bob"]["analysed"], rows["Bob"]["losing_frame"]) == (False, None)
    assert rows["Carol"]["analysed"] is False


def test_a_get_writes_nothing_and_asks_for_no_search(trio, client, monkeypatch, settings):
    """Neither the API nor the page writes a row or hands a game to the losing-move search."""
    race = finish(trio)
    settings.REPLAY_ANALYSIS = True
    asked = []
    monkeypatch.setattr(analysis, "request", lambda pks: asked.extend(pks))
    with CaptureQueriesContext(connection) as queries:
        for path in (api(race.code), page(race.code), api(race.code), page(race.code)):
            assert client.get(path).status_code == 200
    assert not [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]
    assert asked == []


def test_the_query_count_does_not_grow_with_the_racers(trio, client, django_assert_num_queries):
    """Three queries (the race, its racers with their games, their losing moves) once the games'
    replays are cached, one more a game whose replay is not; a session adds its own."""
    race = finish(trio)
    cache.clear()
    with django_assert_num_queries(3 + 3):
        client.get(api(race.code))
    with django_assert_num_queries(3):
        client.get(api(race.code))


def test_the_race_s_games_go_to_the_search_when_it_ends(
    trio, settings, held_jobs, django_capture_on_commit_callbacks
):
    """A race that finishes hands each racer's game to the losing-move search (resigned and
    closed games are updated past post_save): after the commit, each once."""
    settings.REPLAY_ANALYSIS = True
    handed = held_jobs(analysis._queue)
    with django_capture_on_commit_callbacks(execute=True):
        finish(trio)
    games = set(trio.racers.values_list("game_id", flat=True))
    assert set(handed()) == games and len(handed()) == len(games)


def eight_long_runs(make_client, variant: str, rows: int) -> Race:
    """A finished race of eight racers, each `rows` log rows of their own random play on the
    race's deal, a second apart from the race's start."""
    host = make_client("Host")
    race = actions.do_create_race(host.player, variant=variant, seed=1, time_limit_s=3600)
    for i in range(8):
        player = host.player if i == 0 else make_client(f"Racer{i}").player
        with own_timestamps(Move):  # each row its own second, as a real race's times
            game = long_game(player, variant, rows, seed=1, playout=i)
        if i == 0:
            starts = game.started_at
        Game.objects.filter(pk=game.pk).update(kind=Game.Kind.RACE, started_at=starts)
        game.refresh_from_db()
        racer, _ = Racer.objects.get_or_create(race=race, player=player, defaults={"name": f"R{i}"})
        done = (game.finished_at - game.started_at).total_seconds() * 1000
        Racer.objects.filter(pk=racer.pk).update(
            game=game, status=Racer.Status.RESIGNED, place=i + 1, done_ms=int(done)
        )
    Race.objects.filter(pk=race.pk).update(
        status=Race.Status.FINISHED, starts_at=starts, finished_at=starts + dt.timedelta(hours=1)
    )
    return race


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["penguin", "eighty-thieves"])
def test_eight_racers_of_800_moves_are_one_small_request(make_client, client, variant):
    """8 racers x 800 log rows: one document under 300 KB compressed (the issue's bound; what
    nginx's gzip sends), every racer's steps in it, and no position in full but the deal."""
    race = eight_long_runs(make_client, variant, 800)
    body = client.get(api(race.code)).content
    data = orjson.loads(body)
    assert [len(r["steps"]) for r in data["racers"]] == [800] * 8
    assert all(800_000 <= r["steps"][-1][1] < 805_000 for r in data["racers"])  # the race's clock
    compressed = len(gzip.compress(body, 6))
    print(f"{variant}: {len(body)} bytes, {compressed} gzipped")
    assert compressed < 300 * 1024, f"{compressed / 1024:.0f} KB"
