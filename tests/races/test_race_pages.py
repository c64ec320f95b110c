"""The race pages: the list, setting a race up, the live page, joining, results, rematch."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.engine.built_deals import is_built
from games.solver.variants.eighty_thieves import TYPICAL_BEST_HOME
from races import actions
from races.models import Race, Racer

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann(make_client):
    return make_client("Ann")


def test_the_list_shows_public_races_only(ann, make_race, client):
    """Link-only races stay off /races/; public ones are listed to join."""
    public = make_race(ann, visibility=Race.Visibility.PUBLIC)
    private = make_race(ann, visibility=Race.Visibility.LINK)
    page = client.get("/races/").content.decode()
    assert public.code in page and private.code not in page


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_the_list_names_each_races_racers_and_says_when_a_lobby_is_full(
    ann, make_client, make_race, client
):
    full = make_race(ann, visibility=Race.Visibility.PUBLIC, max_players=2)
    room = make_race(make_client("Cy"), visibility=Race.Visibility.PUBLIC, max_players=4)
    actions.do_join_race(full, make_client("Bea").player, name="Bea")
    page = client.get("/races/").content.decode()
    row = page[page.index(f'data-race="{full.code}"') :]
    assert "2 / 2 — Ann, Bea" in text_of(row[: row.index("</tr>")]) and "Full: watch" in row
    row = page[page.index(f'data-race="{room.code}"') :]
    assert "1 / 4 — Cy" in text_of(row[: row.index("</tr>")]) and ">Join<span" in row
    bea = full.racers.get(name="Bea").player_id
    assert f'<a href="/players/{bea}/">Bea</a>' in page  # every name leads to its player


def test_creating_a_race_puts_the_host_in_its_lobby(ann):
    """The form makes the race, the host is its first racer, and the browser goes to it."""
    response = ann.post(
        "/races/new/",
        {
            "variant": "penguin",
            "deal": "random",
            "max_players": 4,
            "time_limit": "300",
            "visibility": "public",
            "name": "Annie",
        },
    )
    race = Race.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/races/{race.code}/"
    assert (race.variant, race.max_players, race.time_limit_s, race.ranked) == (
        "penguin",
        4,
        300,
        True,
    )
    assert list(race.racers.values_list("name", flat=True)) == ["Annie"]
    assert race.host == ann.player


def test_a_chosen_seed_makes_an_unranked_race(ann):
    """The host's own deal number is kept, and the race is unranked."""
    ann.post(
        "/races/new/",
        {
            "variant": "queenie",
            "deal": "seed",
            "seed": "1234",
            "max_players": 8,
            "time_limit": "",
            "visibility": "link",
        },
    )
    race = Race.objects.get()
    assert race.seed == 1234 and not race.ranked and race.time_limit_s is None


@pytest.mark.parametrize(
    "changes",
    [
        {"variant": "klondike"},
        {"deal": "seed"},
        {"max_players": 9},
        {"time_limit": "7"},
        {"time_limit": "120"},  # within 60-3600, but not one of the offered limits
        {"name": "<script>"},
    ],
)
def test_bad_settings_are_refused(ann, changes):
    """Unknown variants, a missing seed, too many players, odd limits or names: no race."""
    data = {
        "variant": "penguin",
        "deal": "random",
        "max_players": 8,
        "time_limit": "",
        "visibility": "link",
        **changes,
    }
    response = ann.post("/races/new/", data)
    assert response.status_code == 200 and not Race.objects.exists()


@pytest.mark.parametrize("seconds", ["", "60", "180", "300", "600", "900", "1800", "3600"])
def test_the_offered_time_limits_are_taken(ann, seconds):
    """The time limits docs/protocol.md lists (empty: none) each make a race with that limit."""
    data = {"variant": "penguin", "deal": "random", "max_players": 8, "visibility": "link"}
    ann.post("/races/new/", {**data, "time_limit": seconds})
    assert Race.objects.get().time_limit_s == (int(seconds) if seconds else None)


def test_a_winnable_eighty_thieves_race_is_made_on_a_built_deal(ann, no_search):
    """No random Eighty Thieves deal was ever proved won: the race gets a built one at once."""
    data = {"variant": "eighty-thieves", "deal": "winnable", "max_players": 8, "visibility": "link"}
    ann.post("/races/new/", data)
    race = Race.objects.get()
    assert race.winnable and is_built(race.seed)


