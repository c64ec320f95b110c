"""Bad frames on the race socket: a clear error, nothing changed, the socket stays open."""

import json

import pytest

from games.sockets import MAX_FRAME_BYTES
from races.models import RaceEvent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_countdown")]


@pytest.fixture
async def socket(make_client, make_race, race_socket, run):
    ann = await run(make_client, "Ann")
    race = await run(make_race, ann)
    s = await race_socket(ann, race.code)
    await s.expect("snapshot")
    s.race = race
    return s


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('{"type": 5}', "bad_message"),
        ('{"type": "fly"}', "unknown_type"),
        ('{"type": "move", "move": "t0-t1"}', "bad_message"),
        ('{"type": "move", "move": "", "seq": 0}', "bad_message"),
        ('{"type": "move", "move": "t0-t1", "seq": -1}', "bad_message"),
        ('{"type": "undo", "seq": "1"}', "bad_message"),
        ('{"type": "ready", "ready": "yes"}', "bad_message"),
        ('{"type": "sync", "since": -3}', "bad_message"),
        ('{"type": "join", "name": 7}', "bad_message"),
    ],
)
async def test_malformed_frames_are_refused(socket, text, code, run):
    """Each malformed frame gets its error code; no event is recorded."""
    before = await run(RaceEvent.objects.filter(race=socket.race).count)
    await socket.send_to(text_data=text)
    assert (await socket.expect("error"))["code"] == code
    assert await run(RaceEvent.objects.filter(race=socket.race).count) == before
    assert (await socket.request({"type": "ping", "t": 1}, "pong"))["t"] == 1


async def test_oversized_frames_are_refused(socket):
    """A frame over the size limit is `too_large`."""
    await socket.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * MAX_FRAME_BYTES}))
    assert (await socket.expect("error"))["code"] == "too_large"


async def test_binary_frames_are_refused(socket):
    """Only JSON text frames are read."""
    await socket.send_to(bytes_data=b"\x00\x01")
    assert (await socket.expect("error"))["code"] == "bad_message"


async def test_floods_are_rate_limited_then_closed(socket):
    """Past the frame budget frames are refused (`rate_limited`); far past it the socket closes."""
    from games.sockets import FrameBudget

    budget = FrameBudget()
    for _ in range(budget.limit):
        await socket.send_json_to({"type": "ping"})
    await socket.send_json_to({"type": "ping"})
    codes = []
    for _ in range(budget.limit + 1):
        codes.append((await socket.next())["type"])
    assert codes[-1] == "error" and codes.count("pong") == budget.limit
    for _ in range(budget.flood):
        await socket.send_json_to({"type": "ping"})
    while True:
        output = await socket.receive_output(2)
        if output["type"] == "websocket.close":
            assert output["code"] == 4008
            break
