"""/ws/game/ through the real ASGI application: every rule of docs/protocol.md's practice section.

Each refusal is an error frame with the documented code; the game is unchanged and the socket
stays open (checked by a ping after it). Every frame these tests receive is also checked to hide
face-down and stock cards (the `connect` fixture).
"""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from service_positions import near_won_state

from games.actions import starting_position
from games.engine import VARIANTS, new_game
from games.models import Game, Move
from games.play import is_autoplay_move

pytestmark = pytest.mark.django_db(transaction=True)

GAME_FRAME_KEYS = {
    "type",
    "game",
    "seq",
    "played",
    "view",
    "legal",
    "status",
    "moves",
    "can_undo",
    "started_at",
    "elapsed_ms",
    "finished_at",
}


@database_sync_to_async
def create_game(player, variant="penguin", seed=1, **kwargs) -> Game:
    from games.actions import do_create_game

    return do_create_game(player, variant, seed, **kwargs)


@database_sync_to_async
def reload(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


@database_sync_to_async
def log_of(game: Game) -> list[str]:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("move", flat=True))


async def assert_still_open(ws) -> None:
    """The socket still answers."""
    assert (await ws.send_frame({"type": "ping"}))["type"] == "pong"


async def opened(connect, client, game: Game):
    """A socket of `client` with `game` open; returns (socket, state frame)."""
    ws = await connect(client)
    assert ws.connected
    state = await ws.send_frame({"type": "open", "game": game.public_id})
    assert state["type"] == "state", state
    return ws, state


@pytest.mark.parametrize("variant", VARIANTS)
async def test_open_answers_with_the_state(connect, guest_client, player, variant):
    """`open` on your game answers `state` with the documented fields and the player view."""
    game = await create_game(player, variant, 12)
    ws, state = await opened(connect, guest_client, game)
    assert set(state) == GAME_FRAME_KEYS
    assert state["game"] == game.public_id
    assert (state["seq"], state["moves"], state["played"]) == (0, 0, [])
    assert state["status"] == "playing" and state["can_undo"] is False
    engine = new_game(variant, 12)
    assert state["view"] == engine.to_dict(view="player")
    assert state["legal"] == engine.legal_moves()
    assert state["started_at"].endswith("Z") and state["finished_at"] is None
    assert isinstance(state["elapsed_ms"], int) and state["elapsed_ms"] >= 0


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_legal_move_is_acked(connect, guest_client, player, variant):
    """A legal move at the current seq is applied and answered with `ack`."""
    game = await create_game(player, variant, 3)
    ws, state = await opened(connect, guest_client, game)
    move = state["legal"][0]
    ack = await ws.send_frame({"type": "move", "move": move, "seq": 0})
    assert ack["type"] == "ack" and set(ack) == GAME_FRAME_KEYS
    engine = new_game(variant, 3)
    engine.play(move)
    assert (ack["seq"], ack["moves"], ack["played"]) == (1, 1, [move.removesuffix(":1")])
    assert ack["view"] == engine.to_dict(view="player")
    assert ack["legal"] == engine.legal_moves() and ack["can_undo"] is True
    assert await log_of(game) == [move.removesuffix(":1")]


async def test_an_illegal_move_is_refused(connect, guest_client, player):
    """An illegal move: `illegal_move` with the engine's reason; nothing changes."""
    game = await create_game(player, "penelopes-web", 3)
    ws, state = await opened(connect, guest_client, game)
    legal = set(state["legal"])
    illegal = next(
        f"t{a}-t{b}" for a in range(8) for b in range(8) if a != b and f"t{a}-t{b}" not in legal
    )
    error = await ws.send_frame({"type": "move", "move": illegal, "seq": 0})
    assert error["type"] == "error" and error["code"] == "illegal_move"
    assert error["reason"] and error["ref"] == "move"
    assert (await reload(game)).seq == 0
    await assert_still_open(ws)


