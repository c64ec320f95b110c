"""The JSON API: boards paginated, a player's rank found, bad parameters refused with a reason."""

import datetime as dt

import pytest

from daily.actions import start_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(make_account, challenge, set_result):
    """Today's Penguin board with 12 ranked players: p00 fastest … p11 slowest."""
    players = []
    for i in range(12):
        player = make_account(f"p{i:02d}")
        attempt, _ = start_attempt(player, challenge)
        set_result(attempt, won_ms=10_000 + 1000 * i)
        players.append(player)
    return players


def url(challenge, **query):
    base = f"/api/leaderboards/daily/{challenge.variant}/{challenge.day.isoformat()}/"
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_pages_cover_the_board_once_in_order(client, board, challenge):
    """Walking the pages gives every entry once, in rank order."""
    seen = []
    first = client.get(url(challenge, per_page=5)).json()
    assert (first["total"], first["pages"], first["page"]) == (12, 3, 1)
    for page in range(1, 4):
        data = client.get(url(challenge, page=page, per_page=5)).json()
        seen += [(row["rank"], row["player"]["nickname"]) for row in data["rows"]]
    assert seen == [(i + 1, f"p{i:02d}") for i in range(12)]


def test_rows_say_what_they_rank_by(client, board, challenge):
    """A daily row has the player, the time and whether they won."""
    row = client.get(url(challenge, per_page=1)).json()["rows"][0]
    assert row["player"] == {
        "id": board[0].pk,
        "nickname": "p00",
        "url": f"/players/{board[0].pk}/",
    }
    assert (row["won"], row["time_ms"], row["cards"], row["status"]) == (True, 10_000, None, "won")


def test_a_page_past_the_end_is_empty(client, board, challenge):
    """A page after the last one has no rows (the board may have shrunk), not an error."""
    data = client.get(url(challenge, page=9, per_page=5)).json()
    assert data["rows"] == [] and data["total"] == 12


def test_a_players_rank_is_found_on_any_page(client, board, challenge):
    """?player= gives that player's rank and the page it is on."""
    data = client.get(url(challenge, per_page=5, player=board[10].pk)).json()
    assert data["player"]["rank"] == 11 and data["player"]["page"] == 3
    assert data["player"]["player"]["nickname"] == "p10"


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"page": "0"}, "page"),
        ({"page": "x"}, "page"),
        ({"page": "-1"}, "page"),
        ({"per_page": "101"}, "per_page"),
        ({"per_page": "1.5"}, "per_page"),
        ({"player": "abc"}, "player"),
        ({"player": "999999"}, "player"),
        ({"sort": "name"}, "sort"),
    ],
)
def test_bad_query_parameters_get_400_with_a_reason(client, challenge, query, parameter):
    """Every unusable parameter is refused with a JSON reason naming it."""
    response = client.get(url(challenge, **query))
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "bad_parameter" and body["parameter"] == parameter and body["reason"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/leaderboards/daily/klondike/2026-01-01/",
        "/api/leaderboards/daily/penguin/2026-13-01/",
        "/api/leaderboards/daily/penguin/yesterday/",
        "/api/leaderboards/daily/penguin/9999-01-01/",
        "/api/leaderboards/fastest/klondike/",
        "/api/leaderboards/slowest/penguin/",
    ],
)
def test_bad_path_parameters_get_400(client, db, path):
    """Unknown variants and boards, malformed and future days: 400 with a reason."""
    response = client.get(path)
    assert response.status_code == 400
    assert response.json()["reason"]


def test_only_get_is_allowed(client, challenge):
    """The API is read-only."""
    assert client.post(url(challenge)).status_code == 405


@pytest.mark.parametrize("kind", ["fastest", "wins", "streak"])
def test_all_time_boards_are_served(client, board, kind):
    """Each all-time board answers with the players who won."""
    data = client.get(f"/api/leaderboards/{kind}/penguin/?per_page=3").json()
    assert data["board"]["kind"] == kind and data["total"] == 12 and len(data["rows"]) == 3


def test_daily_index_has_every_variant_and_the_next_reset(client, board, today):
    """The index says which day it is, when the next opens, and how many play each variant."""
    data = client.get("/api/daily/").json()
    assert data["day"] == today.isoformat()
    assert dt.datetime.fromisoformat(data["next_reset"]).time() == dt.time(0)
    players = {v["variant"]: v["players"] for v in data["variants"]}
    assert players["penguin"] == 12 and players["queenie"] == 0
    proved = {v["variant"]: v["proved"] for v in data["variants"]}
    assert proved["penguin"] is False, "picked without a proof"
    assert proved["queenie"] is None, "not picked yet"


def test_recent_races_answers_without_races(client, db):
    """The recent races list is served (empty when no race has finished)."""
    data = client.get("/api/leaderboards/races/").json()
    assert data["rows"] == [] and data["total"] == 0


def test_player_api(client, board):
    """A player's record: per variant games, wins and best times, and the daily streak."""
    data = client.get(f"/api/players/{board[0].pk}/").json()
    penguin = next(v for v in data["variants"] if v["variant"] == "penguin")
    assert (penguin["games"], penguin["wins"], penguin["best_daily_ms"]) == (1, 1, 10_000)
    assert data["daily_streak"] == {"current": 1, "longest": 1, "days_won": 1}
    assert client.get("/api/players/999999/").status_code == 404
    bad = client.get("/api/players/abc/")
    assert bad.status_code == 400 and bad.json()["parameter"] == "player"