@pytest.mark.parametrize(("variant", "shown"), [("eighty-thieves", True), ("penguin", False)])
def test_eighty_thieves_results_say_what_a_good_result_is(
    ann, make_race, no_countdown, variant, shown
):
    """A typical best line's cards home, beside an Eighty Thieves race's results only."""
    race = make_race(ann, variant=variant)
    actions.do_start_race(race, ann.player)
    actions.do_resign(race, ann.player)
    page = ann.get(f"/races/{race.code}/results/").content.decode()
    line = f"a typical best line the solver finds sends {TYPICAL_BEST_HOME} of 208 cards home"
    assert (line in page) == shown


def test_a_visitor_sees_the_join_form_and_no_seed(ann, make_race, make_client):
    """Someone with the link gets the lobby page with a join form; the seed is nowhere."""
    race = make_race(ann)
    page = make_client("Bob").get(f"/races/{race.code}/").content.decode()
    assert 'id="join-form"' in page and race.code in page
    assert str(race.seed) not in page


@pytest.mark.parametrize(
    ("most", "note"),
    [(2, "This race is full (2 of 2 players)."), (1, "This race is full (a solo race).")],
)
def test_a_full_race_says_how_many_it_holds(ann, make_race, make_client, most, note):
    """A visitor to a full race is told so with its size; a race of one is 'a solo race', not
    '1 of 1 players'."""
    race = make_race(ann, max_players=most)
    if most == 2:
        actions.do_join_race(race, make_client("Bea").player, name="Bea")
    page = make_client("Dee").get(f"/races/{race.code}/").content.decode()
    assert note in " ".join(text_of(page).split())


def test_joining_with_a_nickname(ann, make_race, make_client):
    """A guest joins under the nickname they type."""
    race = make_race(ann)
    bob = make_client("Bob")
    response = bob.post(f"/races/{race.code}/join/", {"name": "Bobby Tables"})
    assert response.status_code == 302
    assert race.racers.get(player=bob.player).name == "Bobby Tables"


def test_joining_under_another_players_nickname_is_refused(ann, make_race, make_client):
    """The name a racer gives becomes their nickname, and a chosen one is its player's alone:
    Cat may not race as "ANN" (Ann's, in another case), nor set up a race as "bob"."""
    race = make_race(ann)
    make_client("Bob")
    cat = make_client("Cat")
    response = cat.post(f"/races/{race.code}/join/", {"name": "ANN"}, follow=True)
    assert "Another player has this nickname" in response.content.decode()
    assert race.racers.count() == 1
    form = {"variant": "penguin", "deal": "random", "max_players": 4, "time_limit": 300}
    response = cat.post("/races/new/", {**form, "visibility": "public", "name": "bob"})
    assert response.status_code == 200
    assert "Another player has this nickname" in response.content.decode()
    cat.player.refresh_from_db()
    assert cat.player.nickname == "Cat" and not cat.player.racers.exists()


def test_a_full_race_refuses_joiners(ann, make_race, make_client):
    """Past max_players the join is refused with a message, and nobody is added."""
    race = make_race(ann, max_players=2)
    make_client("Bob").post(f"/races/{race.code}/join/", {"name": "Bob"})
    response = make_client("Cat").post(f"/races/{race.code}/join/", {"name": "Cat"}, follow=True)
    assert "full" in response.content.decode()
    assert race.racers.count() == 2


def test_codes_are_forgiving(ann, make_race, client):
    """A code typed in lower case finds the race; an unknown code is a 404 or a message."""
    race = make_race(ann)
    assert client.get(f"/races/{race.code.lower()}/")["Location"] == f"/races/{race.code}/"
    spaced = f"{race.code[:3].lower()}%20{race.code[3:]}"  # read aloud, typed with a space
    assert client.get(f"/races/{spaced}/")["Location"] == f"/races/{race.code}/"
    assert client.get(f"/races/join/?code={race.code.lower()}")["Location"] == (
        f"/races/{race.code}/"
    )
    assert client.get("/races/ZZZZZZ/").status_code == 404
    assert client.get("/races/join/?code=nope", follow=True).status_code == 200


def test_results_wait_for_the_end(ann, make_race):
    """Before the race is over, the results address leads to the live page."""
    race = make_race(ann)
    assert ann.get(f"/races/{race.code}/results/")["Location"] == f"/races/{race.code}/"


