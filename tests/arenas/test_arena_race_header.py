"""An arena's race names its arena in its page's header while the race is on, as a friends'
race shows its invite there: a link to the arena and the arena's time left (js/race.js counts it
down), and no invite, since the arena places its racers and nobody joins its races by their code
(the code and a link stay, to watch). A friends' race keeps its invite (docs/frontend.md)."""

import re
from datetime import datetime

import pytest

from arenas import placement
from arenas.models import ArenaRace
from races.models import Race
from tests.support import log_in_as_guest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]

INVITE = ('id="invite-link"', 'id="copy-link"', "Friends type this on the Races page")


def header(client, race: Race) -> str:
    """The race page's header, as the server renders it."""
    page = client.get(race.get_absolute_url()).content.decode()
    return re.search(r'<header class="race-head">.*?</header>', page, re.S).group(0)


@pytest.fixture
def racing(arena, here) -> Race:
    """A race of the arena under way."""
    here("Ann"), here("Bob")
    [race] = placement.place(arena.pk)
    assert race.status == Race.Status.STARTED
    return race


def test_an_arena_race_s_header_names_the_arena_and_its_end_and_invites_nobody(
    client, arena, racing
):
    ann = racing.racers.get(name="Ann").player
    for viewer in (ann, None):  # its racer, and anyone watching
        client.logout()
        if viewer:
            log_in_as_guest(client, viewer)
        head = header(client, racing)
        link = re.search(r'<a class="race-badge race-event" id="event-link" href="([^"]+)"', head)
        assert link and link.group(1) == arena.get_absolute_url()
        assert f">{arena.name}</a>" in head
        clock = re.search(r'<time [^>]*id="event-clock" datetime="([^"]+)"', head)
        assert clock and datetime.fromisoformat(clock.group(1)) == arena.ends_at
        assert 'role="status"' not in head and "aria-live" not in head  # ticks, said by nobody
        assert not any(part in head for part in INVITE)
        assert 'id="race-code"' in head and racing.code in head and 'id="watch-link"' in head


def test_a_race_of_no_arena_keeps_its_invite_and_names_no_event(
    client, racing, make_client, make_race
):
    """The arena's race once its arena is gone from it, and a friends' race in its lobby."""
    ArenaRace.objects.filter(race=racing).delete()
    friends = make_race(make_client("Cy"))
    for race in (racing, friends):
        head = header(client, race)
        assert all(part in head for part in INVITE)
        assert 'id="event-link"' not in head and 'id="event-clock"' not in head
        assert 'id="watch-link"' not in head
