"""Values at the edges (lone surrogates, NULs, numbers past a double or 64 bits, Unicode digits)
where the fuzz of the sockets and the pages once found crashes: each gets its documented answer,
on every socket and page that takes it.
"""

from __future__ import annotations

import json

import hostile_harness as harness
import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.utils import timezone

from arenas import actions as arena_actions
from daily import dealpick
from daily.actions import start_attempt
from daily.models import DailyChallenge
from games.actions import do_create_game

pytestmark = pytest.mark.django_db(transaction=True)

SOCKETS = ["/ws/game/", "/ws/race/", "/ws/arena/"]
FIRST_FRAME = {"/ws/game/": None, "/ws/race/": "state", "/ws/arena/": "standings"}


@pytest.fixture(params=SOCKETS)
def socket_path(request, make_client):
    """A socket of each kind, open as the player of a game, a running race or an arena."""
    if request.param == "/ws/game/":
        return request.param, make_client("Ann")
    if request.param == "/ws/race/":
        running = request.getfixturevalue("running_race")
        return f"/ws/race/{running.race.code}/", running.ann
    arena, ann = harness.running_arena("Edges"), make_client("Ann")
    arena_actions.do_join(arena, ann.player)
    return arena.socket_path, ann


def first_frame(path: str) -> str | None:
    """The frame a socket of this kind sends first, that the tests wait for."""
    return FIRST_FRAME["/" + "/".join(path.split("/")[1:3]) + "/"]


def answers(path: str, client, text: str, first: str | None = None) -> list[tuple]:
    """Open the socket, send the frame: its answers (type, code), boards and snapshots left
    out; then the socket must still answer a ping."""
    session = harness.Session(path, client, marker=10**15)

    async def play():
        assert await session.open()
        if first is not None:
            await session.until(first)
        replies = await session.answers("text", text)
        await session.close()
        return replies

    replies = async_to_sync(play)()
    quiet = ("standings", "snapshot", "state", "progress")
    return [(r["type"], r.get("code"), r.get("t")) for r in replies if r["type"] not in quiet]


# ------------------------------------------------------------------ every socket


def test_a_type_with_a_lone_surrogate_is_unknown_type(socket_path):
    """`{"type": "\\ud800"}`: a type the socket does not know, like any other (docs/protocol.md:
    `unknown_type`), and the socket stays up."""
    path, client = socket_path
    replies = answers(path, client, '{"type": "\\ud800"}', first_frame(path))
    assert replies == [("error", "unknown_type", None)]


@pytest.mark.parametrize("t", ["1e400", "-1e400", "1.7976931348623159e308"])
def test_a_ping_whose_t_overflows_a_double_is_refused(socket_path, t):
    """A `t` the server cannot echo (past a double, read as infinity) is a bad field
    (`bad_message`), as a number past 64 bits is, never echoed as something else."""
    path, client = socket_path
    replies = answers(path, client, f'{{"type": "ping", "t": {t}}}', first_frame(path))
    assert replies == [("error", "bad_message", None)], replies


# ------------------------------------------------------------------ /ws/game/


@pytest.mark.parametrize(
    "public_id",
    [
        "\ud800",
        "a\udfffb",
        "\0",
        "a\0b",
    ],
    ids=["surrogate", "surrogate-inside", "nul", "nul-inside"],
)
@pytest.mark.parametrize("kind", ["open", "move", "undo", "autoplay", "hint"])
def test_a_game_id_with_a_nul_or_a_lone_surrogate_is_not_found(make_client, public_id, kind):
    """No game has such an id: `not_found` (docs/protocol.md: "a missing one is
    `not_found`"), in `open` and in every frame that names a game, with a game open."""
    ann = make_client("Ann")
    own = do_create_game(ann.player, "spiderweb", 11)
    session = harness.Session("/ws/game/", ann)
    frame = {"type": kind, "game": public_id, "seq": 0, "move": "t0-f0"}

    async def play():
        assert await session.open()
        await session.communicator.send_json_to({"type": "open", "game": own.public_id})
        await session.until("state")
        replies = await session.answers("text", json.dumps(frame))
        await session.close()
        return replies

    replies = async_to_sync(play)()
    assert [(r["type"], r["code"]) for r in replies] == [("error", "not_found")], replies
    assert harness.game_fingerprint(own)[:3] == (0, 0, "playing")


