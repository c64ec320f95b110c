"""Test helpers shared by every test package (plain functions and classes; the fixtures are in
the conftest files, which import these)."""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from games.actions import starting_position
from games.engine import VARIANT_INFO
from games.identity import SESSION_PLAYER_KEY
from games.models import Game, Move, Player

ORIGIN = b"http://localhost"
HIDDEN = "??"


def within(seconds: float, found: Callable[[], bool], step: float = 0.02) -> bool:
    """Whether `found()` comes true within `seconds` (asked every `step` s)."""
    deadline = time.monotonic() + seconds
    while not found():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True


def log_in_as_guest(client, player: Player) -> None:
    """Make the client's session that of the guest `player` (as if it had played before)."""
    session = client.session
    session[SESSION_PLAYER_KEY] = player.pk
    session.save()
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key


class RecordingCommunicator(WebsocketCommunicator):
    """A WebsocketCommunicator that keeps every frame the server sent, for leak checks.

    It waits longer than Channels' defaults (1 s for the accept, 1 s for a frame, 1 s for the
    consumer to end after a disconnect): on a loaded machine (a whole run beside others, load
    14) a consumer's accept, which reads the session on the database thread, took over a
    second. A frame that comes is taken at once, a consumer that ends is done; only a test that
    fails waits the whole bound. A consumer cancelled mid-disconnect leaves its database call
    running on the database thread, where the test's flush met it: "database table is locked"
    in the teardown of tests/arenas/test_arena_socket.py at load 10, and the next test of the
    worker found the rows the flush had not removed."""

    def __init__(self, *args, log: list, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log = log

    async def connect(self, timeout: float = 10):
        return await super().connect(timeout)

    async def disconnect(self, code: int = 1000, timeout: float = 10) -> None:
        await super().disconnect(code, timeout)

    async def receive_from(self, timeout: float = 10) -> str:
        text = await super().receive_from(timeout)
        self.log.append(text)
        return text

    async def receive_json_from(self, timeout: float = 10) -> dict:
        return json.loads(await self.receive_from(timeout))

    async def send_frame(self, frame: dict) -> dict:
        """Send a JSON frame and return the server's next frame."""
        await self.send_json_to(frame)
        return await self.receive_json_from()


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


def slow_group_discard(monkeypatch, seconds: float) -> None:
    """Make the channel layer's `group_discard` a slow round trip (Redis under load), so that
    what happens while a leave is on its way can happen."""
    layer = get_channel_layer()
    discard = layer.group_discard

    async def round_trip(group, channel):
        await asyncio.sleep(seconds)
        await discard(group, channel)

    monkeypatch.setattr(layer, "group_discard", round_trip)


@contextmanager
def left_for_the_collector(*kinds: type) -> Iterator[list]:
    """`with left_for_the_collector(Racer, Game) as left:` the instances of those kinds that the
    block left for the cyclic garbage collector alone to free (held by reference cycles); `left`
    is filled as the block ends."""
    left: list = []
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield left
        gc.collect()
        left.extend(found for found in gc.garbage if isinstance(found, kinds))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