@pytest.mark.parametrize(
    "text, code",
    [
        ("{not json", "bad_json"),
        ("[1, 2, 3]", "bad_json"),
        ('"move"', "bad_json"),
        ('{"seq": 1}', "bad_message"),
        ('{"type": 7}', "bad_message"),
        ('{"type": "move", "seq": 0}', "bad_message"),
        ('{"type": "move", "move": "t0-f0", "seq": "0"}', "bad_message"),
        ('{"type": "move", "move": "t0-f0", "seq": -1}', "bad_message"),
        ('{"type": "move", "move": "t0-f0", "seq": true}', "bad_message"),
        ('{"type": "move", "move": 5, "seq": 0}', "bad_message"),
        ('{"type": "open"}', "bad_message"),
        ('{"type": "ping", "t": NaN}', "bad_json"),
        ('{"type": "resign"}', "unknown_type"),
        ('{"type": "teleport", "card": "KS"}', "unknown_type"),
    ],
)
async def test_malformed_frames_are_refused(connect, guest_client, player, text, code):
    """Malformed JSON, a missing or mistyped field, an unknown type: a clear error, no change."""
    game = await create_game(player, "penguin", 2)
    ws, _ = await opened(connect, guest_client, game)
    await ws.send_to(text_data=text)
    error = await ws.receive_json_from()
    assert error["type"] == "error" and error["code"] == code, error
    assert error["reason"]
    assert (await reload(game)).seq == 0
    await assert_still_open(ws)


async def test_an_oversized_frame_is_refused(connect, guest_client, player):
    """A frame over 4096 bytes is `too_large`, even when it is a valid move."""
    game = await create_game(player, "penguin", 2)
    ws, state = await opened(connect, guest_client, game)
    frame = {"type": "move", "move": state["legal"][0], "seq": 0, "pad": "x" * 4100}
    error = await ws.send_frame(frame)
    assert error["code"] == "too_large"
    assert (await reload(game)).seq == 0
    await assert_still_open(ws)


async def test_a_binary_frame_is_refused(connect, guest_client, player):
    """Binary frames are `bad_message`: the protocol is JSON text."""
    game = await create_game(player, "penguin", 2)
    ws, state = await opened(connect, guest_client, game)
    payload = json.dumps({"type": "move", "move": state["legal"][0], "seq": 0}).encode()
    await ws.send_to(bytes_data=payload)
    error = await ws.receive_json_from()
    assert error["code"] == "bad_message"
    assert (await reload(game)).seq == 0
    await assert_still_open(ws)


async def test_a_duplicate_seq_is_not_applied_twice(connect, guest_client, player):
    """A resent move (seq behind the game) is answered with `state`, not applied again."""
    game = await create_game(player, "penguin", 2)
    ws, state = await opened(connect, guest_client, game)
    move = {"type": "move", "move": state["legal"][0], "seq": 0}
    ack = await ws.send_frame(move)
    again = await ws.send_frame(move)
    assert again["type"] == "state" and again["seq"] == 1 and again["played"] == []
    assert again["view"] == ack["view"]
    assert len(await log_of(game)) == 1


async def test_a_seq_ahead_of_the_game_is_stale(connect, guest_client, player):
    """A seq ahead of the game is `stale_seq`; nothing changes."""
    game = await create_game(player, "penguin", 2)
    ws, state = await opened(connect, guest_client, game)
    error = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 4})
    assert error["code"] == "stale_seq"
    assert (await reload(game)).seq == 0
    await assert_still_open(ws)


async def test_opening_someone_elses_game_is_forbidden(connect, guest_client, other_player):
    """`open` of another player's game is `forbidden` and shows nothing of it."""
    theirs = await create_game(other_player, "penguin", 2)
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "open", "game": theirs.public_id})
    assert error["type"] == "error" and error["code"] == "forbidden"
    assert "view" not in error
    await assert_still_open(ws)