def test_results_show_standings_replays_chart_and_seed(finished_race):
    """The finished race's page: each racer's place and cards, replay links, the chart."""
    ann, _ = finished_race.clients
    page = ann.get(f"/races/{finished_race.code}/results/").content.decode()
    for racer in finished_race.racers.select_related("game"):
        assert f"/replay/{racer.game.public_id}/" in page
        assert racer.name in page
    assert page.count("<polyline") == 2
    assert f"Deal number {finished_race.seed}" in page
    assert 'id="rematch"' in page


def test_rematch_moves_everyone_to_a_new_lobby(finished_race):
    """One click: a new race with the same racers on a new deal; a second click finds it."""
    ann, bob = finished_race.clients
    response = ann.post(f"/races/{finished_race.code}/rematch/")
    finished_race.refresh_from_db()
    new = finished_race.rematch
    assert response["Location"] == f"/races/{new.code}/"
    assert new.status == Race.Status.LOBBY and new.seed != finished_race.seed
    assert set(new.racers.values_list("name", flat=True)) == {"Ann", "Bob"}
    assert bob.post(f"/races/{finished_race.code}/rematch/")["Location"] == response["Location"]
    assert Race.objects.count() == 2


def test_only_racers_ask_for_a_rematch(finished_race, make_client):
    """A spectator's rematch is refused and makes nothing."""
    make_client("Eve").post(f"/races/{finished_race.code}/rematch/")
    assert Race.objects.count() == 1


def test_racers_who_did_not_win_have_no_time(finished_race):
    """Racer rows keep places; times run from the start to the winning move, so two racers
    who resigned have none on the results page (the server keeps when they stopped)."""
    places = sorted(Racer.objects.filter(race=finished_race).values_list("place", flat=True))
    assert places == [1, 2]
    assert all(Racer.objects.filter(race=finished_race).values_list("done_ms", flat=True))
    page = finished_race.clients[0].get(f"/races/{finished_race.code}/results/").content.decode()
    table = page[page.index('id="results"') : page.index("</table>")]
    assert not re.search(r"\d+:\d\d\.\d", table)


def test_the_live_page_loads_for_a_racer(ann, make_race):
    """The host's page carries the socket's path and no join form."""
    race = make_race(ann)
    page = ann.get(f"/races/{race.code}/").content.decode()
    assert f"/ws/race/{race.code}/" in page and 'id="join-form"' not in page


def test_a_racer_s_page_and_a_spectator_s_differ_by_role_and_read_no_game(
    ann, make_race, make_client
):
    """The page says whether its viewer races (their keys, no join form) without reading any
    racer's game: the socket shows the boards."""
    race = make_race(ann)
    ann.get(f"/races/{race.code}/")  # the session's first look
    with CaptureQueriesContext(connection) as queries:
        page = ann.get(f"/races/{race.code}/").content.decode()
    assert 'data-role="racer"' in page and 'class="race-keys' in page
    assert not any('"games_game"' in query["sql"] for query in queries.captured_queries)
    page = make_client("Bob").get(f"/races/{race.code}/").content.decode()
    assert 'data-role="spectator"' in page and 'class="race-keys' not in page


def test_a_racer_s_page_reads_whether_its_viewer_races_with_the_race(ann, make_race):
    """An arena's racers open a race's page every race: whether its viewer races comes in the
    race's own statement, so the page reads its viewer, the race and the race's event (an
    arena's; none here), and nothing else beside the session."""
    race = make_race(ann)
    ann.get(f"/races/{race.code}/")  # the session's first look
    with CaptureQueriesContext(connection) as queries:
        page = ann.get(f"/races/{race.code}/").content.decode()
    sql = [q["sql"] for q in queries.captured_queries if "django_session" not in q["sql"]]
    assert len(sql) <= 3, sql
    assert not [q for q in sql if q.startswith('SELECT 1 AS "a" FROM "races_racer"')]
    assert 'data-role="racer"' in page


def test_overdue_races_are_closed_on_sight(ann, make_race, no_countdown, monkeypatch):
    """A page view after the time limit closes the race even if no socket was open."""
    from races import lifecycle

    monkeypatch.setattr(lifecycle, "MIN_TIME_LIMIT_S", 1)
    race = make_race(ann, time_limit_s=1)
    actions.do_start_race(race, ann.player)
    race.refresh_from_db()
    Race.objects.filter(pk=race.pk).update(
        starts_at=race.starts_at.replace(year=2020), ends_at=race.ends_at.replace(year=2020)
    )
    assert ann.get(f"/races/{race.code}/results/").status_code == 200
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
