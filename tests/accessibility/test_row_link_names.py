"""Rows' links named by their row never share a name when they lead apart: two games of one game
started in the same second, two arenas of one name starting (or ending) at the same minute, each
add which of those alike they are ("1 of 2") to the words out of sight (record_tags'
told_apart). The walk's browser test reads the same on the seeded site
(test_page_semantics.py); these read the server's HTML itself."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import timezone

from arenas.models import Arena, ArenaPlayer
from games.models import Game, Player
from tests.support import log_in_as_guest

pytestmark = pytest.mark.django_db


class LinkNames(HTMLParser):
    """Each link's text, the words out of sight included (what a screen reader names it), with
    where it leads."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.open: list[str] | None = None
        self.href = ""

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "a" and dict(attrs).get("href"):
            self.open, self.href = [], dict(attrs)["href"]

    def handle_data(self, data) -> None:
        if self.open is not None:
            self.open.append(data)

    def handle_endtag(self, tag) -> None:
        if tag == "a" and self.open is not None:
            self.links.append((re.sub(r"\s+", " ", "".join(self.open)).strip(), self.href))
            self.open = None


def names_leading_apart(html: str) -> dict[str, set[str]]:
    parser = LinkNames()
    parser.feed(html)
    leads = defaultdict(set)
    for name, href in parser.links:
        leads[name].add(href)
    return {name: hrefs for name, hrefs in leads.items() if len(hrefs) > 1}


def test_a_player_s_two_games_started_in_one_second_have_two_replay_names(client):
    ann = Player.objects.create(nickname="Ann")
    second = timezone.now().replace(microsecond=0) - timedelta(minutes=5)
    for seed in (1, 2):
        game = Game.objects.create(player=ann, variant="penguin", seed=seed, status="resigned")
        Game.objects.filter(pk=game.pk).update(started_at=second, finished_at=second)
    html = client.get(reverse("records:player", args=[ann.pk])).content.decode()
    assert html.count(">Replay<span") == 2
    assert names_leading_apart(html) == {}
    assert ", 1 of 2</span></a>" in html and ", 2 of 2</span></a>" in html


def same_arenas(starts_in: timedelta, **fields) -> list[Arena]:
    """Two public arenas of one name and one start, as two organisers might set up."""
    starts = timezone.now().replace(second=0, microsecond=0) + starts_in
    return [
        Arena.objects.create(
            name="Friday arena",
            variant=variant,
            starts_at=starts,
            ends_at=starts + timedelta(minutes=30),
            **fields,
        )
        for variant in ("penguin", "queenie")
    ]


@pytest.mark.parametrize("starts_in", [timedelta(hours=2), timedelta(minutes=-10)])
def test_two_arenas_of_one_name_and_start_have_two_names_in_the_arenas_list(client, starts_in):
    """Coming up (named by their start) and running now (named by their end) alike."""
    same_arenas(starts_in)
    html = client.get(reverse("arenas:list")).content.decode()
    assert html.count(">Friday arena<") == 2
    assert names_leading_apart(html) == {}


def test_two_arenas_of_one_name_and_start_have_two_names_on_a_player_s_page(client):
    ann = Player.objects.create(nickname="Ann")
    for arena in same_arenas(timedelta(hours=2)):
        ArenaPlayer.objects.create(arena=arena, player=ann)
    html = client.get(reverse("records:player", args=[ann.pk])).content.decode()
    assert html.count(">Friday arena<") == 2
    assert names_leading_apart(html) == {}


def test_two_arenas_of_one_name_and_start_have_two_names_on_the_home_page(client):
    """The reader's arena and a public one alike, in two rows of the home page's Arenas card."""
    ann = Player.objects.create(nickname="Ann")
    log_in_as_guest(client, ann)
    mine, _ = same_arenas(timedelta(minutes=-10))
    ArenaPlayer.objects.create(arena=mine, player=ann)
    html = client.get(reverse("home")).content.decode()
    assert html.count(">Friday arena<") == 2
    assert names_leading_apart(html) == {}