async def test_a_move_in_someone_elses_game_is_forbidden(
    connect, guest_client, player, other_player
):
    """A move naming another player's game is `forbidden`; their game and yours are unchanged."""
    mine = await create_game(player, "penguin", 2)
    theirs = await create_game(other_player, "penguin", 2)
    ws, state = await opened(connect, guest_client, mine)
    for frame in (
        {"type": "move", "move": state["legal"][0], "seq": 0, "game": theirs.public_id},
        {"type": "undo", "seq": 0, "game": theirs.public_id},
        {"type": "autoplay", "seq": 0, "game": theirs.public_id},
    ):
        error = await ws.send_frame(frame)
        assert error["code"] == "forbidden", error
    assert (await reload(theirs)).seq == 0 and (await reload(mine)).seq == 0
    await assert_still_open(ws)


async def test_a_socket_without_a_player_owns_no_game(connect, player):
    """A socket with no session (no player) may open nobody's game."""
    game = await create_game(player, "penguin", 2)
    ws = await connect(None)
    error = await ws.send_frame({"type": "open", "game": game.public_id})
    assert error["code"] == "forbidden"
    await assert_still_open(ws)


async def test_an_unknown_game_is_not_found(connect, guest_client, player):
    """`open` of a game id that does not exist is `not_found`."""
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "open", "game": "no-such-game"})
    assert error["code"] == "not_found"
    await assert_still_open(ws)


async def test_a_move_before_open_is_no_game(connect, guest_client, player):
    """A move, undo or autoplay before `open` is `no_game`."""
    ws = await connect(guest_client)
    for frame in (
        {"type": "move", "move": "t0-f0", "seq": 0},
        {"type": "undo", "seq": 0},
        {"type": "autoplay", "seq": 0},
    ):
        assert (await ws.send_frame(frame))["code"] == "no_game"
    await assert_still_open(ws)


async def test_undo_takes_the_last_move_back(connect, guest_client, player):
    """`undo` restores the view before the move and is acked with played ["undo"]."""
    game = await create_game(player, "queenie", 6)
    ws, state = await opened(connect, guest_client, game)
    await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    ack = await ws.send_frame({"type": "undo", "seq": 1})
    assert ack["type"] == "ack" and ack["played"] == ["undo"]
    assert ack["view"] == state["view"] and ack["legal"] == state["legal"]
    assert (ack["seq"], ack["moves"], ack["can_undo"]) == (2, 0, False)
    error = await ws.send_frame({"type": "undo", "seq": 2})
    assert error["code"] == "illegal_move"


@pytest.mark.parametrize("variant", VARIANTS)
async def test_autoplay_sends_cards_home_and_detects_the_win(
    connect, guest_client, player, variant
):
    """`autoplay` on a near-won position plays the last foundation moves and the game is won."""
    game = await create_game(player, variant, 0, start_state=near_won_state(variant))
    ws, state = await opened(connect, guest_client, game)
    ack = await ws.send_frame({"type": "autoplay", "seq": 0})
    assert ack["type"] == "ack" and ack["played"]
    assert all(is_autoplay_move(variant, move) for move in ack["played"])
    assert ack["status"] == "won" and ack["finished_at"] is not None
    assert ack["legal"] == [] and ack["can_undo"] is False
    over = await ws.send_frame({"type": "undo", "seq": ack["seq"]})
    assert over["code"] == "game_over"


@pytest.mark.parametrize("variant", VARIANTS)
async def test_the_winning_move_is_detected(connect, guest_client, player, variant):
    """The single move that puts the last card home answers status `won`, with the time."""
    game = await create_game(player, variant, 0, start_state=near_won_state(variant))
    ws, state = await opened(connect, guest_client, game)
    winning = next(m for m in state["legal"] if is_autoplay_move(variant, m))
    ack = await ws.send_frame({"type": "move", "move": winning, "seq": 0})
    assert ack["status"] == "won"
    stored = await reload(game)
    assert stored.status == Game.Status.WON and stored.finished_at is not None
    assert ack["elapsed_ms"] == int((stored.finished_at - stored.started_at).total_seconds() * 1000)
    late = await ws.send_frame({"type": "move", "move": winning, "seq": 1})
    assert late["code"] == "game_over"


