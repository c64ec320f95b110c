"""Shared fixtures: players, a browser-like client that is a guest, websocket communicators."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model

from games.actions import do_create_game, starting_position
from games.engine import VARIANT_INFO
from games.identity import SESSION_PLAYER_KEY
from games.models import Game, Move, Player
from tests.browser_support import browser, live_url, make_page, page  # noqa: F401  (fixtures)

PASSWORD = "correct-horse-battery-9"
ORIGIN = b"http://localhost"
HIDDEN = "??"


@pytest.fixture
def player(db) -> Player:
    return Player.objects.create(nickname="Alice")


@pytest.fixture
def other_player(db) -> Player:
    return Player.objects.create(nickname="Mallory")


@pytest.fixture
def password() -> str:
    """The password of `user`."""
    return PASSWORD


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user(username="bob", password=PASSWORD)


def log_in_as_guest(client, player: Player) -> None:
    """Make the client's session that of the guest `player` (as if it had played before)."""
    session = client.session
    session[SESSION_PLAYER_KEY] = player.pk
    session.save()
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key


@pytest.fixture
def guest_client(client, player):
    """A test client whose session belongs to the guest `player`."""
    log_in_as_guest(client, player)
    return client


@pytest.fixture
def user_client(client, user):
    """A test client logged in as `user`."""
    client.force_login(user)
    return client


@pytest.fixture
def make_game(db):
    """Create a game: make_game(player, variant="penguin", seed=1, kind=..., start_state=None)."""

    def make(player: Player, variant: str = "penguin", seed: int = 1, **kwargs) -> Game:
        return do_create_game(player, variant, seed, **kwargs)

    return make


class RecordingCommunicator(WebsocketCommunicator):
    """A WebsocketCommunicator that keeps every frame the server sent, for leak checks."""

    def __init__(self, *args, log: list, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log = log

    async def receive_from(self, timeout: float = 2) -> str:
        text = await super().receive_from(timeout)
        self.log.append(text)
        return text

    async def receive_json_from(self, timeout: float = 2) -> dict:
        return json.loads(await self.receive_from(timeout))

    async def send_frame(self, frame: dict) -> dict:
        """Send a JSON frame and return the server's next frame."""
        await self.send_json_to(frame)
        return await self.receive_json_from()


@pytest.fixture
def check_hidden_cards():
    """The check every socket test's frames pass: check(frame_text) asserts nothing leaks."""
    return check_frame_hides_cards


@pytest.fixture
def sent_frames() -> list[str]:
    """Every text frame any communicator of this test received, in order."""
    return []


@pytest.fixture
async def connect(sent_frames):
    """connect(client=None, origin=ORIGIN, path="/ws/game/") -> a connected communicator.

    Goes through the real ASGI application (origin check, session and auth middleware). The
    client's session cookie authenticates it. Every communicator is disconnected after the
    test, and every frame they received is checked to hide what the player may not see.
    """
    from solitaire_site.asgi import application

    opened: list[RecordingCommunicator] = []

    async def open_socket(client=None, origin: bytes | None = ORIGIN, path: str = "/ws/game/"):
        headers = []
        if origin is not None:
            headers.append((b"origin", origin))
        if client is not None:
            cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
            if cookie is not None:
                headers.append(
                    (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode())
                )
        communicator = RecordingCommunicator(application, path, headers=headers, log=sent_frames)
        connected, _ = await communicator.connect()
        opened.append(communicator)
        communicator.connected = connected
        return communicator

    yield open_socket
    for communicator in opened:
        await communicator.disconnect()
    await database_sync_to_async(assert_no_hidden_cards)(sent_frames)


def assert_no_hidden_cards(frames: list[str]) -> None:
    """No frame shows a face-down or stock card: checked against the full state at its seq."""
    for text in frames:
        check_frame_hides_cards(text)


def full_state_at(game: Game, seq: int) -> dict:
    """The engine's full state after the first `seq` rows of the game's log."""
    engine = starting_position(game)
    for move in game.moves.filter(seq__lte=seq).order_by("seq").values_list("move", flat=True):
        if move == Move.UNDO:
            engine.undo()
        else:
            engine.play(move)
    return engine.to_dict()


def check_frame_hides_cards(text: str) -> None:
    """The frame's view equals the full state with exactly the hidden cards replaced by "??"."""
    frame = json.loads(text)
    if "view" not in frame:
        return
    game = Game.objects.get(public_id=frame["game"])
    full = full_state_at(game, frame["seq"])
    view = frame["view"]
    assert "seed" not in view
    assert view["stock"] == [HIDDEN] * len(full["stock"])
    hidden = set(full["stock"])
    for shown, real, down in zip(view["tableau"], full["tableau"], full["down"], strict=True):
        assert len(shown) == len(real)
        assert shown[:down] == [HIDDEN] * down
        assert shown[down:] == real[down:]
        hidden.update(real[:down])
    for key in ("foundations", "cells", "waste", "down"):
        assert view[key] == full[key], key
    if VARIANT_INFO[game.variant]["decks"] == 1:
        # One deck: a hidden card's name may appear nowhere in the frame.
        for card in hidden:
            assert f'"{card}"' not in text, f"{card} leaked in {text[:200]}"


@pytest.fixture(autouse=True)
def fresh_engine_cache():
    """Each test starts with an empty per-process engine cache."""
    from games.actions import engines

    engines.clear()
    yield
    engines.clear()


@pytest.fixture(autouse=True)
def fresh_player_budgets():
    """Each test starts with every player's per-player rate budget unused (ids can repeat)."""
    from games.throttles import RACE_FORMS, RACE_WRITES

    for budget in (RACE_FORMS, RACE_WRITES):
        budget.clear()
    yield
    for budget in (RACE_FORMS, RACE_WRITES):
        budget.clear()