# ------------------------------------------------------------------ /ws/arena/<id>/


@pytest.mark.parametrize("ticket", ["MQ:1w4xQk:\ud800", "MQ:\udfff:abc", "\ud800:1w4xQk:abc"])
def test_a_ticket_with_a_lone_surrogate_is_bad_ticket(make_client, ticket):
    """A ticket no server signed: `bad_ticket`, the socket still a visitor's."""
    arena = harness.running_arena("Tickets")
    path = arena.socket_path
    replies = answers(path, None, json.dumps({"type": "player", "ticket": ticket}), "standings")
    assert replies == [("error", "bad_ticket", None)]


def test_an_arena_socket_on_an_id_with_a_nul_is_not_found():
    """No arena has the id: `not_found`, then the 4004 close (docs/protocol.md)."""
    assert opened_and_closed("/ws/arena/a%00b/") == ("not_found", 4004)


# ------------------------------------------------------------------ /ws/race/<code>/


@pytest.mark.parametrize("since", ["%C2%B2", "1%C2%B9"], ids=["²", "1¹"])
def test_a_race_socket_whose_since_is_no_number_gets_a_snapshot(running_race, since):
    """`?since=N` that is no event number is as unknown: a snapshot (docs/protocol.md)."""
    path = f"/ws/race/{running_race.race.code}/?since={since}"
    session = harness.Session(path, running_race.ann)

    async def play():
        assert await session.open()
        frame = await session.receive()
        await session.close()
        return frame

    assert async_to_sync(play)()["type"] == "snapshot"


def opened_and_closed(path: str) -> tuple[str, int]:
    """A socket on an address of nothing: the code of its error frame, and its close code."""
    session = harness.Session(path)

    async def play():
        assert await session.open()
        frame = await session.receive()
        closed = await session.communicator.receive_output(3)
        return frame["code"], closed.get("code")

    return async_to_sync(play)()


# ------------------------------------------------------------------ pages


@pytest.mark.parametrize("page", harness.NUL_ID_PAGES)
def test_an_id_with_a_nul_in_a_page_s_address_is_a_404(page):
    """No arena, game or replay has such an id: 404 (docs/api.md: `not_found`)."""
    reply = Client(raise_request_exception=False).get(f"{page}a%00b/")
    assert reply.status_code == 404


@pytest.mark.parametrize("number", [2**63, 2**64, 10**40])
def test_an_arena_player_past_64_bits_is_a_404(number):
    """No player has such a number: 404, as for any other player not in the arena."""
    arena = harness.running_arena("Players")
    reply = Client(raise_request_exception=False).get(
        f"/arenas/{arena.public_id}/players/{number}/"
    )
    assert reply.status_code == 404


def test_a_report_whose_note_has_a_nul_is_taken_or_refused(make_account):
    """A report's note is free text from a form: the report is taken (302 back) or the form
    comes again with why (400), never a server error."""
    challenge = DailyChallenge.objects.create(
        variant="penguin",
        day=dealpick.utc_day(timezone.now()),
        seed=42,
        candidate=0,
        proof=DailyChallenge.Proof.WON,
        solution=[],
    )
    attempt, _ = start_attempt(make_account("Ranked"), challenge)
    client = Client(raise_request_exception=False)
    client.force_login(make_account("Reporter").user)
    reply = client.post(
        f"/fairplay/report/{attempt.game.public_id}/", {"reason": "bot", "note": "a\0b"}
    )
    assert reply.status_code in (302, 400)
