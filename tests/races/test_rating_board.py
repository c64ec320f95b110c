"""The rating boards (page and JSON API) and a player's ratings with their chart (issue 17,
item 6)."""

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games.models import Player
from races.models import Race, Rating, RatingChange
from races.ratings.chart import build_rating_chart

pytestmark = pytest.mark.django_db


def rated(name: str, mu: float, races: int, variant: str = "penguin") -> Player:
    player = Player.objects.create(nickname=name, user=User.objects.create(username=name))
    Rating.objects.create(player=player, variant=variant, mu=mu, sigma=90, races=races)
    return player


@pytest.fixture
def board_players():
    return {
        "ann": rated("Ann", 1712.2, 9),
        "bob": rated("Bob", 1650.4, 5),
        "cat": rated("Cat", 1649.6, 12),  # shows 1650 too: shares Bob's rank
        "dan": rated("Dan", 1400.0, 30),
        "new": rated("New", 1900.0, 4),  # provisional: not ranked
        "other": rated("Other", 2000.0, 10, variant="spiderweb"),
    }


def test_the_board_ranks_established_players_by_rating_ties_sharing(client, board_players):
    data = client.get("/api/leaderboards/rating/penguin/").json()
    assert [(r["rank"], r["player"]["nickname"], r["rating"]) for r in data["rows"]] == [
        (1, "Ann", 1712),
        (2, "Bob", 1650),
        (2, "Cat", 1650),
        (4, "Dan", 1400),
    ]
    assert data["total"] == 4 and data["board"]["kind"] == "rating"


def test_a_later_page_counts_ranks_from_the_whole_board(client, board_players):
    data = client.get("/api/leaderboards/rating/penguin/?page=2&per_page=2").json()
    assert [(r["rank"], r["player"]["nickname"]) for r in data["rows"]] == [(2, "Cat"), (4, "Dan")]
    assert data["pages"] == 2


@pytest.mark.parametrize(
    "path, parameter",
    [
        ("/api/leaderboards/rating/bridge/", "variant"),
        ("/api/leaderboards/rating/penguin/?page=0", "page"),
        ("/api/leaderboards/rating/penguin/?colour=red", "colour"),
    ],
)
def test_a_bad_parameter_is_a_400_with_its_name(client, path, parameter):
    response = client.get(path)
    assert response.status_code == 400 and response.json()["parameter"] == parameter


def test_the_board_page_shows_the_rows_and_the_variants(client, board_players):
    page = client.get("/leaderboards/rating/penguin/").content.decode()
    assert "Race rating · Penguin" in page and ">1712<" in page and "New" not in page
    assert "/leaderboards/rating/spiderweb/" in page


def test_the_leaderboards_page_links_every_rating_board(client):
    page = client.get("/leaderboards/").content.decode()
    assert (
        "/leaderboards/rating/penguin/" in page and "/leaderboards/rating/eighty-thieves/" in page
    )


@pytest.fixture
def history():
    """Ann's three rated Penguin races: 1500 -> 1620 -> 1580 -> 1655."""
    ann = Player.objects.create(nickname="Ann", user=User.objects.create(username="ann"))
    mus = [1500.0, 1620.0, 1580.0, 1655.0]
    for n, (before, after) in enumerate(zip(mus, mus[1:], strict=False), 1):
        race = Race.objects.create(code=f"RATE{n}X", host=ann, variant="penguin", seed=n)
        RatingChange.objects.create(
            race=race,
            player=ann,
            variant="penguin",
            mu_before=before,
            mu_after=after,
            sigma_after=300,
            races=n,
            at=timezone.now(),
        )
    Rating.objects.create(player=ann, variant="penguin", mu=1655.0, sigma=300, races=3)
    return ann


def test_the_player_api_gives_each_rating_and_its_history(client, history):
    data = client.get(f"/api/players/{history.pk}/ratings/").json()
    (penguin,) = data["ratings"]
    assert penguin["rating"] == 1655 and penguin["provisional"] is True
    assert [p["rating"] for p in penguin["history"]] == [1620, 1580, 1655]
    assert [p["change"] for p in penguin["history"]] == [120, -40, 75]


def test_the_player_page_draws_the_rating_chart(client, history):
    page = client.get(f"/players/{history.pk}/").content.decode()
    assert "Race ratings" in page and "provisional" in page
    assert '<svg class="results-chart"' in page and 'data-variant="penguin"' in page


def test_a_player_without_rated_races_has_no_rating_section(client):
    player = Player.objects.create(nickname="Gus")
    assert "Race ratings" not in client.get(f"/players/{player.pk}/").content.decode()


def test_the_chart_has_a_point_per_race_and_the_start_within_its_axis():
    chart = build_rating_chart("Penguin", [1620, 1580, 1655], 1500)
    (line,) = chart.lines
    points = [tuple(map(float, p.split(","))) for p in line.points.split()]
    assert len(points) == 4
    assert all(chart.top <= y <= chart.bottom for _, y in points)
    assert points[0][0] == chart.left and points[-1][0] == chart.right
    ys = [y for _, y in points]
    assert ys[1] < ys[0] and ys[2] > ys[1] and ys[3] == min(ys), "higher rating, higher line"
