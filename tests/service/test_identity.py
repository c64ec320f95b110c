"""Who the player is: guests, nicknames, signing up, logging in and out."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.actions import do_create_game
from games.identity import (
    SESSION_PLAYER_KEY,
    current_player,
    merge_players,
    player_for_user,
    player_from_scope,
)
from games.models import Game, Player

pytestmark = pytest.mark.django_db


PASSWORD = "correct-horse-battery-9"  # the conftest's `password` fixture


def signup(client, username="carol", password=PASSWORD, **extra):
    return client.post(
        reverse("signup"),
        {"username": username, "password1": password, "password2": password, **extra},
    )


def login(client, username="bob", password=PASSWORD, **extra):
    return client.post(reverse("login"), {"username": username, "password": password, **extra})


def test_a_guest_gets_a_player_with_a_default_nickname(client):
    """The first action that needs a player (here a deal's first move) makes a guest, kept in
    the session, named Guest-NNNN; looking (a GET) makes none."""
    client.get(reverse("nickname"))
    assert not Player.objects.exists()
    client.post("/play/penguin/42/", HTTP_ACCEPT="application/json")
    player = Player.objects.get()
    assert player.user is None and player.is_guest
    assert player.nickname.startswith("Guest-") and len(player.nickname) == 10
    assert client.session[SESSION_PLAYER_KEY] == player.pk


def test_a_guest_picks_a_nickname(guest_client, player):
    """The nickname form renames the guest; surrounding and doubled spaces are dropped."""
    page = guest_client.get(reverse("nickname"))
    assert page.status_code == 200 and b"csrfmiddlewaretoken" in page.content
    response = guest_client.post(reverse("nickname"), {"nickname": "  Queen   of  Hearts "})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.nickname == "Queen of Hearts"


@pytest.mark.parametrize("bad", ["", "   ", "x" * 25, "<script>", "-dash-first"])
def test_a_bad_nickname_is_refused(guest_client, player, bad):
    """Empty, too long or odd-character nicknames are refused with the form shown again."""
    response = guest_client.post(reverse("nickname"), {"nickname": bad})
    assert response.status_code == 200 and b"errorlist" in response.content
    player.refresh_from_db()
    assert player.nickname == "Alice"


@pytest.mark.parametrize("taken", ["Bob", "bob", "BOB", " bob "])
def test_another_players_nickname_is_refused_in_any_case(guest_client, player, taken):
    """A chosen name is its player's alone: on a board or in a race, two players are never
    shown under one name. The form says so at the field, and nothing changes."""
    Player.objects.create(nickname="Bob")
    response = guest_client.post(reverse("nickname"), {"nickname": taken})
    assert response.status_code == 200
    assert "Another player has this nickname" in response.content.decode()
    player.refresh_from_db()
    assert player.nickname == "Alice"


def test_a_player_may_recase_their_own_nickname(guest_client, player):
    assert guest_client.post(reverse("nickname"), {"nickname": "ALICE"}).status_code == 302
    player.refresh_from_db()
    assert player.nickname == "ALICE"


@pytest.mark.parametrize("name", ["Guest-0001", "guest-7", "GUEST-ace"])
def test_a_guests_kind_of_name_is_not_a_name_to_choose(guest_client, player, name):
    """Names beginning "Guest-" are guests' default names, which may be shared by chance."""
    response = guest_client.post(reverse("nickname"), {"nickname": name})
    assert response.status_code == 200 and "default names: choose" in response.content.decode()
    player.refresh_from_db()
    assert player.nickname == "Alice"


def test_a_guest_may_keep_the_default_name_they_were_given(guest_client, player):
    Player.objects.filter(pk=player.pk).update(nickname="Guest-0042")
    Player.objects.create(nickname="Guest-0042")  # another guest, given the same by chance
    assert guest_client.post(reverse("nickname"), {"nickname": "Guest-0042"}).status_code == 302


def test_a_visitor_refused_a_taken_nickname_is_made_no_guest(client):
    """A visitor's first POST would make them a guest: refused, it leaves nobody behind."""
    Player.objects.create(nickname="Bob")
    assert client.post(reverse("nickname"), {"nickname": "bob"}).status_code == 200
    assert list(Player.objects.values_list("nickname", flat=True)) == ["Bob"]
    assert SESSION_PLAYER_KEY not in client.session


def test_the_database_keeps_chosen_nicknames_distinct_whatever_saves_them():
    """The rule holds below the forms too (a click that raced another's, the admin, a script)."""
    Player.objects.create(nickname="Bob")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(nickname="bOB")
    Player.objects.create(nickname="Guest-0001")
    Player.objects.create(nickname="Guest-0001")  # guests' default names may be shared


def test_the_nickname_form_only_follows_local_next_urls(guest_client, player):
    """`next` may not send the player to another site after saving."""
    response = guest_client.post(
        reverse("nickname"), {"nickname": "Zed", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"
    response = guest_client.post(reverse("nickname"), {"nickname": "Zed", "next": "/play/penguin/"})
    assert response["Location"] == "/play/penguin/"


def test_signup_logs_the_new_user_in(client):
    """Signing up creates the account and logs it in."""
    assert client.get(reverse("signup")).status_code == 200
    response = signup(client)
    assert response.status_code == 302
    user = get_user_model().objects.get(username="carol")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert user.player.nickname == "carol"


def test_a_guest_who_signs_up_keeps_their_games(guest_client, player):
    """The guest's Player becomes the account's: same row, same games, same chosen nickname."""
    game = do_create_game(player, "penguin", 1)
    signup(guest_client)
    user = get_user_model().objects.get(username="carol")
    player.refresh_from_db()
    assert player.user == user and player.nickname == "Alice"
    assert list(user.player.games.all()) == [game]
    assert Player.objects.count() == 1


def test_a_default_guest_nickname_becomes_the_username_on_signup(client):
    """A guest who never picked a nickname is called by their username after signing up."""
    client.get(reverse("nickname"))
    signup(client, username="dora")
    assert Player.objects.get().nickname == "dora"


def test_a_username_another_player_goes_by_is_refused_to_a_guest_without_a_nickname(client):
    """The account would be shown by its username: another player's name is refused at the
    sign-up, in any case, as is a guest's kind of name."""
    Player.objects.create(nickname="Dora")
    client.get(reverse("nickname"))
    for username in ("dora", "Guest-1"):
        response = signup(client, username=username)
        assert response.status_code == 200 and b"errorlist" in response.content
    assert not get_user_model().objects.exists()


def test_a_guest_with_a_nickname_signs_up_under_any_free_username(guest_client, player):
    """Alice keeps her nickname; that another player is called "carol" does not matter."""
    Player.objects.create(nickname="Carol")
    assert signup(guest_client).status_code == 302
    player.refresh_from_db()
    assert player.nickname == "Alice" and player.user.username == "carol"


def test_an_account_made_elsewhere_gets_a_free_nickname_after_its_username():
    """An account made by an admin or `createsuperuser` was not checked against the players'
    names: its player is called by its username with a number."""
    Player.objects.create(nickname="Erin")
    Player.objects.create(nickname="erin 2")
    user = get_user_model().objects.create_user("erin", password=PASSWORD)
    assert player_for_user(user).nickname == "erin 3"
    long = get_user_model().objects.create_user("x" * 30, password=PASSWORD)
    Player.objects.create(nickname="x" * 24)
    assert player_for_user(long).nickname == "x" * 22 + " 2"
    guest_like = get_user_model().objects.create_user("Guest-5", password=PASSWORD)
    assert player_for_user(guest_like).nickname == "5"


def test_a_refused_signup_changes_nothing(guest_client, player):
    """Mismatched passwords: the form again, no account, the guest still a guest."""
    response = guest_client.post(
        reverse("signup"),
        {"username": "carol", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 200 and b"errorlist" in response.content
    assert not get_user_model().objects.exists()
    player.refresh_from_db()
    assert player.user is None


def test_login_and_logout(client, user):
    """Log in with the right password; log out with a POST; a wrong password is refused."""
    assert client.get(reverse("login")).status_code == 200
    refused = login(client, password="wrong")
    assert refused.status_code == 200 and "_auth_user_id" not in client.session
    assert login(client).status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.post(reverse("logout")).status_code == 302
    assert "_auth_user_id" not in client.session


def test_a_guest_who_logs_in_brings_their_games(guest_client, player, user):
    """Logging in to an account that has a player moves the guest's games to it."""
    account = Player.objects.create(user=user, nickname="Bob")
    mine = do_create_game(player, "penguin", 1)
    theirs = do_create_game(account, "queenie", 2)
    login(guest_client)
    assert set(account.games.all()) == {mine, theirs}
    assert not Player.objects.filter(pk=player.pk).exists()


def test_a_guest_who_logs_in_to_an_account_without_a_player_becomes_it(guest_client, player, user):
    """An account that never played takes the guest's Player as its own."""
    game = do_create_game(player, "penguin", 1)
    login(guest_client)
    player.refresh_from_db()
    assert player.user == user and list(player.games.all()) == [game]


def test_after_logout_the_browser_is_a_new_guest(client, user):
    """Logging out leaves the account's games with the account; the browser becomes a new guest."""
    client.force_login(user)
    account = player_for_user(user)
    do_create_game(account, "penguin", 1)
    client.post(reverse("logout"))
    client.post(reverse("nickname"), {"nickname": "Zed"})
    guest = Player.objects.get(user__isnull=True)
    assert guest != account and client.session[SESSION_PLAYER_KEY] == guest.pk
    assert account.games.count() == 1 and guest.games.count() == 0


def test_a_merge_moves_every_game_and_removes_the_guest(player, other_player):
    """merge_players moves every game of the source and deletes it."""
    for seed in range(3):
        do_create_game(player, "penguin", seed)
    merge_players(player, other_player)
    assert other_player.games.count() == 3
    assert not Player.objects.filter(pk=player.pk).exists()


def test_a_websocket_scope_names_its_player(player, user):
    """A socket's player: the account's when logged in, the session's guest otherwise."""
    from django.contrib.auth.models import AnonymousUser

    assert player_from_scope({"user": AnonymousUser(), "session": {}}) is None
    assert (
        player_from_scope({"user": AnonymousUser(), "session": {SESSION_PLAYER_KEY: player.pk}})
        == player
    )
    account = player_from_scope({"user": user, "session": {SESSION_PLAYER_KEY: player.pk}})
    assert account.user == user and account != player


def test_a_guest_id_that_now_belongs_to_an_account_is_not_a_guest(player, user):
    """A session still naming a Player that has since signed up does not act as that account."""
    from django.contrib.auth.models import AnonymousUser

    player.user = user
    player.save()
    assert (
        player_from_scope({"user": AnonymousUser(), "session": {SESSION_PLAYER_KEY: player.pk}})
        is None
    )


def test_the_page_header_shows_who_you_are(guest_client, user):
    """The header shows the nickname and the account links."""
    page = guest_client.get("/").content.decode()
    assert "Alice" in page and "Log in" in page and "Sign up" in page
    guest_client.force_login(user)  # the guest Alice becomes bob's player
    page = guest_client.get("/").content.decode()
    assert "Log out" in page and "Alice" in page and "Log in" not in page


def test_games_survive_an_account_merge(guest_client, player, user):
    """Nothing played as a guest is lost on login: the moves stay with the moved game."""
    from games.actions import do_play_move
    from games.engine import new_game

    account = Player.objects.create(user=user, nickname="Bob")
    game = do_create_game(player, "penguin", 1)
    do_play_move(game, new_game("penguin", 1).legal_moves()[0], 0)
    login(guest_client)
    moved = Game.objects.get(pk=game.pk)
    assert moved.player == account and moved.moves.count() == 1


@pytest.mark.parametrize("name", ["login", "signup", "nickname"])
def test_account_forms_are_protected_against_csrf(name, user):
    """Posting an account form without its CSRF token is refused; the form carries one."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    page = browser.get(reverse(name))
    assert b'name="csrfmiddlewaretoken"' in page.content
    response = browser.post(reverse(name), {"username": "bob", "nickname": "x"})
    assert response.status_code == 403


def player_reads(queries) -> list[str]:
    return [
        q["sql"] for q in queries if q["sql"].startswith("SELECT") and "games_player" in q["sql"]
    ]


def test_a_page_reads_its_player_once(guest_client, player):
    """The view and the template's context both ask who the player is: the request keeps the
    answer."""
    with CaptureQueriesContext(connection) as queries:
        response = guest_client.get("/daily/penguin/")
    assert response.status_code == 200 and response.context["player"] == player
    assert len(player_reads(queries)) == 1, player_reads(queries)


def test_the_player_is_read_again_when_someone_else_asks(rf, player, user):
    """A login within the request (the guest's session, then an account) is another asker."""
    request = rf.get("/")
    request.user, request.session = AnonymousUser(), SessionStore()
    request.session[SESSION_PLAYER_KEY] = player.pk
    assert current_player(request, create=False) == player
    request.user = user
    assert current_player(request, create=False) == player_for_user(user) != player
    request.user = AnonymousUser()
    request.session = SessionStore()
    assert current_player(request, create=False) is None
