"""Quick races: the button places a player in the next open quick race, which starts by itself
(issue 17). The actions are driven directly; the crowd over two live servers is in
test_quick_race_crowd.py, the button in a browser in test_quick_race_browser.py."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from games.models import Player, WinnableDeal
from races import actions, quick
from races.lifecycle import MAX_PLAYERS, RaceRuleError
from races.models import Race, Rating

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]


@pytest.fixture
def guests():
    return [Player.objects.create(nickname=f"Guest{i}") for i in range(12)]


def signed_in(name: str, mu: float | None = None, variant: str = "eighty-thieves") -> Player:
    player = Player.objects.create(nickname=name, user=User.objects.create(username=name))
    if mu is not None:
        Rating.objects.create(player=player, variant=variant, mu=mu, sigma=100, races=10)
    return player


def lobby_time_up(race: Race) -> None:
    Race.objects.filter(pk=race.pk).update(autostart_at=timezone.now() - timedelta(seconds=1))


def test_the_first_player_opens_a_quick_race_and_the_second_starts_its_lobby_clock(
    guests, settings
):
    """One player: an open public rated race, no clock. Two: the clock runs 15 s."""
    settings.QUICK_RACE_LOBBY_S = 15
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    assert race.quick and race.rated and race.visibility == Race.Visibility.PUBLIC
    assert race.status == Race.Status.LOBBY and race.autostart_at is None
    assert quick.do_quick_race(guests[1], "eighty-thieves") == race
    race.refresh_from_db()
    lobby = (race.autostart_at - timezone.now()).total_seconds()
    assert 13 < lobby <= 15
    assert race.events.filter(kind="autostart").count() == 1


def test_the_eighth_player_starts_the_race_at_once_and_the_ninth_opens_the_next(guests):
    races = [quick.do_quick_race(player, "eighty-thieves") for player in guests[:9]]
    first = Race.objects.get(pk=races[0].pk)
    assert {r.pk for r in races[:MAX_PLAYERS]} == {first.pk}
    assert first.status == Race.Status.STARTED and first.racers.count() == MAX_PLAYERS
    assert races[8].pk != first.pk and races[8].racers.count() == 1


def test_a_second_press_while_waiting_goes_back_to_the_same_race(guests):
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    assert quick.do_quick_race(guests[0], "any") == race
    assert race.racers.count() == 1


def test_a_player_who_leaves_before_the_start_stops_the_clock_below_two(guests):
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    quick.do_quick_race(guests[1], "eighty-thieves")
    assert quick.leave_before_start(race, guests[1])
    race.refresh_from_db()
    assert race.autostart_at is None and race.racers.count() == 1
    assert race.events.filter(kind="autostart").last().data == {"at": None}


def test_the_race_starts_once_however_many_notice_its_lobby_time_is_up(guests):
    """Timers of several sockets, the next placement, the scheduler: one start."""
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    quick.do_quick_race(guests[1], "eighty-thieves")
    assert not actions.do_start_if_due(race), "not before its time"
    lobby_time_up(race)
    assert actions.do_start_if_due(race)
    assert not actions.do_start_if_due(race)
    call_command("close_overdue_races", stdout=None)
    assert race.events.filter(kind="countdown").count() == 1


def test_after_its_lobby_time_a_race_takes_nobody_and_the_next_placement_starts_it(guests):
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    quick.do_quick_race(guests[1], "eighty-thieves")
    lobby_time_up(race)
    other = quick.do_quick_race(guests[2], "eighty-thieves")
    assert other != race
    race.refresh_from_db()
    assert race.status == Race.Status.STARTED and race.racers.count() == 2


def test_the_scheduler_starts_a_race_whose_lobby_time_is_up(guests):
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    quick.do_quick_race(guests[1], "eighty-thieves")
    lobby_time_up(race)
    call_command("close_overdue_races", stdout=None)
    race.refresh_from_db()
    assert race.status == Race.Status.STARTED


def test_a_quick_race_left_empty_for_a_minute_is_cancelled_by_the_scheduler(guests):
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    assert quick.leave_before_start(race, guests[0])
    call_command("close_overdue_races", stdout=None)
    race.refresh_from_db()
    assert race.status == Race.Status.LOBBY, "a reloaded page comes back within the minute"
    race.events.update(at=timezone.now() - timedelta(seconds=quick.EMPTY_KEPT_S + 1))
    call_command("close_overdue_races", stdout=None)
    race.refresh_from_db()
    assert race.status == Race.Status.CANCELLED
    assert race.events.last().kind == "cancelled"


def test_the_host_of_a_quick_race_cannot_start_it(guests):
    race = quick.do_quick_race(guests[0], "eighty-thieves")
    with pytest.raises(RaceRuleError) as info:
        actions.do_start_race(race, guests[0])
    assert info.value.code == "quick_race"


def test_any_game_joins_an_open_race_of_any_variant(guests):
    race = quick.do_quick_race(guests[0], "penelopes-web")
    assert quick.do_quick_race(guests[1], "any") == race


def test_an_unknown_variant_is_refused(guests):
    with pytest.raises(RaceRuleError) as info:
        quick.do_quick_race(guests[0], "bridge")
    assert info.value.code == "unknown_variant"


def test_a_quick_race_gets_a_winnable_deal_where_the_variant_has_them(guests):
    WinnableDeal.objects.create(variant="penguin", use=WinnableDeal.Use.RACE, seed=424242)
    race = quick.do_quick_race(guests[0], "penguin")
    race.refresh_from_db()
    assert race.winnable and race.seed == 424242


def test_a_race_opened_on_an_empty_pool_takes_a_winnable_deal_at_its_start(guests):
    race = quick.do_quick_race(guests[0], "penguin")
    quick.do_quick_race(guests[1], "penguin")
    race.refresh_from_db()
    assert not race.winnable, "no search while the player waits"
    WinnableDeal.objects.create(variant="penguin", use=WinnableDeal.Use.RACE, seed=515151)
    lobby_time_up(race)
    assert actions.do_start_if_due(race)
    race.refresh_from_db()
    assert race.winnable and race.seed == 515151
    assert race.racers.first().game.seed == 515151


def test_a_rated_player_goes_to_the_open_race_nearest_their_rating():
    """Two open races, one of strong players and one of weaker ones (both made while another
    was being filled): each newcomer goes to the nearer one."""
    strong = signed_in("Strong", 2000)
    weak = signed_in("Weak", 1100)
    strong_race = quick.do_quick_race(strong, "eighty-thieves")
    weak_race = actions.new_race(
        host=weak,
        variant="eighty-thieves",
        seed=1,
        time_limit_s=600,
        visibility=Race.Visibility.PUBLIC,
        quick=True,
        rated=True,
    )
    actions.do_join_race(weak_race, weak)
    assert quick.do_quick_race(signed_in("Nearly", 1900), "eighty-thieves") == strong_race
    assert quick.do_quick_race(signed_in("Novice", 1200), "eighty-thieves") == weak_race


@pytest.mark.django_db(transaction=True)  # the view places on the ORM threads (PostgreSQL)
def test_the_quick_race_button_opens_the_race_page(client):
    """A POST (a guest is made for it) ends on the race's page."""
    response = client.post("/races/quick/", {"variant": "eighty-thieves"})
    race = Race.objects.get(quick=True)
    assert response.status_code == 302 and response.url == race.get_absolute_url()
    page = client.get(race.get_absolute_url())
    assert b"race-config" in page.content


@pytest.mark.parametrize("path", ["/", "/races/"])
def test_the_home_page_and_the_race_list_offer_the_button(client, path):
    page = client.get(path).content.decode()
    assert 'action="/races/quick/"' in page and 'value="any"' in page