async def test_autoplay_with_nothing_to_send_changes_nothing(connect, guest_client, player):
    """Autoplay when no card can go home is acked with nothing played."""
    game = await create_game(player, "penelopes-web", 3)
    ws, state = await opened(connect, guest_client, game)
    engine = starting_position(await reload(game))
    if any(is_autoplay_move("penelopes-web", m) for m in engine.legal_moves()):
        pytest.skip("this deal has a card to send home")
    ack = await ws.send_frame({"type": "autoplay", "seq": 0})
    assert ack["type"] == "ack" and ack["played"] == [] and ack["seq"] == 0


async def test_a_reconnect_resumes_the_game(connect, guest_client, player):
    """After a reconnect `open` gives the position the moves left; a resend is not reapplied."""
    game = await create_game(player, "spiderweb", 5)
    ws, state = await opened(connect, guest_client, game)
    ack = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    await ws.disconnect()
    again, resumed = await opened(connect, guest_client, game)
    assert resumed["seq"] == 1 and resumed["view"] == ack["view"]
    dup = await again.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert dup["type"] == "state" and dup["seq"] == 1
    assert len(await log_of(game)) == 1


async def test_a_second_tab_sees_the_move(connect, guest_client, player):
    """Two sockets on one game: a move in one is sent to the other as `state`."""
    game = await create_game(player, "penguin", 4)
    first, state = await opened(connect, guest_client, game)
    second, _ = await opened(connect, guest_client, game)
    ack = await first.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    pushed = await second.receive_json_from()
    assert pushed["type"] == "state" and pushed["seq"] == 1 and pushed["view"] == ack["view"]
    assert await first.receive_nothing(timeout=0.2)
    stale = await second.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert stale["type"] == "state" and len(await log_of(game)) == 1


async def test_ping_is_answered_with_the_server_clock(connect, guest_client):
    """`ping` gets `pong` with the server's time, echoing the client's `t`."""
    ws = await connect(guest_client)
    pong = await ws.send_frame({"type": "ping", "t": 1234.5})
    assert pong["type"] == "pong" and pong["t"] == 1234.5
    assert isinstance(pong["server_time_ms"], int)


async def test_an_origin_not_in_allowed_hosts_is_refused(connect, guest_client):
    """Cross-site websockets are refused at the handshake."""
    ws = await connect(guest_client, origin=b"http://evil.example")
    assert not ws.connected


async def test_frames_past_the_budget_are_rate_limited(connect, guest_client):
    """Past 30 frames in 5 s each frame is `rate_limited`; the socket stays open."""
    ws = await connect(guest_client)
    answers = [await ws.send_frame({"type": "ping"}) for _ in range(32)]
    assert [a["type"] for a in answers[:30]] == ["pong"] * 30
    assert [a.get("code") for a in answers[30:]] == ["rate_limited"] * 2


async def test_a_flood_closes_the_socket(connect, guest_client):
    """Past 120 frames in 5 s the socket is closed with code 4008."""
    ws = await connect(guest_client)
    for _ in range(121):
        await ws.send_to(text_data='{"type":"ping"}')
    output = None
    for _ in range(200):
        output = await ws.receive_output(timeout=2)
        if output["type"] == "websocket.close":
            break
    assert output == {"type": "websocket.close", "code": 4008}


async def test_a_logged_in_player_plays_their_own_games(connect, user_client, user):
    """A session of a logged-in user reaches that account's player and games."""
    from games.identity import player_for_user

    client = user_client
    account = await database_sync_to_async(player_for_user)(user)
    game = await create_game(account, "queenie", 9)
    ws, state = await opened(connect, client, game)
    ack = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert ack["type"] == "ack"


