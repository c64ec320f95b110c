"""Race ratings (issue 17): openskill over the final standings, signed-in racers only, applied
once with the race's result, shown on the results page."""

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from games.models import Player
from races import actions, ratings
from races import play as race_play
from races.models import Race, Rating, RatingChange
from races.ratings.updates import apply_ratings
from races.snapshots import snapshot

# ------------------------------------------------------------------ the rules


@pytest.mark.parametrize(
    "scores, expected",
    [
        ([10, 20, 30], [1, 2, 3]),
        ([10, 20, 20, 30], [1, 2, 2, 4]),
        ([5, 5], [1, 1]),
        ([30, 10], [2, 1]),
    ],
)
def test_equal_standings_share_a_rank(scores, expected):
    assert ratings.ranks(scores) == expected


def test_the_winner_gains_what_the_loser_loses_between_equals():
    winner, loser = ratings.rate([ratings.Skill(), ratings.Skill()], [1, 2])
    assert winner.mu > ratings.START_MU > loser.mu
    assert ratings.change(ratings.START_MU, winner.mu) == -ratings.change(
        ratings.START_MU, loser.mu
    )


def test_a_tie_between_equals_changes_neither():
    a, b = ratings.rate([ratings.Skill(), ratings.Skill()], [1, 1])
    assert ratings.shown(a.mu) == ratings.shown(b.mu) == ratings.START_MU


@given(st.lists(st.integers(0, 5), min_size=2, max_size=8))
def test_between_equals_a_better_place_never_rates_lower_and_ties_rate_alike(scores):
    places = ratings.ranks(scores)
    after = ratings.rate([ratings.Skill()] * len(scores), places)
    by_place = sorted(zip(places, (skill.mu for skill in after), strict=True))
    for (place_a, mu_a), (place_b, mu_b) in zip(by_place, by_place[1:], strict=False):
        if place_a == place_b:
            assert mu_a == pytest.approx(mu_b)
        else:
            assert mu_a >= mu_b - 1e-9


@pytest.mark.parametrize("points, label", [(14, "+14"), (-3, "-3"), (0, "±0")])
def test_a_change_reads_as_players_expect(points, label):
    assert ratings.change_label(points) == label


@pytest.mark.parametrize("races, provisional", [(0, True), (4, True), (5, False), (40, False)])
def test_a_rating_is_provisional_for_the_first_races(races, provisional):
    assert ratings.is_provisional(races) is provisional


# ------------------------------------------------------------------ applied with the close


def member(name: str) -> Player:
    return Player.objects.create(nickname=name, user=User.objects.create(username=name))


@pytest.fixture
def rated_race(no_countdown, near_win_for):
    """run(players, winner=None, rated=True): a Penelope's Web race of those players that has
    ended: the winner (one move from the win) wins, everyone else resigns."""

    def run(players, winner=None, rated=True):
        race = actions.do_create_race(
            players[0], variant="penelopes-web", time_limit_s=300, rated=rated
        )
        for player in players[1:]:
            actions.do_join_race(race, player)
        if winner is not None:
            near_win_for(winner)
        actions.do_start_race(race, players[0])
        if winner is not None:
            race_play.do_race_move(race, winner, "t0-f3", 0)
        for player in players:
            if player is not winner:
                actions.do_resign(race, player)
        race.refresh_from_db()
        assert race.status == Race.Status.FINISHED
        return race

    return run


@pytest.mark.django_db
def test_a_rated_race_rates_its_signed_in_racers_by_the_standings(rated_race):
    ann, bob, guest = member("ann"), member("bob"), Player.objects.create(nickname="Gus")
    race = rated_race([ann, bob, guest], winner=bob)
    changes = {c.player_id: c for c in RatingChange.objects.filter(race=race)}
    assert set(changes) == {ann.pk, bob.pk}, "guests race unrated"
    assert changes[bob.pk].mu_after > ratings.START_MU > changes[ann.pk].mu_after
    assert Rating.objects.get(player=bob, variant="penelopes-web").races == 1
    assert not Rating.objects.filter(player=guest).exists()
    finished = race.events.get(kind="finished").data
    bob_id = race.racers.get(player=bob).public_id
    assert finished["ratings"][bob_id]["label"].startswith("+")
    assert finished["ratings"][bob_id]["provisional"] is True


