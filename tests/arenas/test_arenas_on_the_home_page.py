"""The home page names the busiest public arena running now and the next to start, with their
players and times, and links to the arenas' list (arenas/templatetags/arenas_now.py)."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from arenas.models import Arena, ArenaPlayer
from games.models import Player
from tests.support import log_in_as_guest

pytestmark = pytest.mark.django_db


def arenas_card(client) -> str:
    page = client.get(reverse("home")).content.decode()
    card = re.search(r'<div class="arenas-now">(.*?)</div>', page, re.S)
    assert card, "the home page has its arenas card"
    return re.sub(r"\s+", " ", card.group(1))


def joined(arena: Arena, count: int) -> None:
    for i in range(count):
        player = Player.objects.create(nickname=f"{arena.name[:3]}{i}")
        ArenaPlayer.objects.create(arena=arena, player=player)


def test_the_busiest_running_arena_and_the_next_to_start(client, make_arena):
    quiet = make_arena(name="Quiet arena")
    busy = make_arena(name="Busy arena", minutes=20)
    joined(quiet, 1)
    joined(busy, 3)
    make_arena(name="Later arena", starts_in_s=3600)
    make_arena(name="Next arena", starts_in_s=600)
    make_arena(name="Over arena", starts_in_s=-7200)
    card = arenas_card(client)
    assert f'href="{busy.get_absolute_url()}">Busy arena<span class="visually-hidden">' in card
    assert "3 players · ends in 18 minutes" in card or "3 players · ends in 19 minutes" in card
    assert re.search(
        r'Next arena<span class="visually-hidden">.*?</a> <span class="muted">· starts in 9 minutes',
        card,
    )
    for elsewhere in ("Quiet arena", "Later arena", "Over arena"):
        assert elsewhere not in card
    assert reverse("arenas:list") in card and reverse("arenas:new") in card


def test_an_arena_only_reachable_by_its_link_is_not_named(client, make_arena):
    make_arena(name="Friends only", visibility=Arena.Visibility.LINK)
    make_arena(name="Friends later", starts_in_s=600, visibility=Arena.Visibility.LINK)
    card = arenas_card(client)
    assert "Friends" not in card and "<li>" not in card
    assert "See the arenas" in card


def test_the_arena_the_reader_joined_comes_first_and_once(client, make_arena):
    """Theirs, link-only or not, running or next: what brings them back at its hour."""
    mine = make_arena(name="Our arena", starts_in_s=300, visibility=Arena.Visibility.LINK)
    public = make_arena(name="Public next", starts_in_s=900)
    me = Player.objects.create(nickname="Me")
    ArenaPlayer.objects.create(arena=mine, player=me)
    ArenaPlayer.objects.create(arena=public, player=me)
    log_in_as_guest(client, me)
    card = arenas_card(client)
    assert f'You\'re in</span> <span><a href="{mine.get_absolute_url()}">Our arena<span' in card
    assert "· starts in 4 minutes" in card
    assert "Public next" not in card  # theirs too, later: not named as anyone's next
    assert "Our arena" not in arenas_card(Client())  # another reader never sees a link-only arena


def test_an_arena_under_a_minute_away_says_so_not_0_minutes(client, make_arena):
    make_arena(name="Ending arena", starts_in_s=-1770, minutes=30)  # 30 s left
    make_arena(name="Starting arena", starts_in_s=30)
    card = arenas_card(client)
    assert "ends in under a minute" in card and "starts in under a minute" in card
    assert "0 minutes" not in card


def test_the_reader_s_arena_and_the_next_of_its_series_say_their_starts(client, make_arena):
    """A schedule's arenas share their name: the one the reader is in and the next of its series
    say their starts out of sight, so their links' names differ (docs/frontend.md)."""
    mine = make_arena(name="Hourly Penguin arena", starts_in_s=-600, minutes=60)
    after = make_arena(name="Hourly Penguin arena", starts_in_s=3000, minutes=60)
    me = Player.objects.create(nickname="Me")
    ArenaPlayer.objects.create(arena=mine, player=me)
    log_in_as_guest(client, me)
    card = arenas_card(client)
    for arena in (mine, after):
        start = f'<time data-local="day" datetime="{arena.starts_at.isoformat()}">'
        assert re.search(
            rf'href="{arena.get_absolute_url()}">Hourly Penguin arena'
            rf'<span class="visually-hidden"> from {re.escape(start)}[^<]+</time></span></a>',
            card,
        ), card
