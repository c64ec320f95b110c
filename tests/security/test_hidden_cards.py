"""No frame to anyone ever holds a face-down or stock card, in any variant.

Whole sessions are played with random legal moves, deals, undos and autoplay: a race watched by
a spectator and by the racer's second tab, and a practice game in two tabs. Every frame any
socket received is then checked against the full server-side state: a board frame must equal
that state at its `seq` with exactly the hidden cards replaced by "??" (and, with one deck, no
hidden card's name anywhere in it); any other frame may hold no card at all.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from channels.db import database_sync_to_async
from hostile_harness import Session, start_running_race

from games.actions import do_create_game
from games.engine import VARIANTS
from games.models import Game
from tests.race_support import check_board_hides_cards

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("generous_budget"),
]

CARD = re.compile(r'"(?:[A2-9TJQK][CDHS])"')
STEPS = 45


def check_frame(text: str) -> None:
    """Boards against the record; every other frame holds no card name at all."""
    if not check_board_hides_cards(json.loads(text), text):
        assert not CARD.search(text), text[:300]


def pick(rng: random.Random, board: dict) -> dict | None:
    """A random legal step: mostly a move (a deal too), now and then an undo or autoplay."""
    seq = board["seq"]
    roll = rng.random()
    if board.get("can_undo") and (roll < 0.12 or not board["legal"]):
        return {"type": "undo", "seq": seq}
    if roll < 0.18:
        return {"type": "autoplay", "seq": seq}
    if not board["legal"]:
        return None
    return {"type": "move", "move": rng.choice(board["legal"]), "seq": seq}


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
async def test_no_race_frame_shows_a_hidden_card(variant, make_client, make_race, run):
    """A whole race (random play, a spectator, a second tab, resigning at the end): every frame
    to every socket hides exactly the face-down and stock cards."""
    running = await run(start_running_race, make_client, make_race, variant)
    eve = await run(make_client, "Eve")
    path = f"/ws/race/{running.race.code}/"
    ann, ann_tab, bob = (
        Session(path, running.ann),
        Session(path, running.ann),
        Session(path, running.bob),
    )
    spectator = Session(path, eve)
    sessions = [ann, ann_tab, bob, spectator]
    boards = {}
    for session in sessions:
        assert await session.open()
        boards[session] = await session.until("board" if session is spectator else "state")
    rng = random.Random(f"{variant}-race")
    for step in range(STEPS):
        session = ann if step % 3 else bob
        frame = pick(rng, boards[session])
        if frame is None:
            break
        if frame["type"] == "autoplay":
            continue  # races have no autoplay
        replies = await session.answers("text", json.dumps(frame))
        boards[session] = next(r for r in reversed(replies) if r["type"] in ("ack", "state"))
    for session in (ann, bob):
        await session.answers("text", '{"type":"resign"}')
    for session in sessions:
        await session.drain(0.2)
        await session.close()
    frames = [text for session in sessions for text in session.log]
    assert any('"type":"board"' in t for t in spectator.log)
    assert any('"type":"state"' in t for t in ann_tab.log)

    def check_all():
        for text in frames:
            check_frame(text)

    await database_sync_to_async(check_all)()


@pytest.mark.parametrize("variant", VARIANTS)
async def test_no_practice_frame_shows_a_hidden_card(variant, make_client):
    """A practice game in two tabs with random moves, deals, undos and autoplay: every frame to
    either tab hides exactly the face-down and stock cards."""
    ann = await database_sync_to_async(make_client)("Ann")
    game: Game = await database_sync_to_async(do_create_game)(ann.player, variant, 2024)
    tab, other_tab = Session("/ws/game/", ann), Session("/ws/game/", ann)
    for session in (tab, other_tab):
        assert await session.open()
        board = (
            await session.answers("text", json.dumps({"type": "open", "game": game.public_id}))
        )[-1]
    rng = random.Random(f"{variant}-practice")
    for _ in range(STEPS):
        frame = pick(rng, board)
        if frame is None:
            break
        replies = await tab.answers("text", json.dumps(frame))
        board = next(r for r in reversed(replies) if r["type"] in ("ack", "state", "error"))
        if board["type"] == "error":  # autoplay with nothing to send home
            board = (
                await tab.answers("text", json.dumps({"type": "open", "game": game.public_id}))
            )[-1]
    await other_tab.drain(0.2)
    for session in (tab, other_tab):
        await session.close()
    assert any('"type":"state"' in t for t in other_tab.log[1:])

    def check_all():
        for text in tab.log + other_tab.log:
            check_frame(text)

    await database_sync_to_async(check_all)()


async def test_the_scan_catches_a_card_outside_a_board():
    """The check is not vacuous: a card name in a progress event is caught."""
    with pytest.raises(AssertionError):
        check_frame('{"type":"progress","event":3,"note":"KS"}')
