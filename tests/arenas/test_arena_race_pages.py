"""An arena's race, on its pages: no rematch (the arena places its racers itself) and a way back
to the arena, for its racers and for anyone who opens the race later; for its racers, the wait
for the next race with a way to sit it out (docs/arenas.md)."""

import json
import re

import pytest
from django.conf import settings
from django.urls import reverse

from arenas import placement
from arenas.models import ArenaRace
from races.models import Race
from tests.arenas.conftest import play_out
from tests.support import log_in_as_guest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]


@pytest.fixture
def finished(arena, here, client):
    """A finished race of the arena, and the client as one of its racers."""
    ann, bob = here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    play_out(race, movers=[ann, bob])
    log_in_as_guest(client, ann)
    return race


def pages(client, race) -> tuple[str, dict, str]:
    """The race page, its config (what race.js reads) and the results page."""
    page = client.get(race.get_absolute_url()).content.decode()
    found = re.search(r'<script id="race-config" type="application/json">(.*?)</script>', page)
    results = client.get(reverse("races:results", args=[race.code])).content.decode()
    return page, json.loads(found.group(1)), results


def test_an_arena_race_offers_no_rematch_and_leads_back_to_the_arena(client, arena, finished):
    back = f'href="{arena.get_absolute_url()}">Back to the arena</a>'
    page, config, results = pages(client, finished)
    assert back in page and config["rematch"] is False  # race.js leaves the button hidden
    assert back in results
    assert 'id="rematch"' not in results and "race-results.js" not in results
    response = client.post(reverse("races:rematch", args=[finished.code]), follow=True)
    assert "the arena places its racers in its races" in response.content.decode()
    assert Race.objects.count() == 1
    client.logout()  # anyone opening it later
    page, config, results = pages(client, finished)
    assert back in page and back in results and config["rematch"] is False


def test_an_arena_race_s_racer_waits_on_its_page_and_can_sit_out_the_next_races(
    client, arena, finished
):
    """The race's page waits for the next race once the race is over (race.js: on the race's
    `arena` event, or from its config when it opens after it), with a Pause form that posts to
    the arena's and sits the racer out. A spectator's page neither waits nor has the form."""
    pause = reverse("arenas:pause", args=[arena.public_id])
    page, config, _ = pages(client, finished)
    assert config["next_race"] == finished.events.get(kind="arena").data
    assert config["next_race"] == {
        "url": arena.get_absolute_url(),
        "arena": arena.public_id,
        "ends_at": int(arena.ends_at.timestamp() * 1000),
    }
    form = re.search(
        r'<form class="next-race" id="next-race" method="post" action="([^"]+)" hidden>', page
    )
    assert form and form.group(1) == pause
    # The last racer, the others done, counts down the idle rule (races/holdups.py).
    assert config["idle_after_s"] == settings.RACE_IDLE_AFTER_S
    assert 'name="paused" value="1"' in page and 'id="pause-button"' in page
    response = client.post(pause, {"paused": "1"})
    assert response.url == arena.get_absolute_url()
    assert arena.players.get(player__nickname="Ann").paused
    client.logout()
    page, config, _ = pages(client, finished)
    assert 'id="next-race"' not in page and config["next_race"] is None
    assert config["idle_after_s"] is None


def test_a_race_of_no_arena_keeps_its_rematch_and_has_no_arena_link(client, finished):
    """The same race without its arena (a plain rated race, as a quick race is)."""
    ArenaRace.objects.filter(race=finished).delete()
    page, config, results = pages(client, finished)
    assert "Back to the arena" not in page + results
    assert 'id="next-race"' not in page and config["next_race"] is None
    assert config["idle_after_s"] == settings.RACE_IDLE_AFTER_S  # the rule is every race's
    assert config["rematch"] is True
    assert 'id="rematch"' in results
    response = client.post(reverse("races:rematch", args=[finished.code]))
    assert (
        Race.objects.count() == 2 and response.url == Race.objects.latest("pk").get_absolute_url()
    )