@pytest.mark.django_db
def test_a_rating_says_when_its_last_race_changed_it(rated_race):
    """The rating's `updated_at` is the close of the last race that rated it, and a second
    race goes on from the first one's rating (the rating row is made once)."""
    ann, bob = member("ann"), member("bob")
    first = rated_race([ann, bob], winner=bob)
    after_first = Rating.objects.get(player=bob, variant="penelopes-web")
    assert after_first.updated_at == first.finished_at
    second = rated_race([ann, bob], winner=bob)
    rating = Rating.objects.get(player=bob, variant="penelopes-web")
    assert (rating.races, rating.updated_at) == (2, second.finished_at)
    assert rating.mu > after_first.mu
    assert RatingChange.objects.get(race=second, player=bob).mu_before == after_first.mu


@pytest.mark.django_db
def test_racers_who_tie_get_the_same_change(rated_race):
    ann, bob = member("ann"), member("bob")
    race = rated_race([ann, bob])  # both resign with the cards of the deal: a tie
    changes = list(RatingChange.objects.filter(race=race))
    assert [round(c.mu_after) for c in changes] == [1500, 1500]


@pytest.mark.django_db
def test_an_unrated_friends_race_changes_no_rating(rated_race):
    race = rated_race([member("ann"), member("bob")], rated=False)
    assert not RatingChange.objects.filter(race=race).exists()
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_one_signed_in_racer_among_guests_is_not_rated(rated_race):
    race = rated_race([member("ann"), Player.objects.create(nickname="Gus")])
    assert not RatingChange.objects.filter(race=race).exists()


@pytest.mark.django_db
def test_a_race_on_a_chosen_deal_cannot_be_rated():
    with pytest.raises(actions.RaceRuleError) as info:
        actions.do_create_race(member("ann"), variant="penguin", seed=5, rated=True)
    assert info.value.code == "rated_chosen_deal"


@pytest.mark.django_db
def test_a_second_application_of_a_race_is_refused_by_the_database(rated_race):
    """The unique (race, player) guard: applying the same race twice fails as a whole."""
    race = rated_race([member("ann"), member("bob")])
    before = list(Rating.objects.values_list("mu", "races"))
    with pytest.raises(IntegrityError), transaction.atomic():
        apply_ratings(race, timezone.now())
    assert list(Rating.objects.values_list("mu", "races")) == before


@pytest.mark.django_db
def test_a_close_that_comes_again_applies_nothing(rated_race):
    race = rated_race([member("ann"), member("bob")], winner=None)
    assert not actions.do_close_if_due(race)
    actions.close_if_complete(race.pk)
    assert RatingChange.objects.filter(race=race).count() == 2
    assert set(Rating.objects.values_list("races", flat=True)) == {1}


@pytest.mark.django_db
def test_the_results_page_shows_each_racers_change(rated_race, client):
    ann, bob, guest = member("ann"), member("bob"), Player.objects.create(nickname="Gus")
    race = rated_race([ann, bob, guest], winner=bob)
    page = client.get(f"/races/{race.code}/results/").content.decode()
    bob_change = RatingChange.objects.get(race=race, player=bob)
    points = ratings.change(bob_change.mu_before, bob_change.mu_after)
    assert f">+{points}<" in page
    assert "unrated" in page and 'class="provisional"' in page


@pytest.mark.django_db
def test_the_race_form_refuses_a_rated_race_on_a_chosen_deal(client):
    client.get("/races/new/")
    form = {
        "variant": "penguin",
        "deal": "seed",
        "seed": "5",
        "max_players": "8",
        "time_limit": "300",
        "visibility": "link",
        "name": "Ann",
        "rated": "on",
    }
    page = client.post("/races/new/", form)
    assert page.status_code == 200 and not Race.objects.exists()
    assert "cannot be rated" in page.content.decode()
    response = client.post("/races/new/", {**form, "deal": "random", "seed": ""})
    assert response.status_code == 302 and Race.objects.get().rated


@pytest.mark.django_db
def test_a_finished_rated_races_snapshot_says_each_change_as_its_finished_event(rated_race):
    """A page opened or reloaded after the race shows the same rating line."""
    ann, bob, guest = member("ann"), member("bob"), Player.objects.create(nickname="Gus")
    race = rated_race([ann, bob, guest], winner=bob)
    finished = race.events.get(kind="finished").data
    assert snapshot(race, ann)["ratings"] == finished["ratings"]
    assert len(finished["ratings"]) == 2


@pytest.mark.django_db
def test_an_unrated_races_snapshot_has_no_ratings(rated_race):
    race = rated_race([member("ann"), member("bob")], rated=False)
    assert snapshot(race, None)["ratings"] == {}