async def test_a_server_error_is_an_error_frame(connect, guest_client, player, store_faults):
    """An unexpected failure is `server_error`; the socket stays open and the game unchanged."""
    game = await create_game(player, "penguin", 2)
    ws, state = await opened(connect, guest_client, game)

    def boom():
        raise RuntimeError("boom")

    store_faults(boom)
    error = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert error["code"] == "server_error"
    assert (await reload(game)).seq == 0
    await assert_still_open(ws)


@pytest.mark.parametrize("variant", ["spiderweb", "queenie", "eighty-thieves"])
async def test_no_hidden_card_ever_leaves_the_server(
    connect, guest_client, player, check_hidden_cards, sent_frames, variant
):
    """Through deals, moves and undos, every frame shows face-down and stock cards only as ??."""
    game = await create_game(player, variant, 31)
    ws, state = await opened(connect, guest_client, game)
    seq = 0
    for step in range(24):
        legal = state["legal"]
        if not legal:
            break
        if step % 5 == 4:
            frame = {"type": "undo", "seq": seq}
        elif "deal" in legal and step % 3 == 0:
            frame = {"type": "move", "move": "deal", "seq": seq}
        else:
            frame = {"type": "move", "move": legal[step % len(legal)], "seq": seq}
        state = await ws.send_frame(frame)
        assert state["type"] == "ack", state
        seq = state["seq"]
        assert "??" in json.dumps(state["view"]) or not state["view"]["stock"]
    await ws.send_frame({"type": "open", "game": game.public_id})
    assert len(sent_frames) > 10
    for text in sent_frames:
        await database_sync_to_async(check_hidden_cards)(text)
    assert sum('"??"' in text for text in sent_frames) > 5  # there was something to hide


async def test_the_hidden_card_check_catches_a_leak(player, check_hidden_cards):
    """The check itself fails on a frame that shows the stock (it is not a check that passes)."""
    game = await create_game(player, "spiderweb", 31)
    full = game.state
    leaking = json.dumps(
        {"type": "state", "game": game.public_id, "seq": 0, "view": {**full, "seed": None}}
    )
    with pytest.raises(AssertionError):
        await database_sync_to_async(check_hidden_cards)(leaking)
    face_down = {**full, "stock": ["??"] * len(full["stock"])}
    face_down.pop("seed", None)
    with pytest.raises(AssertionError):
        await database_sync_to_async(check_hidden_cards)(
            json.dumps({"type": "state", "game": game.public_id, "seq": 0, "view": face_down})
        )


async def test_a_race_game_is_not_played_on_the_practice_socket(connect, guest_client, player):
    """/ws/game/ opens practice games only: a race game of yours is `forbidden` there."""
    game = await create_game(player, "penguin", 2, kind=Game.Kind.RACE)
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "open", "game": game.public_id})
    assert error["code"] == "forbidden"
    await assert_still_open(ws)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "open"},
        {"type": "move", "move": "t0-f0", "seq": 0},
        {"type": "undo", "seq": 0},
        {"type": "autoplay", "seq": 0},
        {"type": "hint"},
    ],
    ids=lambda frame: frame["type"],
)
async def test_your_race_game_named_on_the_practice_socket_is_forbidden_not_no_game(
    connect, guest_client, player, frame
):
    """Your own race game named in any frame on /ws/game/ is `forbidden` (a game of a kind not
    played here), even while a practice game is open, where another practice game of yours that
    is not open is `no_game`; nothing changes."""
    race_game = await create_game(player, "penguin", 2, kind=Game.Kind.RACE)
    ws, _ = await opened(connect, guest_client, await create_game(player, "penguin", 3))
    error = await ws.send_frame({**frame, "game": race_game.public_id})
    assert (error["code"], error["ref"]) == ("forbidden", frame["type"])
    if frame["type"] != "open":
        other_practice = await create_game(player, "penguin", 4)
        error = await ws.send_frame({**frame, "game": other_practice.public_id})
        assert error["code"] == "no_game"
    assert (await reload(race_game)).seq == 0
    await assert_still_open(ws)
